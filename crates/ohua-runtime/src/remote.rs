//! Lanes to replicas in other processes: what the runtime asks of a
//! cluster (issue 25), and the hook a cluster crate fills.
//!
//! The runtime never talks to the network. A crate that connects
//! processes (`ohua-cluster`, on timely-dataflow) implements
//! [`RemoteLanes`] and installs it once per process ([`install`]); the
//! runtime then gives a `#[ohua::algorithm(cluster)]` algorithm's
//! replicable calls a lane whose items are served by the other processes
//! when the deployment says `lanes = "cluster"`.
//!
//! Every process runs the same program and calls the same algorithms in
//! the same order. Process 0 (the *caller*) runs the algorithm; in the
//! others the call builds the same graph, serves the stages its calls
//! open, and returns the caller's result ([`RemoteLanes::share_result`]).
//! Stages are opened in the graph's order, one per distributable call,
//! whatever the plan, so every process opens the same ones.

use std::sync::Weak;

use crate::sync::process::{Arc, Mutex, RwLock};

/// A function from an item's bytes to its result's bytes: a distributable
/// call's statement between its codecs, borrowing what lives for `'a`.
/// Several workers of a process may call it at once.
pub type ServeFnFor<'a> = Box<dyn Fn(&[u8]) -> Vec<u8> + Send + Sync + 'a>;

/// [`ServeFnFor`] as other threads hold it ([`Served`]).
pub type ServeFn = ServeFnFor<'static>;

/// A statement that other threads may call while a run lives, and that
/// the run takes back before it ends ([`Served::revoke`]): the statement
/// may borrow what the run borrows, so no call may reach it afterwards.
/// Calls run under a read lock, so a process's workers serve it at once;
/// the revocation takes the write lock.
#[derive(Clone)]
pub struct Served(Arc<RwLock<Option<ServeFn>>>);

impl Served {
    /// Serve `f` until [`Served::revoke`].
    ///
    /// # Safety
    ///
    /// `f` may borrow data that lives only as long as `'a`: the caller
    /// must call [`Served::revoke`] before `'a` ends. After that, no call
    /// reaches `f` (every call holds the read lock while it runs `f`, and
    /// the revocation takes the write lock).
    pub unsafe fn new(f: ServeFnFor<'_>) -> Self {
        // SAFETY: the caller revokes before `'a` ends; `call` runs `f`
        // only under the read lock, and `revoke` drops it under the write
        // lock, after every running call.
        let f: ServeFn = unsafe { std::mem::transmute(f) };
        Served(Arc::new(RwLock::new(Some(f))))
    }

    /// Run the statement on `bytes`.
    ///
    /// # Panics
    ///
    /// If the statement panics, or was revoked (the run ended: the cluster
    /// served an item after its caller closed the stage).
    pub fn call(&self, bytes: &[u8]) -> Vec<u8> {
        let f = self.0.read().unwrap_or_else(|e| e.into_inner());
        let f = f.as_ref().expect("ohua: a remote lane served an item after its run ended");
        f(bytes)
    }

    /// No call reaches the statement from now on; calls running now
    /// finish first.
    pub fn revoke(&self) {
        let f = self.0.write().unwrap_or_else(|e| e.into_inner()).take();
        drop(f);
    }
}

/// The caller's end of one stage: items out, results back in order.
pub trait RemoteStage: Send {
    /// Send one item's bytes to be served.
    fn send(&mut self, item: Vec<u8>);
    /// The next result, in the order the items were sent, if it came; an
    /// `Err` names what failed (a process that died or went silent).
    fn try_recv(&mut self) -> Option<Result<Vec<u8>, String>>;
    /// No more items: the stage ends once every result came back.
    fn close(&mut self);
}

/// A cluster of processes that serve distributable calls.
pub trait RemoteLanes: Send + Sync {
    /// Whether this process is the caller (index 0).
    fn is_caller(&self) -> bool;
    /// How many processes the cluster has.
    fn processes(&self) -> usize;
    /// Open the next stage: every process opens the same stages in the
    /// same order, each with its own copy of the statement in `serve`. On
    /// the caller, `wake` is called when a result arrives, and the stage's
    /// caller end is returned; elsewhere `None`, and the stage ends when
    /// the caller closes it.
    ///
    /// # Errors
    ///
    /// What failed, if the cluster has already failed.
    fn open(&self, serve: Served, wake: Box<dyn Fn() + Send + Sync>) -> Result<Option<Box<dyn RemoteStage>>, String>;
    /// Wait until every stage this process opened has ended.
    ///
    /// # Errors
    ///
    /// What failed, naming the process.
    fn wait_stages(&self) -> Result<(), String>;
    /// The run's result: the caller passes its bytes and gets them back;
    /// the others pass `None` and get the caller's.
    ///
    /// # Errors
    ///
    /// What failed, naming the process.
    fn share_result(&self, result: Option<Vec<u8>>) -> Result<Vec<u8>, String>;
}

/// The installed cluster, held weakly: whoever installed it owns it, and
/// dropping it (at the end of `main`) closes the cluster cleanly.
static INSTALLED: Mutex<Option<Weak<dyn RemoteLanes>>> = Mutex::new(None);

/// Make `lanes` this process's cluster, for every later run whose
/// deployment says `lanes = "cluster"`, as long as the caller keeps it.
///
/// # Errors
///
/// If another cluster is installed and still alive.
pub fn install(lanes: &Arc<dyn RemoteLanes>) -> Result<(), AlreadyInstalled> {
    let mut installed = INSTALLED.lock().unwrap_or_else(|e| e.into_inner());
    if installed.as_ref().and_then(Weak::upgrade).is_some() {
        return Err(AlreadyInstalled);
    }
    *installed = Some(Arc::downgrade(lanes));
    Ok(())
}

/// This process's cluster, if one is installed and alive.
pub fn installed() -> Option<Arc<dyn RemoteLanes>> {
    INSTALLED.lock().unwrap_or_else(|e| e.into_inner()).as_ref().and_then(Weak::upgrade)
}

/// [`install`] found another cluster alive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("this process has joined a cluster already")]
pub struct AlreadyInstalled;

#[cfg(test)]
mod tests {
    use super::Served;

    /// Two workers call a statement at once: each call waits, inside the
    /// statement, for the other to be inside too (with one call at a time,
    /// as behind a mutex, both would wait forever; the barrier's timeout
    /// fails the test instead).
    #[test]
    fn two_workers_serve_a_statement_at_once() {
        let inside = std::sync::Arc::new((std::sync::Mutex::new(0usize), std::sync::Condvar::new()));
        let met = {
            let inside = std::sync::Arc::clone(&inside);
            move |b: &[u8]| {
                let (count, cv) = &*inside;
                let mut n = count.lock().unwrap();
                *n += 1;
                cv.notify_all();
                let (n, timeout) = cv.wait_timeout_while(n, std::time::Duration::from_secs(10), |n| *n < 2).unwrap();
                vec![b[0], u8::from(!timeout.timed_out() && *n >= 2)]
            }
        };
        let served = unsafe { Served::new(Box::new(met)) };
        let calls: Vec<_> = (0..2u8)
            .map(|i| {
                let served = served.clone();
                std::thread::spawn(move || served.call(&[i]))
            })
            .collect();
        let results: Vec<Vec<u8>> = calls.into_iter().map(|c| c.join().unwrap()).collect();
        assert_eq!(results, vec![vec![0, 1], vec![1, 1]], "both calls were inside the statement at once");
        served.revoke();
    }

    /// A revoked statement is dropped, and a borrowed value with it.
    #[test]
    fn a_served_statement_runs_until_revoked() {
        let offset = vec![10u8];
        let served = unsafe { Served::new(Box::new(|b: &[u8]| vec![b[0] + offset[0]])) };
        assert_eq!(served.call(&[1]), vec![11]);
        served.revoke();
        let late = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| served.call(&[1])));
        assert!(late.is_err());
        drop(offset);
    }
}
