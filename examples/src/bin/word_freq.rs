//! Word frequency: the introductory example of Ohua in Rust.
//!
//! A corpus of documents goes through a loop whose body splits a document
//! into words, normalizes them and tallies them (three stateless calls), and
//! a stateful counter merges each document's tally. `#[ohua::algorithm]`
//! turns the loop into a pipeline and, once a run has measured it, runs the
//! stateless piece on a replica per core; the counter still sees every
//! tally in document order, so the result equals sequential execution.
//!
//! ```text
//! cargo run --release -p ohua-examples --bin word_freq -- --lines 200000 --doc-lines 100
//! ```
//!
//! Why tally per document: adding a word to the counter is a hash-map
//! update, about a quarter of the work. Done word by word in the counter it
//! runs on one core whatever the machine (Amdahl: at most ~1.5x on 2
//! cores, the hand-written version included). A per-document tally moves
//! that work into the stateless, replicated part; the counter only merges
//! a few dozen distinct words per document.

// glibc's malloc serialises frees of memory another thread allocated (arena
// locks); a pipeline moves allocations between sections all the time. Every
// variant below uses mimalloc.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::collections::HashMap;
use std::time::Duration;

use ohua::algorithm;
use ohua_examples::{arg_usize, best_of, ms, Rng};
use rayon::prelude::*;

/// Words are maximal runs of non-whitespace characters; a hyphen or slash
/// between two letters also separates words ("state-of-the-art").
fn split(doc: String) -> Vec<String> {
    doc.split(|c: char| c.is_whitespace() || c == '-' || c == '/')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Lowercase each word and strip punctuation; drop words that become empty.
fn normalize(words: Vec<String>) -> Vec<String> {
    words
        .into_iter()
        .filter_map(|w| {
            let clean: String =
                w.chars().filter(|c| c.is_alphanumeric() || *c == '\'').flat_map(char::to_lowercase).collect();
            let clean = clean.trim_matches('\'').to_string();
            (!clean.is_empty()).then_some(clean)
        })
        .collect()
}

/// One document's word counts.
fn tally(words: Vec<String>) -> HashMap<String, u64> {
    let mut counts = HashMap::with_capacity(64);
    for w in words {
        *counts.entry(w).or_default() += 1;
    }
    counts
}

/// The corpus's word counts.
pub struct Counter {
    counts: HashMap<String, u64>,
}

impl Counter {
    fn new() -> Self {
        Counter { counts: HashMap::new() }
    }

    /// Add one document's tally.
    fn merge(&mut self, tally: HashMap<String, u64>) {
        for (w, n) in tally {
            *self.counts.entry(w).or_default() += n;
        }
    }

    /// The `n` most frequent words, ties broken alphabetically.
    fn top(&self, n: usize) -> Vec<(String, u64)> {
        let mut v: Vec<_> = self.counts.iter().map(|(k, v)| (k.clone(), *v)).collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        v.truncate(n);
        v
    }
}

#[algorithm]
fn word_freq(docs: Vec<String>) -> Vec<(String, u64)> {
    let mut counts = Counter::new();
    for doc in docs {
        let words = split(doc);
        let clean = normalize(words);
        let t = tally(clean);
        counts.merge(t);
    }
    counts.top(10)
}

/// The same computation written by hand: `threads` scoped threads take
/// documents from a shared index, tally them and merge into a counter of
/// their own; the counters are merged at the end. The baseline that shows
/// what the machine allows for this workload, independent of Ohua.
fn hand_threaded(docs: Vec<String>, threads: usize) -> Vec<(String, u64)> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let docs: Vec<Mutex<Option<String>>> = docs.into_iter().map(|d| Mutex::new(Some(d))).collect();
    let next = AtomicUsize::new(0);
    let parts: Vec<Counter> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Counter::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(slot) = docs.get(i) else { break mine };
                        let doc = slot.lock().expect("not poisoned").take().expect("taken once");
                        mine.merge(tally(normalize(split(doc))));
                    }
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().expect("worker panicked")).collect()
    });
    let mut all = Counter::new();
    for part in parts {
        all.merge(part.counts);
    }
    all.top(10)
}

/// The same computation with rayon: a parallel fold of tallies into
/// counters, reduced pairwise.
fn with_rayon(docs: Vec<String>) -> Vec<(String, u64)> {
    docs.into_par_iter()
        .fold(Counter::new, |mut c, doc| {
            c.merge(tally(normalize(split(doc))));
            c
        })
        .reduce(Counter::new, |mut a, b| {
            a.merge(b.counts);
            a
        })
        .top(10)
}

const VOCABULARY: &[&str] = &[
    "the",
    "of",
    "and",
    "to",
    "in",
    "a",
    "is",
    "that",
    "for",
    "it",
    "as",
    "was",
    "with",
    "be",
    "by",
    "on",
    "not",
    "he",
    "this",
    "are",
    "or",
    "his",
    "from",
    "at",
    "which",
    "but",
    "have",
    "an",
    "had",
    "they",
    "you",
    "were",
    "their",
    "one",
    "all",
    "we",
    "can",
    "her",
    "has",
    "there",
    "been",
    "if",
    "more",
    "when",
    "will",
    "would",
    "who",
    "so",
    "no",
    "dataflow",
    "operator",
    "section",
    "pipeline",
    "state",
    "thread",
    "compiler",
    "runtime",
    "algorithm",
    "parallel",
    "function",
    "channel",
    "graph",
    "batch",
    "worker",
    "deployment",
    "sequential",
    "semantics",
    "Rust",
    "Ohua",
    "don't",
    "it's",
    "state-of-the-art",
    "input/output",
    "well-known",
    "read/write",
];
const PUNCTUATION: &[&str] = &["", "", "", "", ",", ".", ";", ":", "!", "?", "\"", ")"];

/// `n` lines of 8 to 23 words drawn from a Zipf-like distribution over the
/// vocabulary, with random capitalization and trailing punctuation, in
/// documents of `per_doc` lines.
fn generate(n: usize, per_doc: usize, seed: u64) -> Vec<String> {
    let mut rng = Rng::new(seed);
    let lines: Vec<String> = (0..n)
        .map(|_| {
            let words = 8 + rng.below(16);
            let mut line = String::with_capacity(160);
            for i in 0..words {
                // Square of a uniform variate: low indices are much more frequent.
                let u = rng.below(1 << 16) as f64 / f64::from(1 << 16);
                let w = VOCABULARY[(u * u * VOCABULARY.len() as f64) as usize];
                if i > 0 {
                    line.push(' ');
                }
                if rng.below(8) == 0 {
                    line.push('(');
                }
                if rng.below(5) == 0 {
                    line.push_str(&w.to_uppercase());
                } else if i == 0 || rng.below(6) == 0 {
                    let mut cs = w.chars();
                    line.extend(cs.next().map(|c| c.to_ascii_uppercase()));
                    line.push_str(cs.as_str());
                } else {
                    line.push_str(w);
                }
                let punct: &&str = rng.pick(PUNCTUATION);
                line.push_str(punct);
            }
            line
        })
        .collect();
    lines.chunks(per_doc.max(1)).map(|doc| doc.join("\n")).collect()
}

fn main() {
    let n = arg_usize("--lines", "WORD_FREQ_LINES", 200_000);
    let per_doc = arg_usize("--doc-lines", "WORD_FREQ_DOC_LINES", 100);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let runs = 3;
    let docs = generate(n, per_doc, 42);
    let bytes: usize = docs.iter().map(String::len).sum();
    println!(
        "word_freq: {n} lines in {} documents, {:.1} MiB of text, {cores} cores",
        docs.len(),
        bytes as f64 / (1 << 20) as f64
    );

    // The first run has measured nothing: the stateless piece runs on
    // elastic replicas, which open once replica 0 has measured it heavy;
    // from the second run on `auto` plans by measured cost (README,
    // "Configuration" and "How many replicas").
    let (top, t_first) = best_of(1, || docs.clone(), word_freq);
    println!("\ntop 10:");
    for (i, (w, c)) in top.iter().enumerate() {
        println!("{:>3}. {w:<12} {c:>9}", i + 1);
    }

    let (seq, t_seq) = best_of(runs, || docs.clone(), |d| ohua::sequential(|| word_freq(d)));
    let (hand, t_hand) = best_of(runs, || docs.clone(), |d| hand_threaded(d, cores));
    let (ray, t_ray) = best_of(runs, || docs.clone(), with_rayon);
    let (par, t_par) = best_of(runs, || docs.clone(), word_freq);
    assert_eq!(seq, par, "Ohua result differs from sequential execution");
    assert_eq!(seq, top, "Ohua's first run differs from sequential execution");
    assert_eq!(seq, hand, "the hand-written threads differ from sequential execution");
    assert_eq!(seq, ray, "rayon differs from sequential execution");

    let speedup = |t: Duration| t_seq.as_secs_f64() / t.as_secs_f64();
    println!("\nbest of {runs} runs (speedup over sequential):");
    println!("  sequential                 {:>12}", ms(t_seq));
    println!("  hand-written {cores} threads     {:>12}   {:.2}x", ms(t_hand), speedup(t_hand));
    println!("  rayon fold/reduce          {:>12}   {:.2}x", ms(t_ray), speedup(t_ray));
    println!("  ohua, first run (1 run)    {:>12}   {:.2}x", ms(t_first), speedup(t_first));
    println!("  ohua (default)             {:>12}   {:.2}x", ms(t_par), speedup(t_par));
    println!("  ohua / hand-written        {:>12.2}x", t_par.as_secs_f64() / t_hand.as_secs_f64());
    println!("results equal: yes");
}
