// `(&&&probe).is_read(..)`: the `&`s are the specialisation (`probe.rs`),
// not needless borrows: without them every method reads as `Neither`.
// `Step::Done(s.add(..))` is the shape of the generated code, unit result included.
#![allow(clippy::needless_borrow, clippy::unit_arg)]

use std::marker::PhantomData;

use super::{snapshot, Consumer as _, Probe, Reader as _, Snapshot, SnapshotStats, Step, Writer as _};

#[derive(Clone, Debug, Default, PartialEq)]
struct Routes(Vec<(u64, u64)>);

impl Routes {
    fn add(&mut self, from: u64, to: u64) {
        self.0.push((from, to));
    }
    fn lookup(&self, from: &u64) -> Option<u64> {
        self.0.iter().rev().find(|r| r.0 == *from).map(|r| r.1)
    }
    fn len(&self) -> usize {
        self.0.len()
    }
    fn describe(&self, prefix: &str, n: usize, sep: char) -> String {
        format!("{prefix}{n}{sep}{}", self.0.len())
    }
    fn clear(&mut self) -> usize {
        std::mem::take(&mut self.0).len()
    }
    fn first(&self) -> Option<&(u64, u64)> {
        self.0.first()
    }
    fn last_mut(&mut self) -> Option<&mut (u64, u64)> {
        self.0.last_mut()
    }
    fn into_len(self) -> usize {
        self.0.len()
    }
}

trait Named {
    fn name(&self) -> String;
}
impl Named for Routes {
    fn name(&self) -> String {
        "routes".into()
    }
}

#[test]
fn a_write_copies_the_state_only_while_a_reader_holds_it() {
    let mut s = snapshot(Routes::default());
    s.add(1, 2);
    assert_eq!(Snapshot::stats(&s), SnapshotStats { taken: 0, copies: 0, reused: 0 });
    let held = Snapshot::share(&mut s);
    s.add(1, 3);
    assert_eq!(Snapshot::stats(&s), SnapshotStats { taken: 1, copies: 1, reused: 0 });
    assert_eq!((held.lookup(&1), s.lookup(&1)), (Some(2), Some(3)));
    drop(held);
    let dropped = Snapshot::share(&mut s);
    drop(dropped);
    s.add(2, 4);
    assert_eq!(Snapshot::stats(&s), SnapshotStats { taken: 2, copies: 1, reused: 0 }, "no reader held it: no copy");
    assert_eq!(Snapshot::into_inner(s), Routes(vec![(1, 2), (1, 3), (2, 4)]));
}

#[test]
fn a_copy_goes_into_the_memory_of_a_version_whose_readers_are_done() {
    let mut s = snapshot(vec![0u64; 1000]);
    let first = Snapshot::share(&mut s);
    s[0] = 1; // copies away from `first`, which becomes the spare
    let second = Snapshot::share(&mut s);
    s[0] = 2; // `first` is still read: a fresh copy, `first` left alone
    assert_eq!((first[0], second[0], s[0]), (0, 1, 2));
    assert_eq!(Snapshot::stats(&s), SnapshotStats { taken: 2, copies: 2, reused: 0 });
    drop(first);
    drop(second);
    let third = Snapshot::share(&mut s);
    s[0] = 3; // the spare (`second`) is let go: copied into
    assert_eq!((third[0], s[0]), (2, 3));
    assert_eq!(Snapshot::stats(&s), SnapshotStats { taken: 3, copies: 3, reused: 1 });
    drop(third);
    let fourth = Snapshot::share(&mut s);
    s[0] = 4; // and the spare is now `third`
    assert_eq!((fourth[0], s[0]), (3, 4));
    assert_eq!(Snapshot::stats(&s).reused, 2);
    drop(fourth);
    // `Vec::clone_from` keeps the spare's buffer: the versions take turns
    // in two buffers.
    let mut buffers = std::collections::BTreeSet::new();
    for round in 5..9 {
        let held = Snapshot::share(&mut s);
        buffers.insert(held.as_ptr() as usize);
        s[0] = round;
        assert_eq!(held[0], round - 1);
    }
    assert_eq!(buffers.len(), 2, "copies re-use the spare's memory");
    assert_eq!(Snapshot::into_inner(s)[0], 8);
}

#[test]
fn the_probe_tells_readers_from_writers_by_their_receiver() {
    let r = Routes(vec![(1, 5)]);
    assert!(!(&&&Probe::of(&r, Routes::add)).is_read(&PhantomData::<(_, _)>));
    assert!(!(&&&Probe::of(&r, Routes::clear)).is_read(&PhantomData::<()>));
    assert!((&&&Probe::of(&r, Routes::lookup)).is_read(&PhantomData::<(_,)>));
    assert!((&&&Probe::of(&r, Routes::len)).is_read(&PhantomData::<()>));
    assert!((&&&Probe::of(&r, Routes::describe)).is_read(&PhantomData::<(_, _, _)>));
    assert!((&&&Probe::of(&r, Routes::name)).is_read(&PhantomData::<()>), "a trait's &self method reads too");
    assert!((&&&Probe::of(&r, Routes::first)).is_read(&PhantomData::<()>), "a result that borrows the state");
    assert!(!(&&&Probe::of(&r, Routes::last_mut)).is_read(&PhantomData::<()>), "a borrow for writing");
    assert!(!(&&&Probe::of(&r, Routes::into_len)).is_read(&PhantomData::<()>), "a method that takes the state");
    let ints = vec![1u64, 2];
    assert!((&&&Probe::of(&ints, Vec::<u64>::clone)).is_read(&PhantomData::<()>), "a trait's method of a std type");
}

#[test]
fn a_reader_called_on_a_snapshot_returns_what_the_method_returns() {
    let r = Routes(vec![(1, 5), (2, 6)]);
    let k = 2u64;
    assert_eq!((&&&Probe::of(&r, Routes::lookup)).call_read(&r, (&k,)), Some(6));
    assert_eq!((&&&Probe::of(&r, Routes::describe)).call_read(&r, ("n", 3, ':')), "n3:2");
    assert_eq!((&&&Probe::of(&r, Routes::name)).call_read(&r, ()), "routes");
    assert_eq!((&&&Probe::of(&r, Routes::first)).call_read(&r, ()).copied(), Some((1, 5)));
}

/// The shape of the code a call on a snapshot state becomes (the
/// compiler's `graph/snapshot.rs`): one step on the state, one finish off it.
#[test]
fn a_step_and_its_finish_give_the_sequential_result_for_both_kinds() {
    fn step_lookup(s: &mut Snapshot<Routes>, k: u64) -> Step<Routes, Option<u64>, (u64,)> {
        let probe = Probe::of(&**s, Routes::lookup);
        if (&&&probe).is_read(&PhantomData::<(_,)>) {
            Step::Read(Snapshot::share(s), (k,))
        } else {
            Step::Done(s.lookup(&k))
        }
    }
    fn finish_lookup(step: Step<Routes, Option<u64>, (u64,)>) -> Option<u64> {
        match step {
            Step::Done(r) => r,
            Step::Read(snap, (k,)) => (&&&Probe::of(&*snap, Routes::lookup)).call_read(&snap, (&k,)),
        }
    }
    fn step_add(s: &mut Snapshot<Routes>, a: u64, b: u64) -> Step<Routes, (), (u64, u64)> {
        let probe = Probe::of(&**s, Routes::add);
        if (&&&probe).is_read(&PhantomData::<(_, _)>) {
            Step::Read(Snapshot::share(s), (a, b))
        } else {
            Step::Done(s.add(a, b))
        }
    }
    let mut s = snapshot(Routes::default());
    assert!(matches!(step_add(&mut s, 1, 7), Step::Done(())));
    let read = step_lookup(&mut s, 1);
    assert!(matches!(read, Step::Read(..)));
    assert!(matches!(step_add(&mut s, 1, 9), Step::Done(())), "the write goes on while the read is pending");
    assert_eq!(finish_lookup(read), Some(7), "the read sees the version before the later write");
    assert_eq!(finish_lookup(step_lookup(&mut s, 1)), Some(9));
    assert_eq!(Snapshot::stats(&s), SnapshotStats { taken: 2, copies: 1, reused: 0 });
}
