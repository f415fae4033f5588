// Which programs are compiled into the crate (by `build.rs`) and which
// experiment uses which. Also `include!`d by `build.rs`.

use super::graph::Params;

/// One compiled program: a seed and its parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spec {
    /// Levels of the top graph.
    pub levels: u32,
    /// Regular sources (1 or 3).
    pub sources: usize,
    /// Subfunction probability in tenths.
    pub p_sub10: u32,
    /// The seed.
    pub seed: u64,
}

impl Spec {
    /// The generator's parameters.
    pub fn params(&self) -> Params {
        Params::new(self.levels, self.sources, self.p_sub10 as f64 / 10.0)
    }

    /// The module name of its Ohua algorithm.
    pub fn name(&self) -> String {
        format!("g_l{}_s{}_p{}_n{}", self.levels, self.sources, self.p_sub10, self.seed)
    }
}

/// Graphs per level count in the level experiments: `OHUA_LEVELS_GRAPHS`
/// at build time, else 2 (the set the test suite and `run.sh` build). The
/// paper's 20 (about 640 programs) does not build as one crate yet: rustc
/// reached 21 GB of a 24 GB machine after 10 minutes (BENCHMARKS.md), so
/// it is built in parts ([`PART`]). Each program costs a few
/// seconds of a release build (about 5 s for 60 statements on 2 cores).
pub const GRAPHS_PER_LEVEL: u64 = count_from_env(option_env!("OHUA_LEVELS_GRAPHS"), 2);
/// Seeds of the modular experiment: the paper's 10 with the paper's 20
/// graphs per level count, else 2.
pub const MODULAR_SEEDS: u64 = if GRAPHS_PER_LEVEL >= 20 { 10 } else { 2 };

/// A positive count from an environment variable read at build time
/// (`option_env!`, so cargo rebuilds when it changes), or `default`.
///
/// # Panics
///
/// At compile time, if the variable is set to anything but a positive
/// decimal number.
const fn count_from_env(value: Option<&str>, default: u64) -> u64 {
    let Some(text) = value else { return default };
    let bytes = text.as_bytes();
    assert!(!bytes.is_empty(), "OHUA_LEVELS_GRAPHS: expected a positive number");
    let (mut n, mut i) = (0u64, 0);
    while i < bytes.len() {
        assert!(bytes[i].is_ascii_digit(), "OHUA_LEVELS_GRAPHS: expected a positive number");
        n = n * 10 + (bytes[i] - b'0') as u64;
        i += 1;
    }
    assert!(n > 0, "OHUA_LEVELS_GRAPHS: expected a positive number");
    n
}
/// This build's share of [`all`]: `OHUA_LEVELS_PART=k/n` at build time
/// compiles every `n`th program from the `k`th on (0-based), so a set too
/// large for one rustc (the paper's 20 graphs per level count) is built in
/// `n` smaller builds whose runs `--rows` and `--merge` put back together
/// (`run.sh` with `OHUA_LEVELS_PARTS=n`). Unset: `(0, 1)`, everything.
pub const PART: (u64, u64) = part_from_env(option_env!("OHUA_LEVELS_PART"));

/// Whether program `index` of [`all`] is compiled in this build ([`PART`]).
pub fn in_this_part(index: usize) -> bool {
    index as u64 % PART.1 == PART.0
}

/// `k/n` with `k < n` from an environment variable read at build time, or
/// `(0, 1)`.
///
/// # Panics
///
/// At compile time, if the variable is set to anything else.
const fn part_from_env(value: Option<&str>) -> (u64, u64) {
    let Some(text) = value else { return (0, 1) };
    let bytes = text.as_bytes();
    let (mut k, mut n, mut i, mut slash) = (0u64, 0u64, 0, false);
    while i < bytes.len() {
        match bytes[i] {
            b'/' if !slash => slash = true,
            b'0'..=b'9' if slash => n = n * 10 + (bytes[i] - b'0') as u64,
            b'0'..=b'9' => k = k * 10 + (bytes[i] - b'0') as u64,
            _ => panic!("OHUA_LEVELS_PART: expected k/n with k < n, e.g. 0/4"),
        }
        i += 1;
    }
    assert!(slash && n > 0 && k < n, "OHUA_LEVELS_PART: expected k/n with k < n, e.g. 0/4");
    (k, n)
}

/// Level counts of the level experiments.
pub const LEVELS: std::ops::RangeInclusive<u32> = 1..=20;

/// The programs of the baseline and concurrent-I/O experiments (one
/// source) at `levels`.
pub fn one_source(levels: u32) -> Vec<Spec> {
    (0..GRAPHS_PER_LEVEL).map(|seed| Spec { levels, sources: 1, p_sub10: 0, seed }).collect()
}

/// The programs of the three-source experiment at `levels`: even level
/// counts only (compile time).
pub fn three_sources(levels: u32) -> Vec<Spec> {
    if levels % 2 == 1 {
        return Vec::new();
    }
    (0..GRAPHS_PER_LEVEL).map(|seed| Spec { levels, sources: 3, p_sub10: 0, seed }).collect()
}

/// The programs of the modular experiment with subfunction probability
/// `p_sub10` tenths (20 levels, one source).
pub fn modular(p_sub10: u32) -> Vec<Spec> {
    (0..MODULAR_SEEDS).map(|seed| Spec { levels: 20, sources: 1, p_sub10, seed }).collect()
}

/// Whether the tests (`tests/ohua_optimum.rs`) run `spec`: one source up
/// to 6 levels, three sources up to 4 levels (8 and 6 until 2026-11-28:
/// the deeper ones cost about 70 s of CI's 2-core build, and the
/// subfunction programs of [`tests_only`] keep an 8-level shape). A build without the
/// `all-programs` feature compiles only these (`build.rs`): of [`all`], and
/// [`tests_only`].
pub fn tested(spec: &Spec) -> bool {
    match spec.sources {
        1 => spec.levels <= 6,
        _ => spec.levels <= 4,
    }
}

/// Programs with subfunctions for the tests, not in the tables: the
/// modular experiment's have 20 levels, and each took about 55 s of a
/// release build on 2 cores.
pub fn tests_only() -> Vec<Spec> {
    (0..2).map(|seed| Spec { levels: 8, sources: 1, p_sub10: 4, seed }).collect()
}

/// The programs `build.rs` compiles: this part's share of [`all`] (with
/// `all_programs`, the `all-programs` feature) or of its [`tested`] ones,
/// and [`tests_only`] in every build, so the tests pass in any.
pub fn chosen(all_programs: bool) -> Vec<Spec> {
    all()
        .into_iter()
        .enumerate()
        .filter(|(i, s)| in_this_part(*i) && (all_programs || tested(s)))
        .map(|(_, s)| s)
        .chain(tests_only())
        .collect()
}

/// Every program of the benchmark's tables, without repeats.
pub fn all() -> Vec<Spec> {
    let mut out: Vec<Spec> = Vec::new();
    let mut push = |s: Spec| {
        if !out.contains(&s) {
            out.push(s);
        }
    };
    for l in LEVELS {
        one_source(l).into_iter().for_each(&mut push);
        three_sources(l).into_iter().for_each(&mut push);
    }
    for p in 0..=4 {
        modular(p).into_iter().for_each(&mut push);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_is_read_as_k_of_n_and_the_parts_cover_every_program_once() {
        assert_eq!(part_from_env(None), (0, 1));
        assert_eq!(part_from_env(Some("3/10")), (3, 10));
        let n = 4u64;
        let covered: Vec<u64> = (0..20u64).map(|i| (0..n).filter(|&k| i % n == k).count() as u64).collect();
        assert!(covered.iter().all(|&c| c == 1));
    }

    #[test]
    #[should_panic(expected = "OHUA_LEVELS_PART")]
    fn a_part_beyond_the_count_is_refused() {
        part_from_env(Some("4/4"));
    }
}
