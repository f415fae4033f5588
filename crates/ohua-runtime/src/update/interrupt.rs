//! Receivers whose wait a service's stop interrupts.
//!
//! A service's loop checks the stop request between two items, but while
//! its source waits inside `next()` (a server whose clients went quiet)
//! nothing reaches it: a plain `Receiver`'s `recv` cannot be interrupted.
//! When an algorithm's parameter is a receiver that implements
//! [`RecvTimeout`] (`std::sync::mpsc::Receiver` does) and it is the source
//! of a top-level `for` loop, the generated code hands the loop an
//! [`Interruptible`] instead: in a service's run it waits in slices of
//! [`TICK`] and ends the stream once the service stops, so a stop does not
//! need another item. Outside a service it is the receiver's own blocking
//! receive.
//!
//! The choice is made at compile time, on the parameter's declared type,
//! by autoref specialisation ([`Candidate`]): [`ViaRecvTimeout`] applies to
//! a receiver, [`ViaValue`] (one reference further) to every other type,
//! which passes through unchanged.
//!
//! # Example
//!
//! ```
//! use ohua_runtime::update::interrupt::{Candidate, ViaRecvTimeout, ViaValue};
//! let (tx, rx) = std::sync::mpsc::channel::<u64>();
//! tx.send(7).unwrap();
//! drop(tx);
//! // A receiver becomes an `Interruptible` (no service: a plain receive).
//! let items: Vec<u64> = (&Candidate::new(rx)).source(None).collect();
//! assert_eq!(items, [7]);
//! // Any other value passes through.
//! let v: Vec<u64> = (&Candidate::new(vec![1, 2])).source(None);
//! assert_eq!(v, [1, 2]);
//! ```

use std::cell::Cell;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::time::Duration;

use super::Control;

/// How long one wait of an [`Interruptible`] in a service lasts: a stop
/// takes effect within it, and an idle service wakes once per tick.
pub const TICK: Duration = Duration::from_millis(10);

/// A receiver that waits with a timeout. `std::sync::mpsc::Receiver`
/// implements it; implement it for another channel (map its errors to
/// std's) to make a service over it stoppable while idle.
///
/// # Example
///
/// ```
/// use ohua_runtime::update::interrupt::RecvTimeout;
/// use std::sync::mpsc::{channel, RecvTimeoutError};
/// use std::time::Duration;
/// let (tx, rx) = channel::<u8>();
/// assert_eq!(RecvTimeout::recv_timeout(&rx, Duration::from_millis(1)), Err(RecvTimeoutError::Timeout));
/// tx.send(1).unwrap();
/// assert_eq!(RecvTimeout::recv_timeout(&rx, Duration::from_millis(1)), Ok(1));
/// ```
pub trait RecvTimeout: Send {
    /// What it receives.
    type Item;
    /// Wait up to `timeout` for the next item.
    ///
    /// # Errors
    ///
    /// `Timeout` if none came, `Disconnected` if none will.
    fn recv_timeout(&self, timeout: Duration) -> Result<Self::Item, RecvTimeoutError>;
}

impl<T: Send> RecvTimeout for mpsc::Receiver<T> {
    type Item = T;
    fn recv_timeout(&self, timeout: Duration) -> Result<T, RecvTimeoutError> {
        mpsc::Receiver::recv_timeout(self, timeout)
    }
}

/// The items of a receiver until its senders are gone or, in a service's
/// run, until the service stops (see the module docs).
/// The facade's `ohua::stoppable` is one too, with its own tick.
pub struct Interruptible<R> {
    rx: R,
    control: Option<Arc<Control>>,
    tick: Duration,
}

impl<R: RecvTimeout> Interruptible<R> {
    /// The items of `rx`, ending early when `control` stops (never
    /// without one), which is checked every [`TICK`].
    pub fn new(rx: R, control: Option<Arc<Control>>) -> Self {
        Interruptible { rx, control, tick: TICK }
    }

    /// Check for a stop every `tick` instead of every [`TICK`].
    pub fn with_tick(mut self, tick: Duration) -> Self {
        self.tick = tick;
        self
    }
}

/// Longer than any wait outside a service needs to be sliced: std's
/// receivers block without a deadline when it overflows.
const FOREVER: Duration = Duration::from_secs(u64::MAX / 4);

impl<R: RecvTimeout> Iterator for Interruptible<R> {
    type Item = R::Item;

    fn next(&mut self) -> Option<R::Item> {
        let tick = if self.control.is_some() { self.tick } else { FOREVER };
        loop {
            if self.control.as_ref().is_some_and(|c| c.stopping()) {
                return None;
            }
            match self.rx.recv_timeout(tick) {
                Ok(x) => return Some(x),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return None,
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, None)
    }
}

/// A parameter on its way to a top-level loop: [`ViaRecvTimeout`] or
/// [`ViaValue`] decides what the loop gets (autoref specialisation: the
/// first applies to `&Candidate<R>` when `R` is a receiver, the second to
/// `&&Candidate<T>` for any `T`).
pub struct Candidate<T>(Cell<Option<T>>);

impl<T> Candidate<T> {
    /// The parameter's value.
    pub fn new(value: T) -> Self {
        Candidate(Cell::new(Some(value)))
    }

    fn take(&self) -> T {
        self.0.take().expect("ohua internal error: a loop's source taken twice")
    }
}

/// A receiver: the loop gets an [`Interruptible`].
pub trait ViaRecvTimeout {
    /// What the loop iterates.
    type Source;
    /// Take the value for the loop; `control` is the service's, if any.
    fn source(&self, control: Option<&Arc<Control>>) -> Self::Source;
}

impl<R: RecvTimeout + IntoIterator<Item = <R as RecvTimeout>::Item>> ViaRecvTimeout for Candidate<R> {
    type Source = Interruptible<R>;
    fn source(&self, control: Option<&Arc<Control>>) -> Interruptible<R> {
        Interruptible::new(self.take(), control.cloned())
    }
}

/// Any other value: the loop gets it unchanged.
pub trait ViaValue {
    /// What the loop iterates.
    type Source;
    /// Take the value for the loop.
    fn source(&self, control: Option<&Arc<Control>>) -> Self::Source;
}

impl<T> ViaValue for &Candidate<T> {
    type Source = T;
    fn source(&self, _: Option<&Arc<Control>>) -> T {
        self.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stopped_service_ends_the_wait_without_an_item() {
        let (tx, rx) = mpsc::channel::<u64>();
        let control = Control::new();
        let mut it = Interruptible::new(rx, Some(control.clone()));
        tx.send(1).unwrap();
        assert_eq!(it.next(), Some(1));
        let stopper = std::thread::spawn({
            let control = control.clone();
            move || {
                std::thread::sleep(Duration::from_millis(30));
                control.stop();
            }
        });
        assert_eq!(it.next(), None, "the stop ends the wait while the sender is still open");
        stopper.join().unwrap();
        drop(tx);
    }

    #[test]
    fn without_a_service_it_is_the_receivers_own_stream() {
        let (tx, rx) = mpsc::channel::<u64>();
        let it = Interruptible::new(rx, None);
        let h = std::thread::spawn(move || it.collect::<Vec<_>>());
        for i in 0..3 {
            tx.send(i).unwrap();
            std::thread::sleep(Duration::from_millis(2));
        }
        drop(tx);
        assert_eq!(h.join().unwrap(), [0, 1, 2]);
    }
}
