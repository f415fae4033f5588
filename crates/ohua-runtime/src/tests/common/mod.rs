//! Test-only operators, graphs and helpers shared by the tests of this
//! folder.

pub mod graphs;
pub mod nodes;

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::mpsc;
use std::time::Duration;

/// Run `f` on its own thread and fail if it does not finish in `secs`
/// seconds: a hang becomes a test failure instead of a stuck test run.
pub fn watchdog<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    let h = std::thread::spawn(move || {
        let r = catch_unwind(AssertUnwindSafe(f));
        let _ = tx.send(());
        r
    });
    match rx.recv_timeout(Duration::from_secs(secs)) {
        Ok(()) => match h.join().expect("watchdog thread") {
            Ok(v) => v,
            Err(p) => resume_unwind(p),
        },
        Err(_) => panic!("watchdog: not finished within {secs} s (hang?)"),
    }
}

/// The message of a caught panic payload.
pub fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else {
        "<non-string panic>".to_string()
    }
}

/// Run `f`, expecting it to panic; return the panic message.
pub fn expect_panic<R>(f: impl FnOnce() -> R) -> String {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(_) => panic!("expected a panic"),
        Err(p) => panic_text(&*p),
    }
}

/// Names of this process's live threads (Linux: truncated to 15 bytes).
pub fn thread_names() -> Vec<String> {
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else { return Vec::new() };
    dir.filter_map(|e| e.ok())
        .filter_map(|e| std::fs::read_to_string(e.path().join("comm")).ok())
        .map(|s| s.trim_end().to_string())
        .collect()
}
