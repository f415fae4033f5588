//! Reading the data inputs of an operator in lock-step.
//!
//! All data inputs of an operator are streams of the operator's own context,
//! so they carry one packet per activation and identical markers. The tuple
//! impls below pop one packet from each input at a time.

use crate::arc::ReadCursor;
use crate::packet::{Level, Mark, Packet};
use crate::port::In;

/// What the heads of all data inputs show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Head {
    /// Every input has a data packet.
    Data,
    /// Every input has the same end marker.
    End(Level),
    /// Every input has the same control marker.
    Mark(Mark),
    /// Some input has nothing yet.
    Empty,
    /// Every input is closed.
    Closed,
}

/// Classify one input's head.
#[inline(always)]
pub(crate) fn head_of<T>(input: &In<T>) -> Head {
    match input.peek() {
        Some(Packet::Data(_)) => Head::Data,
        Some(Packet::End(l)) => Head::End(*l),
        Some(Packet::Mark(m)) => Head::Mark(*m),
        None if input.is_closed() => Head::Closed,
        None => Head::Empty,
    }
}

/// Combine the heads of two inputs of the same context.
///
/// # Panics
///
/// Panics if the inputs disagree (one has data where another has a marker):
/// that is a compiler bug, never a user error.
#[inline]
pub(crate) fn combine(a: Head, b: Head) -> Head {
    match (a, b) {
        (Head::Empty, _) | (_, Head::Empty) => Head::Empty,
        (x, y) if x == y => x,
        // One input already closed while another still has packets: the
        // other is behind, not inconsistent, only if it is empty (handled
        // above). Anything else breaks the stream invariant.
        (x, y) => panic!("ohua internal error: operator inputs out of step ({x:?} vs {y:?})"),
    }
}

/// The read positions of all data inputs, lent for one run of firings in
/// which every input is known to hold a packet per firing.
pub trait InputCursor {
    /// One value from each input.
    type Item;
    /// What the heads show: [`Head::Data`], [`Head::End`] or [`Head::Mark`].
    ///
    /// # Safety
    ///
    /// Every input holds a packet (the run is not exhausted).
    unsafe fn head(&self) -> Head;
    /// Pop one data packet from each input.
    ///
    /// # Safety
    ///
    /// `head()` returned [`Head::Data`].
    unsafe fn pop_data(&mut self) -> Self::Item;
    /// Pop one marker from each input.
    ///
    /// # Safety
    ///
    /// `head()` returned [`Head::End`] or [`Head::Mark`].
    unsafe fn pop_end(&mut self);
}

/// The data inputs of an operator: a tuple of [`In`] ports.
pub trait DataInputs: Send {
    /// One value from each input.
    type Item;
    /// The inputs' read positions for one run (see [`InputCursor`]).
    type Cursor<'a>: InputCursor<Item = Self::Item>
    where
        Self: 'a;
    /// Lend the read positions for a run of at most [`DataInputs::available`] firings.
    fn cursor(&mut self) -> Self::Cursor<'_>;
    /// What the inputs show right now.
    fn head(&self) -> Head;
    /// Packets (data or markers) that every input holds right now.
    fn available(&self) -> usize;
    /// Pop one data packet from each input. Call only after `head() == Head::Data`.
    fn pop_data(&mut self) -> Self::Item;
    /// Pop one marker from each input. Call only after `head()` showed
    /// [`Head::End`] or [`Head::Mark`].
    fn pop_end(&mut self);
    /// How many inputs there are (arcs a marker is taken from).
    fn count(&self) -> usize;
    /// Wake producers.
    fn flush(&mut self);
    /// Each input's head, for diagnostics.
    fn describe(&self) -> Vec<String>;
}

/// Classify a head known to hold a packet.
#[inline(always)]
fn packet_head<T>(p: &Packet<T>) -> Head {
    match p {
        Packet::Data(_) => Head::Data,
        Packet::End(l) => Head::End(*l),
        Packet::Mark(m) => Head::Mark(*m),
    }
}

#[inline(always)]
fn data_of<T>(p: Packet<T>) -> T {
    match p {
        Packet::Data(v) => v,
        Packet::End(_) | Packet::Mark(_) => unreachable!("pop_data called without data at every head"),
    }
}

#[inline]
fn data<T>(p: Option<Packet<T>>) -> T {
    match p {
        Some(Packet::Data(v)) => v,
        _ => unreachable!("pop_data called without data at every head"),
    }
}

macro_rules! impl_data_inputs {
    ($first:ident $(, $rest:ident)*) => {
        #[allow(non_snake_case)]
        impl<'a, $first, $($rest),*> InputCursor for (ReadCursor<'a, Packet<$first>>, $(ReadCursor<'a, Packet<$rest>>,)*) {
            type Item = ($first, $($rest,)*);
            #[inline(always)]
            unsafe fn head(&self) -> Head {
                let ($first, $($rest,)*) = self;
                let h = packet_head($first.peek());
                $(let h = combine(h, packet_head($rest.peek()));)*
                h
            }
            #[inline(always)]
            unsafe fn pop_data(&mut self) -> Self::Item {
                let ($first, $($rest,)*) = self;
                (data_of($first.pop()), $(data_of($rest.pop()),)*)
            }
            #[inline]
            unsafe fn pop_end(&mut self) {
                let ($first, $($rest,)*) = self;
                $first.pop();
                $($rest.pop();)*
            }
        }

        #[allow(non_snake_case)]
        impl<$first: Send, $($rest: Send),*> DataInputs for (In<$first>, $(In<$rest>,)*) {
            type Item = ($first, $($rest,)*);
            type Cursor<'a> = (ReadCursor<'a, Packet<$first>>, $(ReadCursor<'a, Packet<$rest>>,)*) where Self: 'a;
            #[inline(always)]
            fn cursor(&mut self) -> Self::Cursor<'_> {
                let ($first, $($rest,)*) = self;
                ($first.cursor(), $($rest.cursor(),)*)
            }
            #[inline(always)]
            fn head(&self) -> Head {
                let ($first, $($rest,)*) = self;
                let h = head_of($first);
                $(let h = combine(h, head_of($rest));)*
                h
            }
            #[inline(always)]
            fn available(&self) -> usize {
                let ($first, $($rest,)*) = self;
                let n = $first.available();
                $(let n = n.min($rest.available());)*
                n
            }
            #[inline(always)]
            fn pop_data(&mut self) -> Self::Item {
                let ($first, $($rest,)*) = self;
                (data($first.pop()), $(data($rest.pop()),)*)
            }
            #[inline]
            fn pop_end(&mut self) {
                let ($first, $($rest,)*) = self;
                $first.pop();
                $($rest.pop();)*
            }
            fn count(&self) -> usize {
                [stringify!($first) $(, stringify!($rest))*].len()
            }
            fn flush(&mut self) {
                let ($first, $($rest,)*) = self;
                $first.flush();
                $($rest.flush();)*
            }
            fn describe(&self) -> Vec<String> {
                let ($first, $($rest,)*) = self;
                vec![$first.describe(), $($rest.describe(),)*]
            }
        }
    };
}

impl_data_inputs!(A);
impl_data_inputs!(A, B);
impl_data_inputs!(A, B, C);
impl_data_inputs!(A, B, C, D);
impl_data_inputs!(A, B, C, D, E);
impl_data_inputs!(A, B, C, D, E, F);
impl_data_inputs!(A, B, C, D, E, F, G);
impl_data_inputs!(A, B, C, D, E, F, G, H);
impl_data_inputs!(A, B, C, D, E, F, G, H, I);
impl_data_inputs!(A, B, C, D, E, F, G, H, I, J);
impl_data_inputs!(A, B, C, D, E, F, G, H, I, J, K);
impl_data_inputs!(A, B, C, D, E, F, G, H, I, J, K, L);
impl_data_inputs!(A, B, C, D, E, F, G, H, I, J, K, L, M);
impl_data_inputs!(A, B, C, D, E, F, G, H, I, J, K, L, M, N);
impl_data_inputs!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O);
impl_data_inputs!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P);
