use ohua::algorithm;
use std::collections::HashMap;

pub struct Tokenizer {
    calls: usize,
}
impl Tokenizer {
    fn new() -> Self {
        Tokenizer { calls: 0 }
    }
    fn split(&mut self, line: String) -> Vec<String> {
        self.calls += 1;
        line.split_whitespace().map(str::to_string).collect()
    }
}
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
    fn top(&self, n: usize) -> Vec<(String, u64)> {
        let mut v: Vec<_> = self.counts.iter().map(|(k, v)| (k.clone(), *v)).collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        v.truncate(n);
        v
    }
}
fn normalize(words: Vec<String>) -> Vec<String> {
    words.into_iter().map(|w| w.to_lowercase()).collect()
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

#[test]
fn word_freq_matches_sequential() {
    let lines: Vec<String> = (0..1000).map(|i| format!("The cat {} the DOG {}", i % 7, i % 3)).collect();
    let seq = ohua::sequential(|| word_freq(lines.clone()));
    let par = word_freq(lines.clone());
    assert_eq!(seq, par);
    assert_eq!(par[0], ("the".to_string(), 2000));
}
