//! Writing all outputs of an operator at once.

use crate::packet::{Level, Mark};
use crate::port::{Out, OutCursor};

/// The write positions of all outputs, lent for one run of firings for which
/// every output has room.
pub trait OutputCursor {
    /// One value for each output.
    type Item;
    /// Send one value on each output.
    ///
    /// # Safety
    ///
    /// Every output had room for this packet when the run was sized.
    unsafe fn send(&mut self, item: Self::Item);
    /// Send a marker on each output.
    ///
    /// # Safety
    ///
    /// As for [`OutputCursor::send`].
    unsafe fn send_end(&mut self, level: Level);
}

impl OutputCursor for () {
    type Item = ();
    #[inline(always)]
    unsafe fn send(&mut self, _: ()) {}
    #[inline(always)]
    unsafe fn send_end(&mut self, _: Level) {}
}

/// The outputs of an operator: a tuple of [`Out`] ports (possibly empty).
pub trait OutputSet: Send {
    /// One value for each output.
    type Item;
    /// The outputs' write positions for one run (see [`OutputCursor`]).
    type Cursor<'a>: OutputCursor<Item = Self::Item>
    where
        Self: 'a;
    /// Lend the write positions for a run of at most [`OutputSet::room`]
    /// firings, or `None` if some output needs the general path (fan-out,
    /// or a consumer that is gone).
    fn cursor(&mut self) -> Option<Self::Cursor<'_>>;
    /// Packets every output can take right now.
    fn room(&mut self) -> usize;
    /// Whether an output's arc into another section is full
    /// ([`Out::full_into_another_section`]).
    fn full_into_another_section(&mut self) -> bool;
    /// Send one value on each output.
    fn send(&mut self, item: Self::Item);
    /// Send a marker on each output.
    fn send_end(&mut self, level: Level);
    /// Send a control marker on each output; returns the arcs it went into.
    fn send_mark(&mut self, mark: Mark) -> usize;
    /// Wake consumers.
    fn flush(&mut self);
    /// Each output's room, for diagnostics.
    fn describe(&self) -> Vec<String>;
}

impl OutputSet for () {
    type Item = ();
    type Cursor<'a> = ();
    #[inline(always)]
    fn cursor(&mut self) -> Option<()> {
        Some(())
    }
    #[inline]
    fn room(&mut self) -> usize {
        usize::MAX
    }
    fn full_into_another_section(&mut self) -> bool {
        false
    }
    #[inline]
    fn send(&mut self, _: ()) {}
    #[inline]
    fn send_end(&mut self, _: Level) {}
    fn send_mark(&mut self, _: Mark) -> usize {
        0
    }
    fn flush(&mut self) {}
    fn describe(&self) -> Vec<String> {
        Vec::new()
    }
}

macro_rules! impl_outputs {
    ($($name:ident $idx:tt),+) => {
        impl<'a, $($name),+> OutputCursor for ($(OutCursor<'a, $name>,)+) {
            type Item = ($($name,)+);
            #[inline(always)]
            unsafe fn send(&mut self, item: Self::Item) {
                $(self.$idx.send(item.$idx);)+
            }
            #[inline]
            unsafe fn send_end(&mut self, level: Level) {
                $(self.$idx.send_end(level);)+
            }
        }

        #[allow(non_snake_case)]
        impl<$($name: Send),+> OutputSet for ($(Out<$name>,)+) {
            type Item = ($($name,)+);
            type Cursor<'a> = ($(OutCursor<'a, $name>,)+) where Self: 'a;
            #[inline(always)]
            fn cursor(&mut self) -> Option<Self::Cursor<'_>> {
                Some(($(self.$idx.cursor()?,)+))
            }
            #[inline]
            fn room(&mut self) -> usize {
                let mut r = usize::MAX;
                $(r = r.min(self.$idx.room());)+
                r
            }
            fn full_into_another_section(&mut self) -> bool {
                false $(|| self.$idx.full_into_another_section())+
            }
            #[inline(always)]
            fn send(&mut self, item: Self::Item) {
                $(self.$idx.send(item.$idx);)+
            }
            #[inline]
            fn send_end(&mut self, level: Level) {
                $(self.$idx.send_end(level);)+
            }
            fn send_mark(&mut self, mark: Mark) -> usize {
                0 $(+ self.$idx.send_mark(mark))+
            }
            fn flush(&mut self) {
                $(self.$idx.flush();)+
            }
            fn describe(&self) -> Vec<String> {
                vec![$(self.$idx.describe()),+]
            }
        }
    };
}

impl_outputs!(A 0);
impl_outputs!(A 0, B 1);
impl_outputs!(A 0, B 1, C 2);
impl_outputs!(A 0, B 1, C 2, D 3);
impl_outputs!(A 0, B 1, C 2, D 3, E 4);
impl_outputs!(A 0, B 1, C 2, D 3, E 4, F 5);
impl_outputs!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
impl_outputs!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
impl_outputs!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
impl_outputs!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
impl_outputs!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
impl_outputs!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);
impl_outputs!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12);
impl_outputs!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13);
impl_outputs!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13, O 14);
impl_outputs!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13, O 14, P 15);
