//! A source that lets [`Service::stop`](crate::Service::stop) end an idle
//! service.
//!
//! A service's loop checks the stop request between two items; while its
//! source waits inside `next()` (a server whose clients went quiet) nothing
//! reaches it unless the runtime knows the source: a loop over a receiver
//! parameter (`for x in rx`) waits in slices by itself (the runtime's
//! `update/interrupt.rs`). For a receiver that is not the parameter itself
//! (a field, a value built inside the closure), [`stoppable`] wraps it so
//! that its `next()` waits in short slices ([`Stoppable::tick`], 10 ms by
//! default) and ends the stream once the service is stopping. For an
//! iterator of your own whose `next()` blocks (a socket's lines, a
//! `.map(..)` over a receiver), [`stoppable_iter`] calls `next()` on a
//! thread of its own, so that the loop can stop waiting for it.

use std::cell::RefCell;
use std::sync::Arc;
use std::time::Duration;

use ohua_runtime::update::interrupt::Interruptible;
use ohua_runtime::update::{Control, Pulled};

thread_local! {
    /// The control of the service whose call runs on this thread.
    static SERVICE: RefCell<Option<Arc<Control>>> = const { RefCell::new(None) };
}

/// Run `f` as the call of the service `control` belongs to.
pub(crate) fn as_service<R>(control: Arc<Control>, f: impl FnOnce() -> R) -> R {
    SERVICE.with(|s| *s.borrow_mut() = Some(control));
    f()
}

pub use ohua_runtime::update::interrupt::RecvTimeout;

/// The items of `rx` until its senders are gone or the service that
/// created it is stopped, whichever comes first (see the module docs).
/// Create it inside the closure given to [`crate::service`] (elsewhere it
/// only ends with `rx`).
///
/// # Example
///
/// ```
/// #[ohua::algorithm]
/// fn count(xs: ohua::Stoppable<std::sync::mpsc::Receiver<u64>>) -> u64 {
///     let mut n = 0;
///     for x in xs {
///         n += x;
///     }
///     n
/// }
/// let (tx, rx) = std::sync::mpsc::channel();
/// let service = ohua::service(move || count(ohua::stoppable(rx)));
/// // `tx` stays open and nothing comes, yet the service stops.
/// service.stop();
/// assert_eq!(service.join(), 0);
/// drop(tx);
/// ```
pub fn stoppable<R: RecvTimeout>(rx: R) -> Stoppable<R> {
    let control = SERVICE.with(|s| s.borrow().clone());
    Stoppable(Interruptible::new(rx, control))
}

/// The items of `iter`, until it ends or the service that created it is
/// stopped, even while `iter.next()` blocks. Create it inside the closure
/// given to [`crate::service`].
///
/// Each `next()` of `iter` runs on a helper thread (`ohua-pulled`), called
/// only when the loop asks for its next item: `iter` sees the calls a
/// sequential loop makes, no read-ahead. A stop ends the loop's wait at
/// once; a `next()` still running then is left to finish on the helper
/// thread, which drops what it returns and `iter` with it. So an item your
/// iterator produces after the stop is not processed: send through a
/// channel and use [`stoppable`] where such an item must go elsewhere.
///
/// # Example
///
/// ```
/// use std::sync::mpsc::{channel, Receiver};
/// /// An iterator the runtime knows nothing of; its `next()` blocks.
/// struct Doubled(Receiver<u64>);
/// impl Iterator for Doubled {
///     type Item = u64;
///     fn next(&mut self) -> Option<u64> {
///         self.0.recv().ok().map(|x| 2 * x)
///     }
/// }
/// #[ohua::algorithm]
/// fn total(xs: ohua::update::Stoppable<ohua::update::Pulled<u64>>) -> u64 {
///     let mut n = 0;
///     for x in xs {
///         n += x;
///     }
///     n
/// }
/// let (tx, rx) = channel();
/// let service = ohua::service(move || total(ohua::stoppable_iter(Doubled(rx))));
/// tx.send(4).unwrap();
/// // `tx` stays open and `Doubled::next` blocks, yet the service stops
/// // (with or without the item sent, depending on when the stop came).
/// service.stop();
/// assert!([0, 8].contains(&service.join()));
/// drop(tx);
/// ```
///
/// # Panics
///
/// If the helper thread cannot be spawned.
pub fn stoppable_iter<I>(iter: I) -> Stoppable<Pulled<I::Item>>
where
    I: IntoIterator,
    I::IntoIter: Send + 'static,
    I::Item: Send + 'static,
{
    stoppable(Pulled::new(iter))
}

/// The iterator [`stoppable`] returns: the runtime's `Interruptible`, the
/// same one a loop over a receiver parameter gets.
pub struct Stoppable<R>(Interruptible<R>);

impl<R: RecvTimeout> Stoppable<R> {
    /// How long one wait lasts: a stop takes effect within it (10 ms by
    /// default; an idle service wakes up once per tick).
    pub fn tick(self, tick: Duration) -> Self {
        Stoppable(self.0.with_tick(tick))
    }
}

impl<R: RecvTimeout> Iterator for Stoppable<R> {
    type Item = R::Item;

    fn next(&mut self) -> Option<R::Item> {
        self.0.next()
    }
}
