//! An iterator pulled on a thread of its own, so that waiting for its next
//! item can be given up (issue 21, part 3).
//!
//! A service's stop cannot reach a thread blocked inside an iterator's
//! `next()` (a socket's lines, a `.map(..)` over a receiver): Rust has no
//! way to interrupt it. [`Pulled`] moves those calls to a helper thread and
//! hands the items over a channel, which [`Interruptible`](super::interrupt::Interruptible)
//! waits on in slices like any receiver. The helper calls `next()` only
//! when the loop asks for an item, so the iterator sees exactly the calls a
//! sequential loop makes (no read-ahead). When the service stops while the
//! helper waits, the loop ends at once and the helper is left behind: it
//! exits, dropping the iterator, when that `next()` returns. The item it
//! returns then has no loop to go to and is dropped with it.
//!
//! # Example
//!
//! ```
//! use ohua_runtime::update::interrupt::RecvTimeout;
//! use ohua_runtime::update::Pulled;
//! use std::time::Duration;
//! let pulled = Pulled::new(vec![1, 2]);
//! assert_eq!(pulled.recv_timeout(Duration::from_secs(5)), Ok(1));
//! assert_eq!(pulled.recv_timeout(Duration::from_secs(5)), Ok(2));
//! assert!(pulled.recv_timeout(Duration::from_secs(5)).is_err()); // its end
//! ```

use std::cell::Cell;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::Duration;

use super::interrupt::RecvTimeout;
use crate::sync::thread;

/// The items of an iterator, each asked for by the loop and produced by
/// `next()` on a helper thread (see the module docs).
pub struct Pulled<T> {
    /// One `()` per item the loop asks for.
    asks: Sender<()>,
    items: Receiver<T>,
    /// Whether an ask is out that no item has answered yet (a wait that
    /// timed out must not ask twice).
    asked: Cell<bool>,
}

impl<T: Send + 'static> Pulled<T> {
    /// Start the helper thread (`ohua-pulled`) for `iter`; it calls
    /// nothing until the first item is asked for.
    ///
    /// # Panics
    ///
    /// If the thread cannot be spawned. A panic inside the iterator's
    /// `next()` ends the helper; the loop then sees the end of its items.
    pub fn new<I>(iter: I) -> Self
    where
        I: IntoIterator<Item = T>,
        I::IntoIter: Send + 'static,
    {
        let (asks, asked_for) = mpsc::channel::<()>();
        let (give, items) = mpsc::channel();
        let mut iter = iter.into_iter();
        thread::Builder::new()
            .name("ohua-pulled".into())
            .spawn(move || {
                // Ends when the loop is gone (no more asks), when the
                // iterator ends, or when an item has no loop to go to.
                while asked_for.recv().is_ok() {
                    let Some(x) = iter.next() else { return };
                    if give.send(x).is_err() {
                        return;
                    }
                }
            })
            .expect("ohua: cannot spawn the thread of a pulled iterator");
        Pulled { asks, items, asked: Cell::new(false) }
    }
}

// `Cell` makes `Pulled` `!Sync`, which `RecvTimeout` does not need; it is
// `Send` because its channels are.
impl<T: Send> RecvTimeout for Pulled<T> {
    type Item = T;

    fn recv_timeout(&self, timeout: Duration) -> Result<T, RecvTimeoutError> {
        if !self.asked.replace(true) && self.asks.send(()).is_err() {
            return Err(RecvTimeoutError::Disconnected);
        }
        let got = self.items.recv_timeout(timeout);
        if got.is_ok() {
            self.asked.set(false);
        }
        got
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;
    use std::sync::{Arc, Mutex};

    #[test]
    fn next_is_called_only_when_an_item_is_asked_for() {
        let calls = Arc::new(Mutex::new(0));
        let counted = {
            let calls = calls.clone();
            (0..10).inspect(move |_| *calls.lock().unwrap() += 1)
        };
        let pulled = Pulled::new(counted);
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(*calls.lock().unwrap(), 0, "no read-ahead before the first ask");
        assert_eq!(pulled.recv_timeout(Duration::from_secs(5)), Ok(0));
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(*calls.lock().unwrap(), 1, "no read-ahead after an item");
    }

    #[test]
    fn a_wait_that_times_out_does_not_ask_twice() {
        let (tx, rx) = channel::<u8>();
        let pulled = Pulled::new(rx);
        for _ in 0..3 {
            assert_eq!(pulled.recv_timeout(Duration::from_millis(2)), Err(RecvTimeoutError::Timeout));
        }
        tx.send(1).unwrap();
        tx.send(2).unwrap();
        assert_eq!(pulled.recv_timeout(Duration::from_secs(5)), Ok(1));
        assert_eq!(pulled.recv_timeout(Duration::from_secs(5)), Ok(2));
        drop(tx);
        assert_eq!(pulled.recv_timeout(Duration::from_secs(5)), Err(RecvTimeoutError::Disconnected));
    }

    #[test]
    fn the_helper_exits_with_its_iterator_once_the_loop_is_gone() {
        let (tx, rx) = channel::<u8>();
        let (dropped_tx, dropped) = channel::<()>();
        struct Tell(Receiver<u8>, Sender<()>);
        impl Iterator for Tell {
            type Item = u8;
            fn next(&mut self) -> Option<u8> {
                self.0.recv().ok()
            }
        }
        impl Drop for Tell {
            fn drop(&mut self) {
                let _ = self.1.send(());
            }
        }
        let pulled = Pulled::new(Tell(rx, dropped_tx));
        assert!(pulled.recv_timeout(Duration::from_millis(2)).is_err());
        drop(pulled); // the loop stopped while the helper waits in `next()`
        assert!(dropped.recv_timeout(Duration::from_millis(50)).is_err(), "still waiting in next()");
        tx.send(9).unwrap(); // that `next()` returns: the item has nowhere to go
        assert!(dropped.recv_timeout(Duration::from_secs(5)).is_ok(), "the iterator is dropped");
    }
}
