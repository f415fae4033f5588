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

/// Graphs per level count in the level experiments (the paper: 20). Each
/// compiled program costs about 2.5 s of a dev or release build (LLVM
/// codegen of its operators, measured on 2 cores), so the compiled set is
/// small: 68 programs build in about 3 minutes.
pub const GRAPHS_PER_LEVEL: u64 = 2;
/// Seeds of the modular experiment (the paper: 10).
pub const MODULAR_SEEDS: u64 = 2;
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

/// Every compiled program, without repeats.
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
