//! Ÿauhau's level-graph benchmark (Table 4.2): per experiment and level
//! count, the average calls and latency of Ohua, DataLoader (JavaScript,
//! idiomatic and sequential await) and the `dataloader` crate (sequential
//! await and join per level) next to the analytic optimum and critical
//! path. Every result is checked against the sequential reference.
//!
//! `ohua-levels-bench [--quick] [--latency-ms N] [--slow-ms N] [--no-js]
//! [--only baseline|conc|modular|three] [--repeat N] [--trace] [--workers N]
//! [--small-arcs N] [--exact]`
//!
//! `--repeat N`: every variant runs each program N times, the tables show
//! the median latency. `--trace`: per program, to stderr, the critical
//! path, the latencies and where the time of Ohua's run went (`trace.rs`).
//! `--workers N`: Ohua's `Deployment::workers` (default 2).
//! `--exact`: the Ohua variant's sources answer after exactly their
//! latency (sleep, then spin the last 0.3 ms) instead of `thread::sleep`'s
//! 50-100 µs overshoot, so `ohua / critical path` measures the runtime.
//! `--small-arcs N`: Ohua's arc capacity and batch size N instead of the
//! defaults (what the run's setup costs with small arc buffers).
//! The single-source latency tables also give the *source time*: the
//! critical path's calls to the same simulated source (`runtime::wait`,
//! `thread::sleep` or `--exact`) made back to back on one thread, timed in
//! the same run. `ohua / source time` is then what the executor adds to the
//! calls themselves; `ohua / critical path` also counts `thread::sleep`'s
//! overshoot.
//! `--rows FILE`: also write every program's numbers to FILE, one line
//! each; `--merge FILE...` (the rest of the arguments) runs nothing and
//! prints the tables from such files, as if one build had run them all:
//! `run.sh` with `OHUA_LEVELS_PARTS=n` builds the set in `n` parts
//! (`sets::PART`), runs each with `--rows` and merges.

mod trace;

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use ohua::Deployment;
use ohua_levels_bench::compiled::COMPILED;
use ohua_levels_bench::dl_rs::{self, Style};
use ohua_levels_bench::graph::{generate, Program, ALL_SOURCES};
use ohua_levels_bench::runtime::{run_ohua, run_ohua_logged, Run};
use ohua_levels_bench::sets::{self, Spec};
use ohua_levels_bench::{emit_js, run_js, JsOutcome};

/// The parameter every program runs with.
const X: u64 = 2026;

/// The variants measured, in column order.
const VARIANTS: [&str; 5] = ["ohua", "dl-js", "dl-js-await", "dl-rs-await", "dl-rs-join"];

struct Opts {
    quick: bool,
    latency_ms: u64,
    slow_ms: u64,
    js: bool,
    only: Option<String>,
    repeat: usize,
    trace: bool,
    workers: usize,
    small_arcs: Option<usize>,
    rows: Option<PathBuf>,
    merge: Vec<PathBuf>,
}

/// One program's numbers: per variant calls per source and time.
struct Row {
    optimum: [u64; ALL_SOURCES],
    eager: [u64; ALL_SOURCES],
    critical_ms: f64,
    io_nodes: [u64; ALL_SOURCES],
    calls: Vec<[u64; ALL_SOURCES]>,
    ms: Vec<f64>,
    /// The critical path's source calls made back to back (median of the
    /// repeats), in ms; NaN where not measured (several sources).
    source_ms: f64,
}

struct Bench {
    opts: Opts,
    mismatches: Vec<String>,
    above_optimum: Vec<String>,
    js_dir: PathBuf,
    /// The experiment running (`baseline`, ...): the key of `--rows` lines.
    experiment: &'static str,
    /// `--merge`: the rows read, by experiment and program.
    merged: HashMap<(String, String), Row>,
}

fn main() {
    if !cfg!(feature = "all-programs") {
        eprintln!(
            "ohua-levels-bench: built without the benchmark's programs (only the tests' ones); \
             run benches/levels/run.sh, or build with `--features all-programs`"
        );
        std::process::exit(2);
    }
    let mut args = std::env::args().skip(1);
    let mut opts = Opts {
        quick: false,
        latency_ms: 10,
        slow_ms: 200,
        js: true,
        only: None,
        repeat: 1,
        trace: false,
        workers: 2,
        small_arcs: None,
        rows: None,
        merge: Vec::new(),
    };
    while let Some(a) = args.next() {
        match a.as_str() {
            "--quick" => opts.quick = true,
            "--no-js" => opts.js = false,
            "--latency-ms" => opts.latency_ms = args.next().and_then(|s| s.parse().ok()).expect("--latency-ms N"),
            "--slow-ms" => opts.slow_ms = args.next().and_then(|s| s.parse().ok()).expect("--slow-ms N"),
            "--only" => opts.only = args.next(),
            "--repeat" => {
                opts.repeat = args.next().and_then(|s| s.parse().ok()).filter(|&n| n > 0).expect("--repeat N")
            }
            "--trace" => opts.trace = true,
            "--exact" => ohua_levels_bench::runtime::set_exact(true),
            "--workers" => opts.workers = args.next().and_then(|s| s.parse().ok()).expect("--workers N"),
            "--small-arcs" => opts.small_arcs = Some(args.next().and_then(|s| s.parse().ok()).expect("--small-arcs N")),
            "--rows" => opts.rows = Some(args.next().map(PathBuf::from).expect("--rows FILE")),
            "--merge" => opts.merge = args.by_ref().map(PathBuf::from).collect(),
            _ => {
                eprintln!("usage: ohua-levels-bench [--quick] [--latency-ms N] [--slow-ms N] [--no-js] [--only baseline|conc|modular|three] [--repeat N] [--trace] [--workers N] [--small-arcs N] [--exact] [--rows FILE] [--merge FILE...]");
                std::process::exit(2);
            }
        }
    }
    let js_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("js");
    if opts.merge.is_empty() && opts.js && !js_dir.join("node_modules").exists() {
        eprintln!("{}/node_modules is missing: run `npm ci` there (run.sh does), or pass --no-js", js_dir.display());
        std::process::exit(2);
    }
    let merged = read_rows(&opts.merge);
    if let Some(path) = &opts.rows {
        std::fs::write(path, "").unwrap_or_else(|e| panic!("--rows {}: {e}", path.display()));
    }
    let mut b = Bench { opts, mismatches: Vec::new(), above_optimum: Vec::new(), js_dir, experiment: "", merged };
    let start = Instant::now();
    let lat = b.opts.latency_ms as f64;
    println!(
        "# Level graphs (Ÿauhau Table 4.2): {} graphs per level count, latency {} ms per call, slow source {} ms, Ohua workers {}{}{}{}",
        if b.opts.quick { 1 } else { sets::GRAPHS_PER_LEVEL },
        b.opts.latency_ms,
        b.opts.slow_ms,
        b.opts.workers,
        b.opts.small_arcs.map(|n| format!(" (arc capacity and batch size {n})")).unwrap_or_default(),
        if b.opts.quick { " (--quick)" } else { "" },
        if b.opts.repeat > 1 { format!(", latency the median of {} runs", b.opts.repeat) } else { String::new() }
    );
    let want = |e: &str| b.opts.only.as_deref().is_none_or(|o| o == e);
    let (run_base, run_conc, run_mod, run_three) = (want("baseline"), want("conc"), want("modular"), want("three"));
    if run_base {
        b.experiment = "baseline";
        let rows = b.levels(sets::one_source, [lat, lat, lat, 0.0]);
        print_calls(&format!("baseline: calls to the source, 1 source of {lat} ms"), "levels", &rows, 0..1);
        print_latency(&format!("baseline: latency [ms], 1 source of {lat} ms"), "levels", &rows);
    }
    if run_conc {
        b.experiment = "conc";
        let rows = b.levels(sets::one_source, [lat, lat, lat, b.opts.slow_ms as f64]);
        print_latency(
            &format!(
                "concurrent I/O: latency [ms], 1 source of {lat} ms and a slow one of {} ms at the root",
                b.opts.slow_ms
            ),
            "levels",
            &rows,
        );
    }
    if run_mod {
        b.experiment = "modular";
        let mut rows = Vec::new();
        for p in 0..=4u32 {
            let mut specs = sets::modular(p);
            if b.opts.quick {
                specs.truncate(1);
            }
            let programs = b.programs(&specs, [lat, lat, lat, 0.0]);
            if !programs.is_empty() {
                rows.push((format!("{:.1}", p as f64 / 10.0), programs));
            }
        }
        print_calls(&format!("modular: calls to the source, 20 levels, 1 source of {lat} ms"), "p(subf.)", &rows, 0..1);
    }
    if run_three {
        b.experiment = "three";
        let rows = b.levels(sets::three_sources, [lat, 2.0 * lat, 4.0 * lat, 0.0]);
        print_calls(
            &format!("3 sources (latencies {lat}:{}:{} ms): calls, summed over the sources", 2.0 * lat, 4.0 * lat),
            "levels",
            &rows,
            0..3,
        );
        print_latency("3 sources: latency [ms]", "levels", &rows);
    }
    if b.opts.merge.is_empty() {
        println!("\ntotal time {:.0} s", start.elapsed().as_secs_f64());
    } else {
        println!("\nmerged from {} row files (--merge)", b.opts.merge.len());
    }
    if !b.above_optimum.is_empty() {
        println!("\nOhua above the optimum (single source): {}", b.above_optimum.join(", "));
    }
    if !b.mismatches.is_empty() {
        eprintln!("RESULT MISMATCHES: {}", b.mismatches.join("; "));
        std::process::exit(1);
    }
    println!("all results equal the sequential reference");
}

impl Bench {
    /// Every level count of `specs_at`.
    fn levels(&mut self, specs_at: fn(u32) -> Vec<Spec>, latency: [f64; ALL_SOURCES]) -> Vec<(String, Vec<Row>)> {
        let levels: Vec<u32> = if self.opts.quick { vec![1, 2, 4, 10, 20] } else { sets::LEVELS.collect() };
        levels
            .into_iter()
            .filter(|&l| !specs_at(l).is_empty())
            .map(|l| {
                let mut specs = specs_at(l);
                if self.opts.quick {
                    specs.truncate(1);
                }
                (l.to_string(), self.programs(&specs, latency))
            })
            // A part's build (`sets::PART`) may have none of a level's programs.
            .filter(|(_, rows)| !rows.is_empty())
            .collect()
    }

    /// Run every variant of every program of `specs`.
    fn programs(&mut self, specs: &[Spec], latency_ms: [f64; ALL_SOURCES]) -> Vec<Row> {
        if !self.opts.merge.is_empty() {
            return self.merged_rows(specs);
        }
        let latency: [Duration; ALL_SOURCES] = std::array::from_fn(|i| Duration::from_secs_f64(latency_ms[i] / 1000.0));
        let programs: Vec<(Spec, Program, Run)> = specs
            .iter()
            .filter_map(|s| {
                let Some(c) = COMPILED.iter().find(|c| c.spec == *s) else {
                    // Another part's program (`sets::PART`).
                    assert!(sets::PART.1 > 1, "{s:?} is not compiled");
                    return None;
                };
                Some((*s, generate(s.seed, &s.params()), c.run))
            })
            .collect();
        let js: HashMap<(String, String), JsOutcome> = if self.opts.js {
            let named: Vec<(String, Program)> = programs.iter().map(|(s, p, _)| (s.name(), p.clone())).collect();
            let file = emit_js::file(&named);
            let mut runs: HashMap<(String, String), Vec<JsOutcome>> = HashMap::new();
            for _ in 0..self.opts.repeat {
                for o in run_js(&self.js_dir, &file, &latency_ms, X) {
                    runs.entry((o.name.clone(), o.style.clone())).or_default().push(o);
                }
            }
            runs.into_iter()
                .map(|(k, mut os)| {
                    let ms = median(os.iter().map(|o| o.ms).collect());
                    let mut o = os.swap_remove(0);
                    o.ms = ms;
                    (k, o)
                })
                .collect()
        } else {
            HashMap::new()
        };
        let mut rows = Vec::new();
        for (spec, p, run) in &programs {
            let name = spec.name();
            let expected = p.eval(X);
            let mut calls = Vec::new();
            let mut ms = Vec::new();
            let mut bad: Vec<String> = Vec::new();
            let mut check = |variant: &str, result: Option<u64>| match result {
                Some(r) if r == expected => {}
                Some(r) => bad.push(format!("{name} {variant}: {r} != {expected}")),
                None => bad.push(format!("{name} {variant}: no result")),
            };
            let (workers, small) = (self.opts.workers, self.opts.small_arcs);
            let deployment = || match small {
                Some(n) => Deployment::default().workers(workers).arc_capacity(n).batch_size(n),
                None => Deployment::default().workers(workers),
            };
            let mut times = Vec::new();
            let mut traces = Vec::new();
            let mut result = None;
            for _ in 0..self.opts.repeat {
                let t = Instant::now();
                if self.opts.trace {
                    let ((r, c, logs), reports) =
                        ohua::profile(|| ohua::with_deployment(deployment(), || run_ohua_logged(*run, &latency, X)));
                    let total = t.elapsed().as_secs_f64() * 1000.0;
                    times.push(total);
                    let wall: f64 = reports.iter().map(|r| r.wall.as_secs_f64() * 1000.0).sum();
                    let nodes: usize = reports.iter().map(|r| r.nodes.len()).sum();
                    let sections = reports.iter().flat_map(|r| &r.section_stats);
                    let (passes, idle, parks) =
                        sections.fold((0, 0, 0), |(p, i, k), s| (p + s.passes, i + s.idle_passes, k + s.parks));
                    eprintln!(
                        "  [{name}] run: {total:.2} ms, report wall {wall:.2} ms, {nodes} operators, {} runs, {passes} passes ({idle} idle), {parks} parks",
                        reports.len()
                    );
                    traces.push((total, trace::calls(t, &reports, &logs)));
                    result = Some((r, c));
                } else {
                    let (r, c) = ohua::with_deployment(deployment(), || run_ohua(*run, &latency, X));
                    times.push(t.elapsed().as_secs_f64() * 1000.0);
                    result = Some((r, c));
                }
            }
            let (r, c) = result.expect("at least one run");
            ms.push(median(times.clone()));
            check("ohua", Some(r));
            calls.push(c);
            for style in ["idiomatic", "sequential"] {
                match js.get(&(name.clone(), style.to_string())) {
                    Some(o) => {
                        check(&format!("js {style}"), o.result.parse().ok());
                        calls.push(o.calls);
                        ms.push(o.ms);
                    }
                    None => {
                        if self.opts.js {
                            check(&format!("js {style}"), None);
                        }
                        calls.push([0; ALL_SOURCES]);
                        ms.push(f64::NAN);
                    }
                }
            }
            for style in [Style::Sequential, Style::Join] {
                let os: Vec<_> = (0..self.opts.repeat).map(|_| dl_rs::run(p, style, &latency, X)).collect();
                check(&format!("rs {style:?}"), Some(os[0].result));
                calls.push(os[0].calls);
                ms.push(median(os.iter().map(|o| o.time.as_secs_f64() * 1000.0).collect()));
            }
            if self.opts.trace {
                let critical = p.critical_path(&latency_ms);
                eprintln!(
                    "\n# {name}: critical path {critical:.1} ms, with the cache {:.1} ms; ohua {} ms (median {:.1}); dl-js {:.1} ms",
                    trace::cached_ideal(p, X, &latency_ms),
                    times.iter().map(|t| format!("{t:.1}")).collect::<Vec<_>>().join(" "),
                    ms[0],
                    ms[1]
                );
                for (k, (total, calls)) in traces.iter().enumerate() {
                    let (parts, text) = trace::chain(p, X, calls, &latency_ms, *total);
                    eprintln!(
                        "  run {k}: {total:.1} ms = head {:.2} + wake {:.2} + gather {:.2} + quiet {:.2} + handoff {:.2} + sleep {:.2} (nominal {:.0}, {} calls) + deliver {:.2} + cached {:.2} + tail {:.2}",
                        parts.head, parts.wake, parts.gather, parts.quiet, parts.handoff, parts.sleep, parts.nominal, parts.rounds, parts.deliver, parts.cached, parts.tail
                    );
                    debug_assert!((parts.total() - total).abs() < 1e-6);
                    if k == 0 {
                        eprint!("  chain:\n{text}  calls:\n{}", trace::call_lines(calls));
                    }
                }
            }
            self.mismatches.extend(bad);
            let critical_ms = p.critical_path(&latency_ms);
            let slow = latency_ms[ohua_levels_bench::graph::SLOW] > 0.0;
            let source_ms = if spec.sources == 1 && !slow && latency_ms[0] > 0.0 {
                // One source: the critical path is this many of its calls.
                let rounds = (critical_ms / latency_ms[0]).round() as u32;
                median(
                    (0..self.opts.repeat)
                        .map(|_| {
                            let t = Instant::now();
                            (0..rounds).for_each(|_| ohua_levels_bench::runtime::wait(latency[0]));
                            t.elapsed().as_secs_f64() * 1000.0
                        })
                        .collect(),
                )
            } else {
                f64::NAN
            };
            let optimum = p.optimum();
            if spec.sources == 1 && calls[0][0] != optimum[0] {
                self.above_optimum.push(format!("{name}: {} calls, optimum {}", calls[0][0], optimum[0]));
            }
            let row = Row {
                optimum,
                eager: p.eager_calls(&latency_ms),
                critical_ms,
                io_nodes: p.io_nodes(),
                calls,
                ms,
                source_ms,
            };
            if let Some(path) = &self.opts.rows {
                use std::io::Write;
                let mut f = std::fs::OpenOptions::new().append(true).open(path).expect("--rows file");
                writeln!(f, "{} {name} {}", self.experiment, row.to_line()).expect("--rows file");
            }
            rows.push(row);
        }
        rows
    }

    /// `--merge`: the rows of `specs` that the files hold for this
    /// experiment, and the single-source runs above the optimum among them.
    ///
    /// # Panics
    ///
    /// If a program's row is missing (a part that did not run).
    fn merged_rows(&mut self, specs: &[Spec]) -> Vec<Row> {
        specs
            .iter()
            .map(|s| {
                let key = (self.experiment.to_string(), s.name());
                let row = self
                    .merged
                    .remove(&key)
                    .unwrap_or_else(|| panic!("--merge: no row for {} {} (did every part run?)", key.0, key.1));
                if s.sources == 1 && row.calls[0][0] != row.optimum[0] {
                    self.above_optimum
                        .push(format!("{}: {} calls, optimum {}", key.1, row.calls[0][0], row.optimum[0]));
                }
                row
            })
            .collect()
    }
}

impl Row {
    /// The numbers after the experiment and program names of a `--rows` line.
    fn to_line(&self) -> String {
        let mut words: Vec<String> = Vec::new();
        words.extend(self.optimum.iter().chain(&self.eager).map(u64::to_string));
        words.push(self.critical_ms.to_string());
        words.extend(self.io_nodes.iter().map(u64::to_string));
        words.extend(self.calls.iter().flatten().map(u64::to_string));
        words.extend(self.ms.iter().map(f64::to_string));
        words.push(self.source_ms.to_string());
        words.join(" ")
    }

    /// What [`Row::to_line`] wrote (or wrote before it had the source
    /// time: that is then NaN).
    fn from_words(words: &[&str]) -> Option<Row> {
        let n = ALL_SOURCES;
        let v = VARIANTS.len();
        let before_source_time = 3 * n + 1 + v * n + v;
        let (words, source_ms) = match words.len() {
            l if l == before_source_time => (words, f64::NAN),
            l if l == before_source_time + 1 => (&words[..before_source_time], words[before_source_time].parse().ok()?),
            _ => return None,
        };
        let int = |w: &str| w.parse::<u64>().ok();
        let arr = |ws: &[&str]| -> Option<[u64; ALL_SOURCES]> {
            let xs: Option<Vec<u64>> = ws.iter().map(|w| int(w)).collect();
            xs?.try_into().ok()
        };
        let calls: Option<Vec<[u64; ALL_SOURCES]>> = words[3 * n + 1..3 * n + 1 + v * n].chunks(n).map(arr).collect();
        let ms: Option<Vec<f64>> = words[3 * n + 1 + v * n..].iter().map(|w| w.parse().ok()).collect();
        Some(Row {
            optimum: arr(&words[..n])?,
            eager: arr(&words[n..2 * n])?,
            critical_ms: words[2 * n].parse().ok()?,
            io_nodes: arr(&words[2 * n + 1..3 * n + 1])?,
            calls: calls?,
            ms: ms?,
            source_ms,
        })
    }
}

/// The rows of every `--merge` file, by experiment and program name.
///
/// # Panics
///
/// On a file that cannot be read or a line `--rows` did not write.
fn read_rows(files: &[PathBuf]) -> HashMap<(String, String), Row> {
    let mut rows = HashMap::new();
    for path in files {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("--merge {}: {e}", path.display()));
        for (i, line) in text.lines().enumerate() {
            let words: Vec<&str> = line.split_whitespace().collect();
            let row = (words.len() > 2).then(|| Row::from_words(&words[2..])).flatten();
            let row = row.unwrap_or_else(|| panic!("--merge {}:{}: not a --rows line", path.display(), i + 1));
            rows.insert((words[0].to_string(), words[1].to_string()), row);
        }
    }
    rows
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    match xs.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => xs[n / 2],
        n => (xs[n / 2 - 1] + xs[n / 2]) / 2.0,
    }
}

fn avg(xs: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = xs.collect();
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

fn print_calls(title: &str, key: &str, rows: &[(String, Vec<Row>)], sources: std::ops::Range<usize>) {
    println!("\n## {title}\n");
    println!("| {key} | graphs | io nodes | optimum | eager | {} |", VARIANTS.join(" | "));
    println!("|---|---|---|---|---|{}", "---|".repeat(VARIANTS.len()));
    for (k, rs) in rows {
        let sum = |a: &[u64; ALL_SOURCES]| sources.clone().map(|s| a[s]).sum::<u64>() as f64;
        let cols: Vec<String> =
            (0..VARIANTS.len()).map(|v| format!("{:.2}", avg(rs.iter().map(|r| sum(&r.calls[v]))))).collect();
        println!(
            "| {k} | {} | {:.2} | {:.2} | {:.2} | {} |",
            rs.len(),
            avg(rs.iter().map(|r| sum(&r.io_nodes))),
            avg(rs.iter().map(|r| sum(&r.optimum))),
            avg(rs.iter().map(|r| sum(&r.eager))),
            cols.join(" | ")
        );
    }
}

fn print_latency(title: &str, key: &str, rows: &[(String, Vec<Row>)]) {
    // The source time where every program of the table has it (one source).
    let sourced = rows.iter().flat_map(|(_, rs)| rs).all(|r| r.source_ms.is_finite());
    let (head, rule) = if sourced { (" | source time | ohua / source time", "---|---|") } else { ("", "") };
    println!("\n## {title}\n");
    println!("| {key} | graphs | critical path | {} | ohua / critical path{head} |", VARIANTS.join(" | "));
    println!("|---|---|---|{}---|{rule}", "---|".repeat(VARIANTS.len()));
    for (k, rs) in rows {
        let cols: Vec<String> =
            (0..VARIANTS.len()).map(|v| format!("{:.0}", avg(rs.iter().map(|r| r.ms[v])))).collect();
        // Of the averages: a graph without io has a critical path of 0.
        let ohua = avg(rs.iter().map(|r| r.ms[0]));
        let ratio = ohua / avg(rs.iter().map(|r| r.critical_ms)).max(1e-9);
        let source = if sourced {
            let source_ms = avg(rs.iter().map(|r| r.source_ms));
            format!(" | {source_ms:.1} | {:.3}", ohua / source_ms.max(1e-9))
        } else {
            String::new()
        };
        println!(
            "| {k} | {} | {:.0} | {} | {ratio:.2}{source} |",
            rs.len(),
            avg(rs.iter().map(|r| r.critical_ms)),
            cols.join(" | ")
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rows_line_reads_back_as_the_row_it_was_written_from() {
        let arr = |base: u64| -> [u64; ALL_SOURCES] { std::array::from_fn(|s| base + s as u64) };
        let row = Row {
            optimum: arr(3),
            eager: arr(4),
            critical_ms: 15.25,
            io_nodes: arr(7),
            calls: (0..VARIANTS.len() as u64).map(|v| arr(10 * v)).collect(),
            ms: vec![15.5, f64::NAN, 20.0, 31.125, 16.0],
            source_ms: 15.0625,
        };
        let line = format!("baseline g_l3_s1_p0_n1 {}", row.to_line());
        let words: Vec<&str> = line.split_whitespace().collect();
        let back = Row::from_words(&words[2..]).expect("a --rows line");
        assert_eq!((back.optimum, back.eager, back.io_nodes), (row.optimum, row.eager, row.io_nodes));
        assert_eq!(back.critical_ms, row.critical_ms);
        assert_eq!(back.calls, row.calls);
        assert!(back.ms[1].is_nan());
        assert_eq!([back.ms[0], back.ms[2], back.ms[3], back.ms[4]], [15.5, 20.0, 31.125, 16.0]);
        assert_eq!(back.source_ms, row.source_ms);
        let older = Row::from_words(&words[2..words.len() - 1]).expect("a line written before the source time");
        assert!(older.source_ms.is_nan());
        assert!(Row::from_words(&words[4..]).is_none(), "a line with numbers missing is refused");
    }
}
