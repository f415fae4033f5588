//! Lagniappe's FT (§4.1, Fig. 5): the ordering stage of a replicated state
//! machine. Client requests arrive signed; a stateless `cleaner` verifies
//! each signature (ed25519, the `ed25519-dalek` crate); `orderProtocol`
//! gives every valid request the next sequence number (stateful, and not
//! replicable: the sequence is the flow); `logRequest` appends the ordered
//! request to a log file on disk before it is acknowledged. The log must
//! hold exactly the lines, in exactly the order, of sequential execution.
//!
//! ```text
//! cargo run --release -p ohua-examples --bin ft [-- --requests N]
//! ```
//!
//! Signature checks are most of the work, and they are stateless: from its
//! second run on, the default deployment runs `cleaner` on replicas while
//! the order and the log stay single, in order.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::io::{BufWriter, Read, Write};
use std::path::PathBuf;

use ed25519_dalek::{Signature, Signer, SigningKey, Verifier, VerifyingKey};
use ohua::deploy::SectionStrategy;
use ohua::{algorithm, Deployment};
use ohua_examples::{arg_usize, best_of, ms, Rng};

/// A client's request, signed by the client.
#[derive(Debug, Clone)]
pub struct Signed {
    client: VerifyingKey,
    body: Vec<u8>,
    signature: Signature,
}

/// A request whose signature checked out (or not).
pub struct Checked {
    body: Option<Vec<u8>>,
}

/// A valid request with its place in the order.
pub struct Ordered {
    seq: Option<u64>,
    body: Vec<u8>,
}

/// What a client gets back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ack {
    /// Ordered and logged as number `seq`.
    Logged(u64),
    /// The signature did not verify.
    Rejected,
}

/// Stateless: verify the request's signature.
fn cleaner(r: Signed) -> Checked {
    let ok = r.client.verify(&r.body, &r.signature).is_ok();
    Checked { body: ok.then_some(r.body) }
}

/// The agreement on the order, reduced to its state: the next sequence
/// number (a single flow, so it is never replicated).
pub struct OrderProtocol {
    next: u64,
}

impl OrderProtocol {
    fn new() -> Self {
        OrderProtocol { next: 1 }
    }

    fn order(&mut self, c: Checked) -> Ordered {
        match c.body {
            Some(body) => {
                let seq = self.next;
                self.next += 1;
                Ordered { seq: Some(seq), body }
            }
            None => Ordered { seq: None, body: Vec::new() },
        }
    }
}

/// The log on stable storage: one line per ordered request.
pub struct LogRequest {
    path: PathBuf,
    out: BufWriter<std::fs::File>,
}

/// The log file's lines and an FNV-1a checksum of its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogSummary {
    lines: u64,
    bytes: u64,
    checksum: u64,
}

impl LogRequest {
    fn create(path: PathBuf) -> Self {
        let file = std::fs::File::create(&path).expect("the log file can be created");
        LogRequest { path, out: BufWriter::new(file) }
    }

    fn log(&mut self, o: Ordered) -> Ack {
        match o.seq {
            Some(seq) => {
                writeln!(self.out, "{seq} {}", String::from_utf8_lossy(&o.body)).expect("log write");
                Ack::Logged(seq)
            }
            None => Ack::Rejected,
        }
    }

    /// Flush to disk and read the log back.
    fn finish(&mut self) -> LogSummary {
        self.out.flush().expect("log flush");
        self.out.get_ref().sync_all().expect("log sync");
        let mut bytes = Vec::new();
        std::fs::File::open(&self.path).and_then(|mut f| f.read_to_end(&mut bytes)).expect("log read back");
        let checksum =
            bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3));
        let lines = bytes.iter().filter(|b| **b == b'\n').count() as u64;
        LogSummary { lines, bytes: bytes.len() as u64, checksum }
    }
}

#[algorithm]
fn ft(requests: Vec<Signed>, log_path: PathBuf) -> (Vec<Ack>, LogSummary) {
    let mut order = OrderProtocol::new();
    let mut log = LogRequest::create(log_path);
    let mut acks = Vec::new();
    for r in requests {
        let checked = cleaner(r);
        let ordered = order.order(checked);
        let ack = log.log(ordered);
        acks.push(ack);
    }
    let summary = log.finish();
    (acks, summary)
}

/// `n` requests from 16 clients; one in fifty carries a bad signature.
fn requests(n: usize, seed: u64) -> Vec<Signed> {
    let mut rng = Rng::new(seed);
    let keys: Vec<SigningKey> = (0..16)
        .map(|_| {
            let mut secret = [0u8; 32];
            secret.iter_mut().for_each(|b| *b = rng.below(256) as u8);
            SigningKey::from_bytes(&secret)
        })
        .collect();
    (0..n)
        .map(|i| {
            let key = &keys[rng.below(16) as usize];
            let body = format!("op {i}: put k{} v{}", rng.below(1000), rng.next_u64()).into_bytes();
            let mut signature = key.sign(&body);
            if rng.below(50) == 0 {
                // Signed by another client: fails verification.
                signature = keys[(rng.below(15) as usize + 1) % 16].sign(&body);
            }
            Signed { client: key.verifying_key(), body, signature }
        })
        .collect()
}

fn main() {
    let n = arg_usize("--requests", "FT_REQUESTS", 20_000);
    let runs = 3;
    let reqs = requests(n, 3);
    let dir = std::env::temp_dir().join(format!("ohua-ft-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let path = |name: &str| dir.join(name);
    println!("ft: {n} signed requests from 16 clients, logged to {}", dir.display());

    let (seq, t_seq) = best_of(runs, || reqs.clone(), |r| ohua::sequential(|| ft(r, path("sequential.log"))));
    let one = Deployment::default().workers(1).sections(SectionStrategy::Single);
    let (r_one, t_one) =
        best_of(runs, || reqs.clone(), |r| ohua::with_deployment(one.clone(), || ft(r, path("one.log"))));
    // The default deployment's first run has measured nothing (elastic
    // replicas, README "Configuration"); it plans by measured cost from its 2nd run.
    let first_reqs = reqs.clone();
    let start = std::time::Instant::now();
    let r_first = ft(first_reqs, path("first.log"));
    let t_first = start.elapsed();
    let (r_def, t_def) = best_of(runs, || reqs.clone(), |r| ft(r, path("default.log")));
    assert_eq!(r_one, seq, "one instance differs from sequential execution");
    assert_eq!(r_first, seq, "the default deployment's first run differs from sequential execution");
    assert_eq!(r_def, seq, "the default deployment differs from sequential execution");
    let log = |name: &str| std::fs::read(path(name)).expect("log written");
    assert_eq!(log("default.log"), log("sequential.log"), "the log files differ");
    assert_eq!(log("first.log"), log("sequential.log"), "the first run's log file differs");
    let rejected = seq.0.iter().filter(|a| **a == Ack::Rejected).count();
    println!("{} requests logged in order, {rejected} rejected; log: {} bytes", seq.1.lines, seq.1.bytes);
    println!("\nbest of {runs} runs:");
    println!("  sequential                      {:>12}", ms(t_seq));
    let line = |name: &str, t: std::time::Duration| {
        println!("  {name:<31} {:>12}   speedup {:.2}x", ms(t), t_seq.as_secs_f64() / t.as_secs_f64());
    };
    line("ohua, one section", t_one);
    line("ohua default, first run (1 run)", t_first);
    line("ohua default (2nd run on)", t_def);
    println!("results and log files equal: yes");
    let (_, reports) = ohua::profile(|| ft(reqs.clone(), path("profiled.log")));
    println!("\nper-operator profile of one run with the default deployment:\n{}", reports[0]);
    let _ = std::fs::remove_dir_all(&dir);
}
