//! The live view (`OHUA_VIEW`, README "Live view") on a running process: a
//! service classifies a stream of requests and counts them per class while
//! the main thread calls a batch algorithm over and over; after
//! `--update-after` seconds the service's classifier is replaced live. Open
//! the printed address to watch the graphs, the calls' throughput and
//! latency, and the update on the time axis.
//!
//! ```text
//! cargo run --release -p ohua-examples --bin live_view -- --view 127.0.0.1:7878 --seconds 60
//! ```
//!
//! At the end it checks what ran against sequential execution: the
//! service's replies against the same requests classified in order (the
//! old classifier before the update's cut, the new one after), the batch
//! results against the plain function. Exit status 1 if either differs.

use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Parser;

#[derive(Parser)]
#[command(about = "A service and a batch algorithm, watched through the live view")]
struct Args {
    /// Where to serve the view (loopback `HOST:PORT` or a port).
    #[arg(long, default_value = "127.0.0.1:7878")]
    view: String,
    /// How long to run.
    #[arg(long, default_value_t = 30)]
    seconds: u64,
    /// When to replace the service's classifier, in seconds.
    #[arg(long, default_value_t = 3)]
    update_after: u64,
    /// Requests per second the service gets.
    #[arg(long, default_value_t = 2000)]
    rate: u64,
}

/// A request's class: its value's digit sum, folded into 8 classes.
#[ohua::updatable]
fn classify(x: u64) -> u8 {
    classify_v1(x)
}
fn classify_v1(x: u64) -> u8 {
    (digit_sum(x) % 8) as u8
}
/// The update: classes by the value itself.
fn classify_v2(x: u64) -> u8 {
    (x % 8) as u8 + 8
}
fn digit_sum(mut x: u64) -> u64 {
    let mut s = 0;
    while x > 0 {
        s += x % 10;
        x /= 10;
    }
    s
}

/// Counts per class, replying with the running count of the request's class.
#[derive(Default)]
struct Counts {
    per_class: [u64; 16],
    replies: Option<Sender<(u64, u8, u64)>>,
}

impl Counts {
    fn new(replies: Sender<(u64, u8, u64)>) -> Self {
        Counts { per_class: [0; 16], replies: Some(replies) }
    }
    fn add(&mut self, x: u64, class: u8) {
        self.per_class[class as usize] += 1;
        if let Some(r) = &self.replies {
            let _ = r.send((x, class, self.per_class[class as usize]));
        }
    }
    fn total(&self) -> u64 {
        self.per_class.iter().sum()
    }
}

#[ohua::algorithm]
fn classifier(requests: Receiver<u64>, replies: Sender<(u64, u8, u64)>) -> u64 {
    let mut counts = Counts::new(replies);
    for x in requests {
        let class = classify(x);
        counts.add(x, class);
    }
    counts.total()
}

/// The batch job: a checksum of each line's words, summed.
#[ohua::algorithm]
fn checksums(lines: Vec<String>) -> u64 {
    let mut total = Total::default();
    for line in lines {
        let h = checksum(line);
        total.add(h);
    }
    total.get()
}

/// A few microseconds of work per line: 64 rounds of a multiplicative hash.
fn checksum(line: String) -> u64 {
    (0..64u64).fold(17u64, |h, round| {
        line.split_whitespace()
            .flat_map(str::bytes)
            .fold(h ^ round, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)))
    })
}

#[derive(Default)]
struct Total(u64);
impl Total {
    fn add(&mut self, x: u64) {
        self.0 = self.0.wrapping_add(x);
    }
    fn get(&self) -> u64 {
        self.0
    }
}

fn main() -> Result<()> {
    let args = Args::parse();
    let addr = ohua::view::serve(&args.view).with_context(|| format!("serving the view on {}", args.view))?;
    println!("live view at http://{addr}/");

    let (tx, rx) = mpsc::channel::<u64>();
    let (reply_tx, replies) = mpsc::channel();
    let service = ohua::service(move || classifier(rx, reply_tx));
    let feeder = std::thread::spawn({
        let (seconds, rate) = (args.seconds, args.rate.max(1));
        move || {
            let start = Instant::now();
            let mut sent = 0u64;
            while start.elapsed() < Duration::from_secs(seconds) {
                let due = (start.elapsed().as_secs_f64() * rate as f64) as u64;
                while sent < due {
                    sent += 1;
                    if tx.send(sent * 7919 % 100_003).is_err() {
                        return sent;
                    }
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            sent
        }
    });

    let lines: Vec<String> = (0..2000).map(|i| format!("line {i} of the batch job {}", i * 31 % 97)).collect();
    let expected: u64 = lines.iter().map(|l| checksum(l.clone())).fold(0, u64::wrapping_add);
    let start = Instant::now();
    let (mut calls, mut wrong) = (0u64, 0u64);
    let mut update = None;
    while start.elapsed() < Duration::from_secs(args.seconds) {
        if update.is_none() && start.elapsed() >= Duration::from_secs(args.update_after) {
            let u = ohua::Update::new().replace(ohua::replace!(classify => classify_v2));
            update = Some(service.update(u).context("the live update")?);
            println!("updated the classifier after {:.1} s", start.elapsed().as_secs_f64());
        }
        calls += 1;
        if checksums(lines.clone()) != expected {
            wrong += 1;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let sent = feeder.join().expect("the feeder");
    let total = service.join();
    let got: Vec<(u64, u8, u64)> = replies.try_iter().collect();

    // Sequential: the same requests in order, the old classifier up to the
    // update's cut and the new one after it.
    let cut = update.as_ref().map_or(u64::MAX, |r| r.items_before());
    let mut per_class = [0u64; 16];
    let sequential: Vec<(u64, u8, u64)> = (1..=sent)
        .enumerate()
        .map(|(i, n)| {
            let x = n * 7919 % 100_003;
            let class = if (i as u64) < cut { classify_v1(x) } else { classify_v2(x) };
            per_class[class as usize] += 1;
            (x, class, per_class[class as usize])
        })
        .collect();
    println!("service: {sent} requests, {total} counted; batch: {calls} calls, {wrong} wrong");
    if got != sequential || total != sent || wrong > 0 {
        bail!("results differ from sequential execution");
    }
    println!("results equal: yes");
    Ok(())
}
