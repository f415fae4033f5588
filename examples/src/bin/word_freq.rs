//! Word frequency: the introductory example of Ohua in Rust.
//!
//! A stateful tokenizer splits each line, a stateless function normalizes
//! the words, and a stateful counter accumulates them. `#[ohua::algorithm]`
//! turns the loop into a pipeline; the result equals sequential execution.
//!
//! ```text
//! cargo run --release -p ohua-examples --bin word_freq -- --lines 200000
//! ```

// glibc's malloc serialises frees of memory another thread allocated (arena
// locks); a pipeline moves allocations between sections all the time. Both the
// sequential and the Ohua variants use mimalloc.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::collections::HashMap;

use ohua::algorithm;
use ohua_examples::{arg_usize, best_of, ms, Rng};

/// Splits lines into words. Its state is the number of lines and words seen
/// and a buffer reused to assemble each token.
pub struct Tokenizer {
    lines: u64,
    words: u64,
    buf: String,
}

impl Tokenizer {
    fn new() -> Self {
        Tokenizer { lines: 0, words: 0, buf: String::with_capacity(64) }
    }

    /// Words are maximal runs of non-whitespace characters; a hyphen or
    /// slash between two letters also separates words ("state-of-the-art").
    fn split(&mut self, line: String) -> Vec<String> {
        self.lines += 1;
        let mut out = Vec::with_capacity(16);
        for c in line.chars() {
            if c.is_whitespace() || c == '-' || c == '/' {
                if !self.buf.is_empty() {
                    out.push(self.buf.clone());
                    self.buf.clear();
                }
            } else {
                self.buf.push(c);
            }
        }
        if !self.buf.is_empty() {
            out.push(self.buf.clone());
            self.buf.clear();
        }
        self.words += out.len() as u64;
        out
    }
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

/// Counts words.
pub struct Counter {
    counts: HashMap<String, u64>,
}

impl Counter {
    fn new() -> Self {
        Counter { counts: HashMap::new() }
    }

    fn add(&mut self, words: Vec<String>) {
        for w in words {
            *self.counts.entry(w).or_default() += 1;
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
fn word_freq(lines: Vec<String>) -> Vec<(String, u64)> {
    let mut tok = Tokenizer::new();
    let mut counts = Counter::new();
    for line in lines {
        let words = tok.split(line);
        let clean = normalize(words);
        counts.add(clean);
    }
    counts.top(10)
}

/// The same computation written by hand as a 2-thread pipeline: one thread
/// splits, the other normalizes and counts, with batches of 1024 lines in a
/// bounded channel. It is the baseline that shows what the machine allows for
/// this workload, independent of Ohua.
fn hand_threaded(lines: Vec<String>) -> Vec<(String, u64)> {
    const BATCH: usize = 1024;
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Vec<String>>>(4);
    std::thread::scope(|s| {
        s.spawn(move || {
            let mut tok = Tokenizer::new();
            let mut batch = Vec::with_capacity(BATCH);
            for line in lines {
                batch.push(tok.split(line));
                if batch.len() == BATCH {
                    tx.send(std::mem::replace(&mut batch, Vec::with_capacity(BATCH))).expect("consumer alive");
                }
            }
            if !batch.is_empty() {
                tx.send(batch).expect("consumer alive");
            }
        });
        let mut counts = Counter::new();
        for batch in rx {
            for words in batch {
                counts.add(normalize(words));
            }
        }
        counts.top(10)
    })
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
/// vocabulary, with random capitalization and trailing punctuation.
fn generate(n: usize, seed: u64) -> Vec<String> {
    let mut rng = Rng::new(seed);
    (0..n)
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
        .collect()
}

fn main() {
    let n = arg_usize("--lines", "WORD_FREQ_LINES", 200_000);
    let runs = 3;
    let lines = generate(n, 42);
    let bytes: usize = lines.iter().map(String::len).sum();
    println!("word_freq: {n} lines, {:.1} MiB of text", bytes as f64 / (1 << 20) as f64);

    let top = word_freq(lines.clone());
    println!("\ntop 10:");
    for (i, (w, c)) in top.iter().enumerate() {
        println!("{:>3}. {w:<12} {c:>9}", i + 1);
    }

    let (seq, t_seq) = best_of(runs, || lines.clone(), |l| ohua::sequential(|| word_freq(l)));
    let (hand, t_hand) = best_of(runs, || lines.clone(), hand_threaded);
    let (par, t_par) = best_of(runs, || lines.clone(), word_freq);
    assert_eq!(seq, par, "Ohua result differs from sequential execution");
    assert_eq!(seq, top);
    assert_eq!(seq, hand, "the hand-written pipeline differs from sequential execution");

    println!("\nbest of {runs} runs:");
    println!("  sequential          {:>12}", ms(t_seq));
    println!("  hand-written 2-thread {:>10}   speedup {:.2}x", ms(t_hand), t_seq.as_secs_f64() / t_hand.as_secs_f64());
    println!("  ohua (default)      {:>12}   speedup {:.2}x", ms(t_par), t_seq.as_secs_f64() / t_par.as_secs_f64());
    println!("  ohua / hand-written {:>11.2}x", t_par.as_secs_f64() / t_hand.as_secs_f64());
    println!("results equal: yes");
}
