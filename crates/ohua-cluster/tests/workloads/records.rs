//! The `record_pipeline` example's map task as a `cluster` algorithm, for
//! the scale-out measurement on pinned processes (issue 25): gzipped JSON
//! lines of TPC-H-like `Part` records are decompressed, parsed, filtered
//! and written back as JSON (all stateless: one distributable call, as the
//! compiler merges the run), then compressed and summed by two states in
//! the caller. The records come from a small deterministic generator (the
//! example uses `tpchgen`, which this crate does not depend on).

use std::io::{Read, Write};

use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;
use serde::{Deserialize, Serialize};

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

/// Selected records as JSON lines: what comes back from another process.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Serialized {
    data: Vec<u8>,
    records: usize,
}

pub struct Packed {
    data: Vec<u8>,
    records: usize,
    raw_len: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    pub chunks: usize,
    pub records: usize,
    pub raw_bytes: usize,
    pub compressed_bytes: usize,
    pub checksum: u64,
}

fn decompress(chunk: Vec<u8>) -> Vec<u8> {
    let mut out = Vec::with_capacity(chunk.len() * 4);
    GzDecoder::new(&chunk[..]).read_to_end(&mut out).expect("valid gzip chunk");
    out
}

fn deserialize(raw: Vec<u8>) -> Vec<Part> {
    raw.split(|b| *b == b'\n').filter(|l| !l.is_empty()).map(|l| serde_json::from_slice(l).expect("JSON")).collect()
}

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

pub struct Compressor;

impl Compressor {
    fn new() -> Self {
        Compressor
    }

    fn compress(&mut self, s: Serialized) -> Packed {
        let mut enc = GzEncoder::new(Vec::new(), Compression::fast());
        enc.write_all(&s.data).expect("in-memory write");
        Packed { data: enc.finish().expect("in-memory write"), records: s.records, raw_len: s.data.len() }
    }
}

pub struct Writer(Summary);

impl Writer {
    fn new() -> Self {
        Writer(Summary { chunks: 0, records: 0, raw_bytes: 0, compressed_bytes: 0, checksum: 0xcbf2_9ce4_8422_2325 })
    }

    fn write(&mut self, p: Packed) {
        let s = &mut self.0;
        s.chunks += 1;
        s.records += p.records;
        s.raw_bytes += p.raw_len;
        s.compressed_bytes += p.data.len();
        for b in &p.data {
            s.checksum = (s.checksum ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
        }
    }

    fn finish(&self) -> Summary {
        self.0.clone()
    }
}

#[ohua::algorithm(cluster)]
pub fn record_pipeline(chunks: Vec<Vec<u8>>) -> Summary {
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

/// `m` records in gzipped chunks of `chunk`, the same in every process.
pub fn chunks(m: usize, chunk: usize) -> Vec<Vec<u8>> {
    const TYPES: [&str; 6] = ["STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"];
    const FINISH: [&str; 5] = ["ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"];
    const METAL: [&str; 5] = ["TIN", "NICKEL", "BRASS", "STEEL", "COPPER"];
    const CONTAINERS: [&str; 8] =
        ["SM BOX", "LG CASE", "MED BAG", "JUMBO PKG", "WRAP BOX", "SM PACK", "LG BAG", "MED DRUM"];
    let mut h = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |n: u64| {
        h = h.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (h >> 33) % n
    };
    let parts: Vec<Part> = (0..m as u64)
        .map(|k| Part {
            p_partkey: k + 1,
            p_name: format!("part {k} goldenrod lavender spring chocolate lace"),
            p_mfgr: format!("Manufacturer#{}", 1 + next(5)),
            p_brand: format!("Brand#{}{}", 1 + next(5), 1 + next(5)),
            p_type: format!("{} {} {}", TYPES[next(6) as usize], FINISH[next(5) as usize], METAL[next(5) as usize]),
            p_size: 1 + next(50) as u32,
            p_container: CONTAINERS[next(8) as usize].to_string(),
            p_retailprice: 900.0 + next(110_000) as f64 / 100.0,
            p_comment: format!("ly final dependencies sleep {k} carefully"),
        })
        .collect();
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
