//! Lagniappe's AttackDetector (§2, Fig. 1) as an algorithm: a `Classifier`
//! keyed by (source, destination) marks each request's flow good or bad, a
//! stateless `inspect` scans the payload for attack signatures, its verdict
//! goes back to the classifier (a second call on the same state in the loop
//! body), and a `Service` keyed by file name serves the requests that pass.
//! Both state objects declare themselves keyed (`ohua::Keyed`), so their
//! calls run on replicas that each own the flows of their key groups.
//!
//! ```text
//! cargo run --release -p ohua-examples --bin attack_detector [-- --requests N]
//! ```
//!
//! Prints the sequential time and, against it and against one instance (one
//! section, no replicas), three deployments side by side as in Fig. 6(a):
//! the programmer's operators as pipeline stages, the default deployment
//! (replicas by measured cost), and explicit replicas of both keyed states.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::collections::{BTreeMap, HashMap};
use std::io::Write;

use flate2::write::GzEncoder;
use flate2::Compression;
use ohua::deploy::{KeyOf, SectionStrategy};
use ohua::{algorithm, keyed, Deployment, Keyed};
use ohua_examples::{arg_usize, best_of, ms, Rng};

/// A request for a file from `src` to `dst`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    id: u64,
    src: u32,
    dst: u32,
    file: String,
    payload: Vec<u8>,
}

/// What the detector answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Response {
    /// The flow was already blocked.
    Dropped,
    /// The inspection found an attack: the flow is now blocked.
    Blocked,
    /// Served: the file's version and the compressed size of the reply.
    Served { version: u64, bytes: usize },
}

/// The flow signature of the classifier.
type Flow = (u32, u32);

/// Per flow: requests seen and whether it is blocked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Classifier {
    flows: BTreeMap<Flow, (u64, bool)>,
}

impl Keyed for Classifier {
    type Key = Flow;
    fn split(self, parts: usize, part_of: &dyn Fn(&Flow) -> usize) -> Vec<Self> {
        let mut out = vec![Classifier::default(); parts];
        for (flow, s) in self.flows {
            out[part_of(&flow)].flows.insert(flow, s);
        }
        out
    }
    fn merge(parts: Vec<Self>) -> Self {
        Classifier { flows: parts.into_iter().flat_map(|p| p.flows).collect() }
    }
}

impl KeyOf<Classifier> for Request {
    fn key(&self) -> Flow {
        (self.src, self.dst)
    }
}

impl Classifier {
    fn new() -> Self {
        Classifier::default()
    }

    /// Whether the request's flow is still good.
    fn classify(&mut self, r: &Request) -> bool {
        let (seen, blocked) = self.flows.entry((r.src, r.dst)).or_default();
        *seen += 1;
        !*blocked
    }

    /// The inspection's verdict: an attack blocks the flow for good.
    fn report(&mut self, r: &Request, attack: bool) {
        if attack {
            self.flows.entry((r.src, r.dst)).or_default().1 = true;
        }
    }
}

/// Byte patterns an attack's payload contains.
const SIGNATURES: &[&[u8]] = &[b"../../", b"<script>", b"' OR 1=1", b"\x90\x90\x90\x90", b"cmd.exe"];

/// Stateless: whether a good request's payload carries an attack signature.
fn inspect(r: &Request, good: bool) -> bool {
    good && SIGNATURES.iter().any(|s| r.payload.windows(s.len()).any(|w| w == *s))
}

/// Per file: its contents and how often it changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Service {
    files: HashMap<String, (Vec<u8>, u64)>,
}

impl Keyed for Service {
    type Key = String;
    fn split(self, parts: usize, part_of: &dyn Fn(&String) -> usize) -> Vec<Self> {
        let mut out = vec![Service::default(); parts];
        for (name, f) in self.files {
            let k = part_of(&name);
            out[k].files.insert(name, f);
        }
        out
    }
    fn merge(parts: Vec<Self>) -> Self {
        Service { files: parts.into_iter().flat_map(|p| p.files).collect() }
    }
}

impl KeyOf<Service> for Request {
    fn key(&self) -> String {
        self.file.clone()
    }
}

impl Service {
    fn new(files: Vec<(String, Vec<u8>)>) -> Self {
        Service { files: files.into_iter().map(|(n, c)| (n, (c, 0))).collect() }
    }

    /// Serve a request that passed: every request appends its payload to
    /// the file (a new version) and gets the file gzipped: the work of a
    /// real web service, per file.
    fn serve(&mut self, r: &Request, pass: bool) -> Response {
        if !pass {
            return Response::Dropped;
        }
        let (content, version) = self.files.entry(r.file.clone()).or_default();
        content.extend_from_slice(&r.payload[..r.payload.len().min(16)]);
        let keep = content.len().saturating_sub(4 * 1024);
        content.drain(..keep);
        *version += 1;
        let mut gz = GzEncoder::new(Vec::new(), Compression::fast());
        gz.write_all(content).expect("in-memory write");
        Response::Served { version: *version, bytes: gz.finish().expect("in-memory write").len() }
    }
}

/// What the detector answered, and its two states after the requests.
pub type Outcome = (Vec<Response>, Classifier, Service);

#[algorithm]
fn attack_detector(requests: Vec<Request>, files: Vec<(String, Vec<u8>)>) -> Outcome {
    let mut classifier = keyed(Classifier::new());
    let mut service = keyed(Service::new(files));
    let mut responses = Vec::new();
    for req in requests {
        let good = classifier.classify(&req);
        let attack = inspect(&req, good);
        classifier.report(&req, attack);
        let pass = good && !attack;
        let response = service.serve(&req, pass);
        let answer = if good && attack { Response::Blocked } else { response };
        responses.push(answer);
    }
    (responses, classifier, service)
}

/// Lagniappe's policy (2) written by hand: the whole pipeline replicated on
/// two threads, requests routed by the *first* operator's flow signature
/// (source, destination), so the `Service` must be shared behind a lock.
fn hand_written_by_flow(requests: Vec<Request>, files: Vec<(String, Vec<u8>)>) -> Outcome {
    let service = std::sync::Mutex::new(Service::new(files));
    let n = requests.len();
    let mut shards: Vec<Vec<(usize, Request)>> = vec![Vec::new(), Vec::new()];
    for (i, r) in requests.into_iter().enumerate() {
        shards[usize::from((r.src ^ r.dst) % 2 == 1)].push((i, r));
    }
    let results: Vec<(Vec<(usize, Response)>, Classifier)> = std::thread::scope(|s| {
        let service = &service;
        let workers: Vec<_> = shards
            .into_iter()
            .map(|shard| {
                s.spawn(move || {
                    let mut classifier = Classifier::new();
                    let mut out = Vec::with_capacity(shard.len());
                    for (i, req) in shard {
                        let good = classifier.classify(&req);
                        let attack = inspect(&req, good);
                        classifier.report(&req, attack);
                        let response = service.lock().expect("no panic").serve(&req, good && !attack);
                        out.push((i, if good && attack { Response::Blocked } else { response }));
                    }
                    (out, classifier)
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().expect("worker")).collect()
    });
    let mut responses = vec![Response::Dropped; n];
    let mut classifiers = Vec::new();
    for (out, c) in results {
        for (i, r) in out {
            responses[i] = r;
        }
        classifiers.push(c);
    }
    (responses, Classifier::merge(classifiers), service.into_inner().expect("no panic"))
}

/// `n` requests over 64 flows and {FILES} files; one flow in eight attacks now
/// and then.
fn requests(n: usize, seed: u64) -> Vec<Request> {
    let mut rng = Rng::new(seed);
    (0..n as u64)
        .map(|id| {
            let (src, dst) = (rng.below(16) as u32, rng.below(4) as u32);
            let file = format!("/site/page{}.html", rng.below(FILES));
            let mut payload: Vec<u8> = (0..256).map(|_| b'a' + rng.below(26) as u8).collect();
            if src % 8 == 0 && rng.below(50) == 0 {
                let sig = SIGNATURES[rng.below(SIGNATURES.len() as u64) as usize];
                let at = rng.below((payload.len() - sig.len()) as u64) as usize;
                payload[at..at + sig.len()].copy_from_slice(sig);
            }
            Request { id, src, dst, file, payload }
        })
        .collect()
}

/// Files the service holds.
const FILES: u64 = 256;

fn files(seed: u64) -> Vec<(String, Vec<u8>)> {
    let mut rng = Rng::new(seed);
    (0..FILES)
        .map(|i| {
            let words = ["alpha ", "beta ", "gamma ", "delta ", "<p>", "</p>\n"];
            let content: Vec<u8> = (0..1024).flat_map(|_| rng.pick(&words).bytes()).collect();
            (format!("/site/page{i}.html"), content[..content.len().min(4 * 1024)].to_vec())
        })
        .collect()
}

fn main() {
    let n = arg_usize("--requests", "ATTACK_DETECTOR_REQUESTS", 20_000);
    let runs = 5;
    let reqs = requests(n, 42);
    let files = files(7);
    let input = || (reqs.clone(), files.clone());
    println!("attack_detector: {n} requests over 64 flows and {FILES} files");

    let (seq, t_seq) = best_of(runs, input, |(r, f)| ohua::sequential(|| attack_detector(r, f)));
    let one =
        Deployment::default().workers(1).sections(SectionStrategy::Single).replicas("off".parse().expect("valid"));
    let pipeline = Deployment::default().sections(SectionStrategy::PerOperator).replicas("off".parse().expect("valid"));
    let replicated = Deployment::default()
        .sections(SectionStrategy::Single)
        .replicas("attack_detector/.*=2".parse().expect("valid"));
    let (r_one, t_one) = best_of(runs, input, |(r, f)| ohua::with_deployment(one.clone(), || attack_detector(r, f)));
    let (r_pipe, t_pipe) =
        best_of(runs, input, |(r, f)| ohua::with_deployment(pipeline.clone(), || attack_detector(r, f)));
    let (r_flow, t_flow) = best_of(runs, input, |(r, f)| hand_written_by_flow(r, f));
    // The default deployment's first run has measured nothing: stateless
    // pieces on elastic replicas (README, "Configuration"); it plans by
    // measured cost from its second run.
    let (first_reqs, first_files) = input();
    let start = std::time::Instant::now();
    let r_first = attack_detector(first_reqs, first_files);
    let t_first = start.elapsed();
    let (r_def, t_def) = best_of(runs, input, |(r, f)| attack_detector(r, f));
    let (r_rep, t_rep) =
        best_of(runs, input, |(r, f)| ohua::with_deployment(replicated.clone(), || attack_detector(r, f)));
    let variants = [
        ("one instance", &r_one),
        ("pipeline", &r_pipe),
        ("first run", &r_first),
        ("default", &r_def),
        ("replicas", &r_rep),
    ];
    for (name, r) in variants {
        assert!(r == &seq, "{name} differs from sequential execution");
    }
    // Policy (2) shares the Service between threads: its calls for one file
    // interleave as the threads run, so its versions are not sequential
    // execution's (Lagniappe's point); only the classifier agrees.
    assert!(r_flow.1 == seq.1, "policy (2): the classifier differs from sequential execution");
    let same = r_flow.0 == seq.0;
    let blocked = seq.0.iter().filter(|r| **r == Response::Blocked).count();
    let dropped = seq.0.iter().filter(|r| **r == Response::Dropped).count();
    println!(
        "{blocked} attacks blocked, {dropped} requests of blocked flows dropped, {} served",
        n - blocked - dropped
    );
    println!("\nbest of {runs} runs:{:>44}    vs sequential / vs one instance", "time");
    let line = |name: &str, t: std::time::Duration| {
        let (s, o) = (t_seq.as_secs_f64() / t.as_secs_f64(), t_one.as_secs_f64() / t.as_secs_f64());
        println!("  {name:<52} {:>12}   {s:.2}x / {o:.2}x", ms(t));
    };
    line("sequential", t_seq);
    line("one instance (1 section, no replicas)", t_one);
    line("(1) the operators as pipeline stages", t_pipe);
    line("(2) hand-written: 2 threads by flow, locked Service", t_flow);
    if !same {
        println!("      (2) answers differ from sequential execution: the shared Service saw another order");
    }
    line("(3) default, first run (1 run: nothing measured yet)", t_first);
    line("(3) default (replicas by measured cost)", t_def);
    line("(3) keyed states on 2 replicas (rules)", t_rep);
    println!("results equal: yes");
    let (_, reports) = ohua::profile(|| attack_detector(reqs.clone(), files.clone()));
    println!("\nper-operator profile of one run with the default deployment:\n{}", reports[0]);
}
