//! Which sections await an answer: a delivery wakes those, not every
//! section of the run.
//!
//! Waking every section per answer made a section that had nothing to do
//! with the answer run a pass, find nothing, and (counted as running while
//! it did) keep the section that did get work from parking without a spin
//! first: tens of microseconds per round of dependent fetches (issue 21,
//! part 5; `exec/section.rs`, `alone_in_counted_run`).
//!
//! The protocol is a Dekker pair. A poller that finds its cell empty
//! marks its section ([`Awaiting::mark`]: a `SeqCst` read-modify-write and
//! fence) and then looks at the cell again; a delivery fills its cells and
//! then takes the marks ([`Awaiting::take`]: fence, swap). Either the
//! poller's second look sees the answer, or the delivery sees the mark and
//! wakes the section. A mark nobody takes only costs a later delivery one
//! wake-up of a section that does not need it. A loom model checks the
//! pair (`loom_a_poller_sees_its_answer_or_the_delivery_wakes_it`; it
//! fails with relaxed orderings and no fences).

use crate::sync::{fence, AtomicU64, Ordering};

/// The bit that stands for "every section": a poller outside a section,
/// and sections past the 63rd share it.
const ALL: u64 = 1 << 63;

/// A set of sections, one bit each (the last bit for all of them).
#[derive(Default)]
pub(crate) struct Awaiting(AtomicU64);

/// The sections [`Awaiting::take`] found marked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Marked(u64);

impl Awaiting {
    /// Section `section` polls a cell that is empty: mark it before the
    /// caller looks at the cell once more.
    pub(crate) fn mark(&self, section: usize) {
        let bit = if section < 63 { 1 << section } else { ALL };
        // Always the read-modify-write: a plain load that saw the bit set
        // may see it before a delivery's `take` cleared it, and then a later
        // delivery would find no mark.
        self.0.fetch_or(bit, Ordering::SeqCst);
        fence(Ordering::SeqCst);
    }

    /// After filling cells: the sections marked so far, unmarked.
    pub(crate) fn take(&self) -> Marked {
        fence(Ordering::SeqCst);
        Marked(self.0.swap(0, Ordering::SeqCst))
    }
}

impl Marked {
    /// Whether section `k` was marked (or every section was).
    pub(crate) fn includes(self, k: usize) -> bool {
        self.0 & ALL != 0 || (k < 63 && self.0 & (1 << k) != 0)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::Awaiting;

    #[test]
    fn a_delivery_takes_exactly_the_marked_sections_once() {
        let a = Awaiting::default();
        a.mark(2);
        a.mark(5);
        let m = a.take();
        assert!(m.includes(2) && m.includes(5));
        assert!(!m.includes(0) && !m.includes(3) && !m.includes(62));
        assert!(!a.take().includes(2), "taken marks are gone");
    }

    #[test]
    fn a_poller_outside_a_section_and_high_sections_mark_everyone() {
        let a = Awaiting::default();
        a.mark(crate::io::run::ANY_SECTION);
        assert!((0..100).all(|k| a.take_peek().includes(k)));
        let b = Awaiting::default();
        b.mark(70);
        let m = b.take();
        assert!(m.includes(0) && m.includes(70));
    }

    impl Awaiting {
        fn take_peek(&self) -> super::Marked {
            super::Marked(self.0.load(std::sync::atomic::Ordering::Relaxed))
        }
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::Awaiting;
    use crate::sync::{AtomicBool, Ordering};
    use loom::sync::Arc;
    use loom::thread;

    /// The Dekker pair: a poller that found its cell empty marks its section
    /// and looks again; a delivery fills the cell and takes the marks.
    /// Whatever the interleaving, the poller sees the answer or the
    /// delivery sees its mark and wakes it (the cell is a `OnceLock` in the
    /// runtime: a release store and an acquire load, as here).
    #[test]
    fn loom_a_poller_sees_its_answer_or_the_delivery_wakes_it() {
        loom::model(|| {
            let awaiting = Arc::new(Awaiting::default());
            let cell = Arc::new(AtomicBool::new(false));
            let (a, c) = (awaiting.clone(), cell.clone());
            let delivery = thread::spawn(move || {
                c.store(true, Ordering::Release);
                a.take().includes(3)
            });
            // Section 3 polls, as `await` does.
            let answered = cell.load(Ordering::Acquire) || {
                awaiting.mark(3);
                cell.load(Ordering::Acquire)
            };
            let woken = delivery.join().unwrap();
            assert!(answered || woken, "the poller parks and nobody wakes it");
        });
    }
}
