//! Where a panicking update reports from (issue 21, part 3, item 6): user
//! code an update runs at an operator (a state transform) runs on a thread
//! named after the operator's section, `ohua-<algorithm>-s<k>`, which the
//! panic message shows. Before, it ran on the pool worker, whose name for
//! the standard library (and so in panic messages) stays `ohua-idle`, or on
//! the thread that called the algorithm (`ohua-service`).

use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};

use ohua::update::MarkError;
use ohua::Update;
use ohua_conformance::{live_deployments, within};

struct Tally(u64);

#[ohua::updatable]
impl Tally {
    fn new() -> Self {
        Tally(0)
    }
    fn add(&mut self, x: u64) {
        self.0 += x;
    }
    fn get(&self) -> u64 {
        self.0
    }
}

#[ohua::algorithm]
fn tally(xs: Receiver<u64>) -> u64 {
    let mut t = Tally::new();
    for x in xs {
        t.add(x);
    }
    t.get()
}

#[test]
fn a_panicking_transform_reports_from_a_thread_named_after_its_section() {
    for (name, d) in live_deployments() {
        let (tx, rx) = mpsc::channel();
        let service = ohua::service(move || ohua::with_deployment(d, || tally(rx)));
        tx.send(1).unwrap();
        let seen: Arc<Mutex<Vec<String>>> = Arc::default();
        let s = seen.clone();
        let update = Update::new().transform(move |_: &Tally| -> Result<Tally, String> {
            // What the panic message will name.
            let thread = std::thread::current().name().unwrap_or("<unnamed>").to_string();
            s.lock().unwrap().push(thread);
            panic!("a transform that panics on purpose")
        });
        let pending = service.request(update);
        tx.send(2).unwrap();
        let r = within(30, "the update", move || pending.wait());
        match r {
            Err(MarkError::Rejected { rejections, .. }) => {
                assert!(rejections[0].message.contains("on purpose"), "{name}: {rejections:?}")
            }
            other => panic!("{name}: {other:?}"),
        }
        let threads = seen.lock().unwrap().clone();
        assert!(!threads.is_empty(), "{name}");
        for t in &threads {
            assert!(t.starts_with("ohua-tally-s"), "{name}: the panic names thread {t}, not the section");
        }
        drop(tx);
        assert_eq!(within(30, "the service", move || service.join()), 3, "{name}: the old state stays");
    }
}
