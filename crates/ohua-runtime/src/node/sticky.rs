//! Sticky inputs: values from an outer loop level that stay in the operator
//! for a whole activation of that level (see `README.md`, "Sticky inputs").

use crate::arc::Sender;
use crate::packet::{Level, Mark, Packet};
use crate::port::{In, Out};
use crate::update::StateRef;

/// A value defined at level `home`, held by an operator at a deeper level.
///
/// # Example
///
/// See the unit test `a_sticky_value_knows_its_home_level`.
pub struct Sticky<T> {
    input: In<T>,
    home: Level,
    value: Option<T>,
    release: Out<T>,
    /// A keyed call's replica: where its part goes back to the scatter at
    /// a rescaling marker (`node/keyed.rs`).
    hand_back: Option<Sender<T>>,
}

/// Whether a sticky slot can take part in a firing or a marker right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ready {
    /// Yes.
    Yes,
    /// Not yet: an input is empty or an output is full.
    Wait,
}

impl<T> Sticky<T> {
    /// A sticky slot reading `input` (a stream of level `home`), releasing the
    /// value at `End(home)` into `release` (use [`Out::none`] to drop it).
    pub fn new(input: In<T>, home: Level, release: Out<T>) -> Self {
        Sticky { input, home, value: None, release, hand_back: None }
    }

    /// A replica's part of a keyed state: at a rescaling marker inside the
    /// value's activation, the value goes back over `back` and the slot
    /// takes its next value (the new part) from its input before the next
    /// firing (`node/README.md`, "Moving key groups").
    pub(crate) fn with_hand_back(mut self, back: Sender<T>) -> Self {
        self.hand_back = Some(back);
        self
    }

    /// Ready to hand the value back at rescaling marker `m`: it is held
    /// and its way back has room (or there is nothing to hand back: no
    /// way back, or the marker is between the value's activations).
    pub(crate) fn ready_to_hand_back(&mut self, m: Mark) -> Ready {
        match &mut self.hand_back {
            Some(back) if m.level >= self.home => {
                if back.room() == 0 {
                    return Ready::Wait;
                }
                self.acquire()
            }
            _ => Ready::Yes,
        }
    }

    /// Hand the value back at rescaling marker `m`; only after
    /// [`Sticky::ready_to_hand_back`] said yes.
    pub(crate) fn hand_back(&mut self, m: Mark) {
        if let (Some(back), true) = (&mut self.hand_back, m.level >= self.home) {
            back.push(Packet::Data(self.value.take().expect("acquired by ready_to_hand_back")));
        }
    }

    /// The level this value belongs to.
    pub fn home(&self) -> Level {
        self.home
    }

    /// The input, level and release port, for an operator that hands the
    /// value to replicas instead of holding it (`node/keyed.rs`).
    pub(crate) fn into_parts(self) -> (In<T>, Level, Out<T>) {
        (self.input, self.home, self.release)
    }

    /// Make sure the value of the current activation is held.
    fn acquire(&mut self) -> Ready {
        if self.value.is_some() {
            return Ready::Yes;
        }
        match self.input.peek() {
            Some(Packet::Data(_)) => {
                if let Some(Packet::Data(v)) = self.input.pop() {
                    self.value = Some(v);
                }
                Ready::Yes
            }
            None if !self.input.is_closed() => Ready::Wait,
            other => panic!(
                "ohua internal error: sticky input (level {}) expected a value, found {}",
                self.home,
                describe(other)
            ),
        }
    }

    /// Ready for a firing: the value is held.
    #[inline]
    pub fn ready_for_data(&mut self) -> Ready {
        self.acquire()
    }

    /// Ready to process `End(level)` seen on the data inputs.
    pub fn ready_for_end(&mut self, level: Level) -> Ready {
        use std::cmp::Ordering::*;
        match level.cmp(&self.home) {
            Greater => Ready::Yes,
            Equal => {
                if self.release.room() == 0 {
                    return Ready::Wait;
                }
                self.acquire()
            }
            Less => {
                if self.release.room() == 0 {
                    return Ready::Wait;
                }
                match self.input.peek() {
                    Some(Packet::End(l)) if *l == level => Ready::Yes,
                    None if !self.input.is_closed() => Ready::Wait,
                    other => panic!(
                        "ohua internal error: sticky input (level {}) expected End({level}), found {}",
                        self.home,
                        describe(other)
                    ),
                }
            }
        }
    }

    /// Process `End(level)`; only after [`Sticky::ready_for_end`] said yes.
    pub fn on_end(&mut self, level: Level) {
        use std::cmp::Ordering::*;
        match level.cmp(&self.home) {
            Greater => {}
            Equal => {
                let v = self.value.take().expect("acquired by ready_for_end");
                self.release.send(v);
            }
            Less => {
                self.input.pop();
                self.release.send_end(level);
            }
        }
    }

    /// Ready to pass control marker `m` seen on the data inputs. The
    /// sticky stream (depth `home`) carries the marker too when it was
    /// inserted above it (`m.level < home`); otherwise the marker does not
    /// concern the value.
    pub fn ready_for_mark(&mut self, m: Mark) -> Ready {
        if m.level >= self.home {
            return Ready::Yes;
        }
        if self.release.room() == 0 {
            return Ready::Wait;
        }
        match self.input.peek() {
            Some(Packet::Mark(x)) if *x == m => Ready::Yes,
            None if !self.input.is_closed() => Ready::Wait,
            other => panic!(
                "ohua internal error: sticky input (level {}) expected marker {m:?}, found {}",
                self.home,
                describe(other)
            ),
        }
    }

    /// Pass control marker `m`; only after [`Sticky::ready_for_mark`] said
    /// yes. Returns the arcs it was taken from and forwarded into.
    pub fn on_mark(&mut self, m: Mark) -> (usize, usize) {
        if m.level >= self.home {
            return (0, 0);
        }
        self.input.pop();
        (1, self.release.send_mark(m))
    }

    /// Hold the value before passing marker `m` if it lives across the cut
    /// (`m.level >= home`: the marker is inside the value's activation), so
    /// an update can transform it. The value comes before any data of its
    /// activation, so waiting for it cannot block a marker forever.
    pub fn acquire_for_mark(&mut self, m: Mark) -> Ready {
        if m.level >= self.home {
            self.acquire()
        } else {
            Ready::Yes
        }
    }

    /// Call `f` on the value if it lives across marker `m` and is held.
    pub(crate) fn visit_state(&mut self, m: Mark, f: &mut dyn FnMut(StateRef<'_>)) {
        if let (true, Some(v)) = (m.level >= self.home, self.value.as_mut()) {
            f(StateRef::of(v));
        }
    }

    /// Take the held value for a firing.
    #[inline]
    pub fn take(&mut self) -> T {
        self.value.take().expect("sticky value acquired before firing")
    }

    /// Put the value back after a firing.
    #[inline]
    pub fn put(&mut self, v: T) {
        self.value = Some(v);
    }

    /// Wake producers and consumers touched since the last flush.
    pub fn flush(&mut self) {
        self.input.flush();
        self.release.flush();
        if let Some(back) = &mut self.hand_back {
            back.flush();
        }
    }

    /// `L<home> held|empty in <head> release <room>`, for diagnostics.
    pub fn describe(&self) -> String {
        let held = if self.value.is_some() { "held" } else { "empty" };
        format!("L{} {held} in {} release {}", self.home, self.input.describe(), self.release.describe())
    }
}

fn describe<T>(p: Option<&Packet<T>>) -> String {
    match p {
        Some(Packet::Data(_)) => "data".into(),
        Some(Packet::End(l)) => format!("End({l})"),
        Some(Packet::Mark(m)) => format!("{m:?}"),
        None => "a closed stream".into(),
    }
}

/// The sticky inputs of an operator: a tuple of [`Sticky`] slots (possibly empty).
pub trait StickySet: Send {
    /// The held values, passed by value to each firing and returned by it.
    type Values;
    /// Acquire every value for a firing.
    fn ready_for_data(&mut self) -> Ready;
    /// Check every slot for `End(level)`.
    fn ready_for_end(&mut self, level: Level) -> Ready;
    /// Process `End(level)` in every slot.
    fn on_end(&mut self, level: Level);
    /// Check every slot for control marker `m`.
    fn ready_for_mark(&mut self, m: Mark) -> Ready;
    /// Pass `m` in every slot: the arcs it was taken from and forwarded into.
    fn on_mark(&mut self, m: Mark) -> (usize, usize);
    /// Hold every value that lives across marker `m` (to transform it).
    fn acquire_for_mark(&mut self, m: Mark) -> Ready;
    /// Check every slot for handing its value back at rescaling marker `m`.
    fn ready_to_hand_back(&mut self, m: Mark) -> Ready;
    /// Hand every keyed replica's part back at rescaling marker `m`.
    fn hand_back(&mut self, m: Mark);
    /// Call `f` on every held value that lives across marker `m`, in slot order.
    fn visit_states(&mut self, m: Mark, f: &mut dyn FnMut(StateRef<'_>));
    /// Take all values.
    fn take(&mut self) -> Self::Values;
    /// Put all values back.
    fn put(&mut self, v: Self::Values);
    /// Wake neighbours.
    fn flush(&mut self);
    /// Each slot's state, for diagnostics.
    fn describe(&self) -> Vec<String>;
}

impl StickySet for () {
    type Values = ();
    #[inline]
    fn ready_for_data(&mut self) -> Ready {
        Ready::Yes
    }
    #[inline]
    fn ready_for_end(&mut self, _: Level) -> Ready {
        Ready::Yes
    }
    #[inline]
    fn on_end(&mut self, _: Level) {}
    fn ready_for_mark(&mut self, _: Mark) -> Ready {
        Ready::Yes
    }
    fn on_mark(&mut self, _: Mark) -> (usize, usize) {
        (0, 0)
    }
    fn acquire_for_mark(&mut self, _: Mark) -> Ready {
        Ready::Yes
    }
    fn ready_to_hand_back(&mut self, _: Mark) -> Ready {
        Ready::Yes
    }
    fn hand_back(&mut self, _: Mark) {}
    fn visit_states(&mut self, _: Mark, _: &mut dyn FnMut(StateRef<'_>)) {}
    #[inline]
    fn take(&mut self) {}
    #[inline]
    fn put(&mut self, _: ()) {}
    fn flush(&mut self) {}
    fn describe(&self) -> Vec<String> {
        Vec::new()
    }
}

macro_rules! impl_sticky {
    ($($name:ident $idx:tt),+) => {
        impl<$($name: Send),+> StickySet for ($(Sticky<$name>,)+) {
            type Values = ($($name,)+);
            #[inline]
            fn ready_for_data(&mut self) -> Ready {
                $(if self.$idx.ready_for_data() == Ready::Wait { return Ready::Wait; })+
                Ready::Yes
            }
            fn ready_for_end(&mut self, level: Level) -> Ready {
                $(if self.$idx.ready_for_end(level) == Ready::Wait { return Ready::Wait; })+
                Ready::Yes
            }
            fn on_end(&mut self, level: Level) {
                $(self.$idx.on_end(level);)+
            }
            fn ready_for_mark(&mut self, m: Mark) -> Ready {
                $(if self.$idx.ready_for_mark(m) == Ready::Wait { return Ready::Wait; })+
                Ready::Yes
            }
            fn on_mark(&mut self, m: Mark) -> (usize, usize) {
                let mut passed = (0, 0);
                $(let (c, f) = self.$idx.on_mark(m); passed.0 += c; passed.1 += f;)+
                passed
            }
            fn acquire_for_mark(&mut self, m: Mark) -> Ready {
                $(if self.$idx.acquire_for_mark(m) == Ready::Wait { return Ready::Wait; })+
                Ready::Yes
            }
            fn ready_to_hand_back(&mut self, m: Mark) -> Ready {
                $(if self.$idx.ready_to_hand_back(m) == Ready::Wait { return Ready::Wait; })+
                Ready::Yes
            }
            fn hand_back(&mut self, m: Mark) {
                $(self.$idx.hand_back(m);)+
            }
            fn visit_states(&mut self, m: Mark, f: &mut dyn FnMut(StateRef<'_>)) {
                $(self.$idx.visit_state(m, f);)+
            }
            #[inline]
            fn take(&mut self) -> Self::Values {
                ($(self.$idx.take(),)+)
            }
            #[inline]
            fn put(&mut self, v: Self::Values) {
                $(self.$idx.put(v.$idx);)+
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

impl_sticky!(A 0);
impl_sticky!(A 0, B 1);
impl_sticky!(A 0, B 1, C 2);
impl_sticky!(A 0, B 1, C 2, D 3);
impl_sticky!(A 0, B 1, C 2, D 3, E 4);
impl_sticky!(A 0, B 1, C 2, D 3, E 4, F 5);
impl_sticky!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
impl_sticky!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
impl_sticky!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
impl_sticky!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
impl_sticky!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
impl_sticky!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);

#[cfg(all(test, not(loom)))]
mod tests {
    /// `Sticky`'s example.
    #[test]
    fn a_sticky_value_knows_its_home_level() {
        use crate::{
            arc::channel,
            node::sticky::Sticky,
            port::{In, Out},
        };
        let (_tx, rx) = channel::<Vec<u32>>(2, None, None);
        let s = Sticky::new(In::new(rx), 0, Out::none());
        assert_eq!(s.home(), 0);
    }
}
