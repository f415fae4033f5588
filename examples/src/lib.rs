//! Shared helpers for the example binaries: a tiny seeded PRNG, argument
//! parsing and best-of-N timing.

#[cfg(feature = "blog")]
pub mod blog;
pub mod web;

use std::time::{Duration, Instant};

/// A xorshift64* generator: deterministic, dependency-free input generation.
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed (zero is replaced by a fixed constant).
    pub fn new(seed: u64) -> Self {
        Rng(if seed == 0 { 0x9E37_79B9_7F4A_7C15 } else { seed })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// A uniformly chosen element of `xs`.
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
}

/// The value of `--flag N` on the command line, else of the environment
/// variable `env`, else `default`.
pub fn arg_usize(flag: &str, env: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    let from_args = args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok());
    from_args.or_else(|| std::env::var(env).ok().and_then(|v| v.parse().ok())).unwrap_or(default)
}

/// Run `f` on a fresh input from `make_input` `runs` times and return the
/// last result and the best wall time. The input is built before the clock
/// starts, so cloning or generating it is not measured.
pub fn best_of<I, R>(runs: usize, mut make_input: impl FnMut() -> I, mut f: impl FnMut(I) -> R) -> (R, Duration) {
    let mut best = Duration::MAX;
    let mut result = None;
    for _ in 0..runs.max(1) {
        let input = make_input();
        let t = Instant::now();
        let r = f(input);
        best = best.min(t.elapsed());
        result = Some(r);
    }
    (result.expect("at least one run"), best)
}

/// The timing lines of a case study: sequential, the default deployment's
/// first run and later runs, the parallelism bound of the profiled run
/// beside the measured speedup, and the profiled run's report.
pub fn print_case_study(runs: usize, t_seq: Duration, t_first: Duration, t_later: Duration, report: &ohua::RunReport) {
    println!("\nbest of {runs} runs:");
    println!("  sequential                      {:>12}", ms(t_seq));
    for (name, t) in [("ohua default, first run (1 run)", t_first), ("ohua default (2nd run on)", t_later)] {
        println!("  {name:<31} {:>12}   speedup {:.2}x", ms(t), t_seq.as_secs_f64() / t.as_secs_f64());
    }
    println!("  {}", predicted(report, t_seq.as_secs_f64() / t_later.as_secs_f64()));
    println!("\nper-operator profile of one run with the default deployment:\n{report}");
}

/// The speedup a profiled run's report predicts on this machine's cores
/// (`RunReport::parallelism`, InContext's simulator as a bound), beside
/// the one measured.
fn predicted(report: &ohua::RunReport, measured: f64) -> String {
    let p = report.parallelism();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let predicted = p.speedup(cores);
    format!(
        "predicted from the profiled run: at most {predicted:.2}x on {cores} cores ({:.1} % of the work in order, {}); \
         measured {measured:.2}x, {:+.0} %",
        100.0 * p.in_order.as_secs_f64() / p.work.as_secs_f64().max(1e-12),
        p.bound_by.first().copied().unwrap_or("-"),
        100.0 * (predicted / measured - 1.0)
    )
}

/// Milliseconds with three decimals.
pub fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}
