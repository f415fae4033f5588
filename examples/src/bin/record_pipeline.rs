//! The Hadoop map-task pipeline of the dissertation's chapter 3 on TPC-H
//! PART-like records: decompress a chunk, deserialize its JSON lines, filter
//! the records, serialize the survivors, compress them and write them out.
//! The compressor and the writer are state objects.
//!
//! ```text
//! cargo run --release -p ohua-examples --bin record_pipeline -- --records 100000
//! ```

// glibc's malloc serialises frees of memory another thread allocated (arena
// locks); a pipeline moves allocations between sections all the time, and the
// hand-written threaded baselines suffer the same. Every variant in this
// binary, sequential included, uses mimalloc.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::io::{Read, Write};

use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;
use ohua::{algorithm, Deployment, SectionRule, SectionStrategy};
use ohua_examples::{arg_usize, best_of, ms, Rng};
use serde::{Deserialize, Serialize};

/// One row of the TPC-H PART table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Part {
    p_partkey: u64,
    p_name: String,
    p_mfgr: String,
    p_brand: String,
    p_type: String,
    p_size: u32,
    p_container: String,
    p_retailprice: f64,
    p_comment: String,
}

/// Serialized records of one chunk and how many there are.
pub struct Serialized {
    data: Vec<u8>,
    records: usize,
}

/// A compressed output chunk.
pub struct Packed {
    data: Vec<u8>,
    records: usize,
    raw_len: usize,
}

/// What the writer wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    chunks: usize,
    records: usize,
    raw_bytes: usize,
    compressed_bytes: usize,
    /// FNV-1a over all compressed bytes in write order.
    checksum: u64,
}

fn decompress(chunk: Vec<u8>) -> Vec<u8> {
    let mut out = Vec::with_capacity(chunk.len() * 4);
    GzDecoder::new(&chunk[..]).read_to_end(&mut out).expect("valid gzip chunk");
    out
}

fn deserialize(raw: Vec<u8>) -> Vec<Part> {
    raw.split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("valid JSON record"))
        .collect()
}

/// The map function's selection: medium-sized brushed or polished parts in
/// a box or a bag, priced above 1000.
fn filter(records: Vec<Part>) -> Vec<Part> {
    records
        .into_iter()
        .filter(|p| {
            (10..=40).contains(&p.p_size)
                && (p.p_type.contains("BRUSHED") || p.p_type.contains("POLISHED"))
                && (p.p_container.ends_with("BOX") || p.p_container.ends_with("BAG"))
                && p.p_retailprice > 1000.0
        })
        .collect()
}

fn serialize(selected: Vec<Part>) -> Serialized {
    let mut data = Vec::with_capacity(selected.len() * 200);
    for p in &selected {
        serde_json::to_writer(&mut data, p).expect("serializable record");
        data.push(b'\n');
    }
    Serialized { data, records: selected.len() }
}

/// Gzip compressor that reuses its output buffer's allocation.
pub struct Compressor {
    level: Compression,
    buf: Vec<u8>,
}

impl Compressor {
    fn new() -> Self {
        Compressor { level: Compression::fast(), buf: Vec::new() }
    }

    fn compress(&mut self, s: Serialized) -> Packed {
        self.buf.clear();
        let mut enc = GzEncoder::new(std::mem::take(&mut self.buf), self.level);
        enc.write_all(&s.data).expect("in-memory write");
        let data = enc.finish().expect("in-memory write");
        // Keep a buffer of the same capacity for the next chunk.
        self.buf = Vec::with_capacity(data.capacity());
        Packed { data, records: s.records, raw_len: s.data.len() }
    }
}

/// The sink: counts what it is given and checksums the bytes.
pub struct Writer {
    summary: Summary,
}

impl Writer {
    fn new() -> Self {
        Writer {
            summary: Summary {
                chunks: 0,
                records: 0,
                raw_bytes: 0,
                compressed_bytes: 0,
                checksum: 0xcbf2_9ce4_8422_2325,
            },
        }
    }

    fn write(&mut self, p: Packed) {
        let s = &mut self.summary;
        s.chunks += 1;
        s.records += p.records;
        s.raw_bytes += p.raw_len;
        s.compressed_bytes += p.data.len();
        for b in &p.data {
            s.checksum = (s.checksum ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
        }
    }

    fn finish(&self) -> Summary {
        self.summary.clone()
    }
}

#[algorithm]
fn record_pipeline(chunks: Vec<Vec<u8>>) -> Summary {
    let mut compressor = Compressor::new();
    let mut writer = Writer::new();
    for chunk in chunks {
        let raw = decompress(chunk);
        let records = deserialize(raw);
        let selected = filter(records);
        let out = serialize(selected);
        let packed = compressor.compress(out);
        writer.write(packed);
    }
    writer.finish()
}

/// The same computation written by hand as a 2-thread pipeline split like the
/// section rules below: one thread decompresses, the other deserializes,
/// filters, serializes, compresses and writes. It is the baseline that shows
/// what the machine allows for this workload, independent of Ohua.
fn hand_threaded(chunks: Vec<Vec<u8>>) -> Summary {
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<u8>>(4);
    std::thread::scope(|s| {
        s.spawn(move || {
            for chunk in chunks {
                tx.send(decompress(chunk)).expect("consumer alive");
            }
        });
        let mut compressor = Compressor::new();
        let mut writer = Writer::new();
        for raw in rx {
            writer.write(compressor.compress(serialize(filter(deserialize(raw)))));
        }
        writer.finish()
    })
}

const SYLLABLES: &[&str] = &[
    "almond",
    "antique",
    "aquamarine",
    "azure",
    "beige",
    "bisque",
    "black",
    "blanched",
    "blue",
    "blush",
    "brown",
    "burlywood",
    "burnished",
    "chartreuse",
    "chiffon",
    "chocolate",
    "coral",
    "cornflower",
    "cornsilk",
    "cream",
    "cyan",
    "dark",
    "deep",
    "dim",
    "dodger",
    "drab",
    "firebrick",
    "floral",
    "forest",
    "frosted",
    "gainsboro",
    "ghost",
    "goldenrod",
    "green",
    "grey",
    "honeydew",
    "hot",
    "indian",
    "ivory",
    "khaki",
    "lace",
    "lavender",
    "lawn",
    "lemon",
];
const TYPE1: &[&str] = &["STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"];
const TYPE2: &[&str] = &["ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"];
const TYPE3: &[&str] = &["TIN", "NICKEL", "BRASS", "STEEL", "COPPER"];
const CONT1: &[&str] = &["SM", "LG", "MED", "JUMBO", "WRAP"];
const CONT2: &[&str] = &["CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"];
const WORDS: &[&str] = &[
    "furiously",
    "quickly",
    "carefully",
    "blithely",
    "slyly",
    "ironic",
    "final",
    "regular",
    "express",
    "pending",
    "bold",
    "even",
    "special",
    "silent",
    "unusual",
    "deposits",
    "requests",
    "packages",
    "accounts",
    "instructions",
];

/// `m` PART records following the TPC-H generator's field shapes.
fn generate(m: usize, seed: u64) -> Vec<Part> {
    let mut r = Rng::new(seed);
    (1..=m as u64)
        .map(|k| {
            let name: Vec<&str> = (0..5).map(|_| *r.pick(SYLLABLES)).collect();
            let mfgr = 1 + r.below(5);
            let comment: Vec<&str> = (0..3 + r.below(6)).map(|_| *r.pick(WORDS)).collect();
            Part {
                p_partkey: k,
                p_name: name.join(" "),
                p_mfgr: format!("Manufacturer#{mfgr}"),
                p_brand: format!("Brand#{mfgr}{}", 1 + r.below(5)),
                p_type: format!("{} {} {}", r.pick(TYPE1), r.pick(TYPE2), r.pick(TYPE3)),
                p_size: 1 + r.below(50) as u32,
                p_container: format!("{} {}", r.pick(CONT1), r.pick(CONT2)),
                p_retailprice: (90_000 + (k / 10) % 20_001 + 100 * (k % 1000)) as f64 / 100.0,
                p_comment: comment.join(" "),
            }
        })
        .collect()
}

/// JSON lines, gzipped in chunks of `chunk` records.
fn to_chunks(parts: &[Part], chunk: usize) -> Vec<Vec<u8>> {
    parts
        .chunks(chunk)
        .map(|c| {
            let mut enc = GzEncoder::new(Vec::new(), Compression::default());
            for p in c {
                serde_json::to_writer(&mut enc, p).expect("serializable record");
                enc.write_all(b"\n").expect("in-memory write");
            }
            enc.finish().expect("in-memory write")
        })
        .collect()
}

fn main() {
    let m = arg_usize("--records", "RECORD_PIPELINE_RECORDS", 100_000);
    let chunk = arg_usize("--chunk", "RECORD_PIPELINE_CHUNK", 500);
    let runs = 3;
    let chunks = to_chunks(&generate(m, 7), chunk);
    let input_bytes: usize = chunks.iter().map(Vec::len).sum();
    println!(
        "record_pipeline: {m} records in {} gzip chunks of {chunk}, {:.1} MiB compressed input",
        chunks.len(),
        input_bytes as f64 / (1 << 20) as f64
    );

    let split = Deployment {
        sections: SectionStrategy::Rules(vec![
            SectionRule::new(["record_pipeline/decompress#.*"]).expect("valid regex"),
            SectionRule::new(["record_pipeline/(deserialize|filter|serialize|compress|write)#.*"])
                .expect("valid regex"),
        ]),
        ..Deployment::default()
    };

    let (seq, t_seq) = best_of(runs, || chunks.clone(), |c| ohua::sequential(|| record_pipeline(c)));
    let (hand, t_hand) = best_of(runs, || chunks.clone(), hand_threaded);
    // The first run of the default deployment cuts the graph by operator
    // count; later runs cut by the busy times earlier runs measured.
    let (first, t_first) = best_of(1, || chunks.clone(), record_pipeline);
    let (par, t_par) = best_of(runs, || chunks.clone(), record_pipeline);
    let (rules, t_rules) =
        best_of(runs, || chunks.clone(), |c| ohua::with_deployment(split.clone(), || record_pipeline(c)));
    assert_eq!(seq, first, "Ohua (default, first run) differs from sequential execution");
    assert_eq!(seq, par, "Ohua (default) differs from sequential execution");
    assert_eq!(seq, rules, "Ohua (rules) differs from sequential execution");
    assert_eq!(seq, hand, "the hand-written pipeline differs from sequential execution");

    println!(
        "kept {} of {m} records in {} chunks: {} bytes of JSON, {} bytes gzipped (checksum {:016x})",
        seq.records, seq.chunks, seq.raw_bytes, seq.compressed_bytes, seq.checksum
    );
    println!("\nbest of {runs} runs:");
    println!("  sequential            {:>12}", ms(t_seq));
    println!("  hand-written 2-thread {:>12}   speedup {:.2}x", ms(t_hand), t_seq.as_secs_f64() / t_hand.as_secs_f64());
    println!(
        "  ohua (default, 1st)   {:>12}   speedup {:.2}x   (cut by operator count)",
        ms(t_first),
        t_seq.as_secs_f64() / t_first.as_secs_f64()
    );
    println!(
        "  ohua (default)        {:>12}   speedup {:.2}x   (later runs: cut by measured cost)",
        ms(t_par),
        t_seq.as_secs_f64() / t_par.as_secs_f64()
    );
    println!(
        "  ohua (section rules)  {:>12}   speedup {:.2}x",
        ms(t_rules),
        t_seq.as_secs_f64() / t_rules.as_secs_f64()
    );
    println!("  ohua (rules) / hand-written {:>6.2}x", t_rules.as_secs_f64() / t_hand.as_secs_f64());
    println!("  section rules: {}", split.sections);
    println!("results equal: yes");

    let (profiled, reports) =
        ohua::profile(|| ohua::with_deployment(split.clone(), || record_pipeline(chunks.clone())));
    assert_eq!(profiled, seq);
    println!("\nper-operator profile of one run with the section rules:");
    for r in reports {
        println!("{r}");
    }
}
