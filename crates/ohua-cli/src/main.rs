//! `ohua`: inspect how the compiler sees an algorithm.
//!
//! ```text
//! ohua dump src/lib.rs                      # every stage of every #[algorithm] in the file
//! ohua dump src/lib.rs --stage graph        # one stage: ast | ir | graph | dot | io | code
//! ohua dump src/lib.rs --stage io           # the fetch sites and the fewest call rounds per source
//! ohua dump src/lib.rs --algorithm word_freq --stage dot > g.dot
//! ohua view target/view/word_freq.json      # serve a saved run's view (OHUA_VIEW_SAVE=<dir>)
//! ```

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "ohua", version, about = "Inspect Ohua algorithms: every compiler stage, the dataflow graph as DOT")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print compiler stages of the `#[algorithm]` functions in a Rust file.
    Dump {
        /// The Rust source file.
        file: std::path::PathBuf,
        /// Stage to print: ast, ir, graph, dot, io (fetch sites and call
        /// rounds), code, or all.
        #[arg(long, default_value = "all")]
        stage: String,
        /// Only this algorithm.
        #[arg(long)]
        algorithm: Option<String>,
    },
    /// Serve the live view's page for a saved run (a file that
    /// `OHUA_VIEW_SAVE=<dir>` or `RunReport::to_view_json` wrote).
    View {
        /// The saved view document (JSON).
        file: std::path::PathBuf,
        /// Where to serve it: a loopback `HOST:PORT`, or a port.
        #[arg(long, default_value = "127.0.0.1:7878")]
        addr: String,
        /// Allow an address other hosts can reach.
        #[arg(long)]
        public: bool,
        /// Stop after this many seconds (default: until interrupted).
        #[arg(long)]
        seconds: Option<u64>,
    },
    /// Start a cluster on this machine: PROGRAM N times, each with the
    /// `OHUA_CLUSTER_*` variables of one process on free loopback ports
    /// (`crates/ohua-cluster`); waits for all and fails if one fails.
    Launch {
        /// How many processes.
        #[arg(short = 'n', long, default_value_t = 2)]
        processes: usize,
        /// Give up (and stop them all) after this many seconds.
        #[arg(long, default_value_t = 3600)]
        seconds: u64,
        /// The program and its arguments, after `--`.
        #[arg(required = true, last = true)]
        command: Vec<String>,
    },
}

fn is_algorithm(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| a.path().segments.last().is_some_and(|s| s.ident == "algorithm"))
}

/// Algorithms of a file: top-level `#[algorithm] fn`s, and groups inside `#[algorithm] mod`s.
fn groups(file: &syn::File) -> Vec<Vec<syn::ItemFn>> {
    let mut out = Vec::new();
    for item in &file.items {
        match item {
            syn::Item::Fn(f) if is_algorithm(&f.attrs) => out.push(vec![f.clone()]),
            syn::Item::Mod(m) if is_algorithm(&m.attrs) => {
                let fns: Vec<syn::ItemFn> = m
                    .content
                    .iter()
                    .flat_map(|(_, items)| items)
                    .filter_map(|i| match i {
                        syn::Item::Fn(f) if is_algorithm(&f.attrs) => Some(f.clone()),
                        _ => None,
                    })
                    .collect();
                out.push(fns);
            }
            _ => {}
        }
    }
    out
}

fn main() -> Result<()> {
    match Cli::parse().command {
        Command::Dump { file, stage, algorithm } => dump(&file, &stage, algorithm),
        Command::View { file, addr, public, seconds } => view(&file, &addr, public, seconds),
        Command::Launch { processes, seconds, command } => launch(processes, seconds, &command),
    }
}

fn launch(processes: usize, seconds: u64, command: &[String]) -> Result<()> {
    if processes == 0 {
        bail!("a cluster needs at least one process (-n)");
    }
    let (program, args) = command.split_first().context("a program to start, after `--`")?;
    let mut cluster = ohua_cluster::LocalCluster::start(processes, |_| {
        let mut c = std::process::Command::new(program);
        c.args(args);
        c
    })
    .with_context(|| format!("starting {processes} processes of {program}"))?;
    let statuses = cluster.wait(std::time::Duration::from_secs(seconds))?;
    let failed: Vec<String> =
        statuses.iter().enumerate().filter(|(_, s)| !s.success()).map(|(i, s)| format!("process {i}: {s}")).collect();
    if !failed.is_empty() {
        bail!("{}", failed.join("; "));
    }
    Ok(())
}

fn view(file: &std::path::Path, addr: &str, public: bool, seconds: Option<u64>) -> Result<()> {
    let json = std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let view = ohua_view::View::from_json(&json).with_context(|| format!("reading {}", file.display()))?;
    let bind = if public { ohua_view::Bind::public(addr) } else { ohua_view::Bind::parse(addr) }?;
    let server = ohua_view::Server::start(bind, move || view.clone())?;
    println!("serving the view of {} at {}", file.display(), server.url());
    match seconds {
        Some(s) => std::thread::sleep(std::time::Duration::from_secs(s)),
        None => loop {
            std::thread::park();
        },
    }
    server.stop();
    Ok(())
}

fn dump(file: &std::path::Path, stage: &str, algorithm: Option<String>) -> Result<()> {
    let src = std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let parsed: syn::File = syn::parse_str(&src).with_context(|| format!("parsing {}", file.display()))?;
    let stages: Vec<&str> = if stage == "all" { ohua_compiler::pipeline::STAGES.to_vec() } else { vec![stage] };
    if let Some(bad) = stages.iter().find(|s| !ohua_compiler::pipeline::STAGES.contains(s)) {
        bail!("unknown stage `{bad}`; use one of {:?} or all", ohua_compiler::pipeline::STAGES);
    }
    let mut found = false;
    for group in groups(&parsed) {
        for f in &group {
            if algorithm.as_ref().is_some_and(|a| f.sig.ident != a) {
                continue;
            }
            found = true;
            let compiled = ohua_compiler::compile(f, &group).map_err(|e| {
                let at = e.span().start();
                anyhow::anyhow!("{}:{}:{}: {e}", file.display(), at.line, at.column + 1)
            })?;
            for s in &stages {
                if stages.len() > 1 {
                    println!("===== {} : {s} =====", f.sig.ident);
                }
                println!("{}", compiled.stage(s).expect("stage checked above"));
            }
        }
    }
    if !found {
        bail!(
            "no #[algorithm] function{} in {}",
            algorithm.map(|a| format!(" named `{a}`")).unwrap_or_default(),
            file.display()
        );
    }
    Ok(())
}
