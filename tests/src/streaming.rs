//! Generated services fed as clients feed a server: a closed loop (the next
//! request only after the reply to the last one) and a burst followed by a
//! trickle (issue 21, part 1: a loop that carries a state held each item
//! back behind a backlog that never drained).

use std::fmt::Debug;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::{deployments, within, GenRequest, GenService};

/// How long a client waits for one reply before it calls the request held
/// back (a held-back request waits for a later one, which a closed-loop
/// client never sends).
const REPLY_WAIT: Duration = Duration::from_secs(10);

/// The gap between two trickled requests: below the monitor's rescue (a
/// step blocked for a tick or two of 1 ms is handed to another thread),
/// which would otherwise drain a held-back backlog and hide it.
const TRICKLE_GAP: Duration = Duration::from_micros(600);

/// The trickle is checked where the service answers a closed-loop request
/// in at most this on average: there it answers the burst well within the
/// trickle. A slower deployment (one section per operator at opt-level 0
/// takes 1-4 ms per request on 2 cores) could fall behind by load alone.
const FAST_REPLY: Duration = Duration::from_micros(150);

/// A generated service under every deployment of [`deployments`], against
/// its plain twin `seq`:
///
/// * **closed loop**: each request is sent once the previous reply came;
///   a reply that does not come within 10 s was held back;
/// * **burst, then trickle** (in one section, where a closed-loop reply
///   takes at most 150 µs on average, [`FAST_REPLY`]; with several
///   sections on 2 cores a closed-loop reply says too little about the
///   pace of a stream: a service at 139 µs answered 9 of 16 in CI by load
///   alone): two thirds of `requests` at once,
///   then, once the first reply came, the rest one every 600 µs. A service
///   that holds items back answers one old request per arriving one, so
///   when the last request goes out most of the burst is still unanswered;
///   one that drains its backlog has answered the burst by then (all but 2
///   of it are required, for a loaded machine; at 150 µs a request the
///   burst takes about half of the trickle).
///
/// # Errors
///
/// The first difference from `seq`, a reply that did not come, or a
/// service that had not answered its burst by the end of the trickle.
pub fn check_streaming<R: PartialEq + Debug + Send + 'static>(
    svc: GenService<R>,
    seq: fn(Vec<GenRequest>) -> Vec<R>,
    requests: &[GenRequest],
) -> Result<(), String> {
    let expected = seq(requests.to_vec());
    for (name, d) in deployments() {
        let reqs = requests.to_vec();
        let d2 = d.clone();
        let closed = within(120, "a closed-loop service", move || closed_loop(svc, d2, reqs));
        let (answers, latencies) = closed.map_err(|e| format!("{name}, closed loop: {e}"))?;
        if answers != expected {
            return Err(format!("{name}, closed loop: {answers:?} != plain {expected:?}"));
        }
        // The mean, not the median: requests with long inner loops are
        // few but set the pace of a stream.
        let mean = latencies.iter().sum::<Duration>() / latencies.len().max(1) as u32;
        let one_section = matches!(d.sections, ohua::SectionStrategy::Single)
            && !matches!(d.replicas, ohua::Replication::Random { .. });
        if mean > FAST_REPLY || !one_section {
            continue;
        }
        let reqs = requests.to_vec();
        let trickled = within(120, "a trickled service", move || burst_then_trickle(svc, d, reqs));
        if trickled.answers != expected {
            return Err(format!("{name}, burst then trickle: {:?} != plain {expected:?}", trickled.answers));
        }
        if trickled.answered_at_end + 2 < trickled.burst {
            return Err(format!(
                "{name}: {} of a burst of {} answered when the last of {} trickled requests went out \
                 (closed-loop reply {mean:?} on average)\n{}",
                trickled.answered_at_end,
                trickled.burst,
                requests.len() - trickled.burst,
                trickled.report
            ));
        }
    }
    Ok(())
}

fn closed_loop<R: Send + 'static>(
    svc: GenService<R>,
    d: ohua::Deployment,
    requests: Vec<GenRequest>,
) -> Result<(Vec<R>, Vec<Duration>), String> {
    let (tx, rx) = channel();
    let (out_tx, out) = channel();
    let server = std::thread::spawn(move || ohua::with_deployment(d, || svc(rx, out_tx)));
    let mut answers = Vec::new();
    let mut latencies = Vec::new();
    for (i, r) in requests.into_iter().enumerate() {
        let sent = Instant::now();
        tx.send(r).map_err(|_| "the service stopped taking requests".to_string())?;
        match out.recv_timeout(REPLY_WAIT) {
            Ok(a) => {
                answers.push(a);
                latencies.push(sent.elapsed());
            }
            Err(RecvTimeoutError::Timeout) => return Err(format!("no reply to request {i} in {REPLY_WAIT:?}")),
            Err(RecvTimeoutError::Disconnected) => return Err(format!("the service ended at request {i}")),
        }
    }
    drop(tx);
    server.join().map_err(|_| "the service panicked".to_string())?;
    Ok((answers, latencies))
}

/// What a burst-then-trickle run saw.
struct Trickled<R> {
    answers: Vec<R>,
    burst: usize,
    /// Replies that had come when the last request went out.
    answered_at_end: usize,
    /// The run's report (sections, replicas), for a failure's message.
    report: String,
}

fn burst_then_trickle<R: Send + 'static>(
    svc: GenService<R>,
    d: ohua::Deployment,
    requests: Vec<GenRequest>,
) -> Trickled<R> {
    let (tx, rx) = channel();
    let (out_tx, out) = channel();
    let burst = requests.len() * 2 / 3;
    let answered = Arc::new(AtomicUsize::new(0));
    let seen = answered.clone();
    let feeder = std::thread::spawn(move || {
        for (i, r) in requests.into_iter().enumerate() {
            if i == burst {
                // The trickle starts once the service answered: a run's
                // set-up (a millisecond or two, more in a process's first
                // run) is not what is measured.
                while seen.load(SeqCst) == 0 {
                    std::thread::sleep(TRICKLE_GAP);
                }
            }
            if i >= burst {
                std::thread::sleep(TRICKLE_GAP);
            }
            let _ = tx.send(r);
        }
        seen.load(SeqCst)
    });
    let server = std::thread::spawn(move || ohua::profile(|| ohua::with_deployment(d, || svc(rx, out_tx))));
    let mut answers = Vec::new();
    for a in out.iter() {
        answers.push(a);
        answered.fetch_add(1, SeqCst);
    }
    let answered_at_end = feeder.join().expect("the feeding thread");
    let (_, reports) = server.join().expect("the service");
    let report = reports.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n");
    Trickled { answers, burst, answered_at_end, report }
}
