//! Re-cutting a run's sections while it goes on: one section's driver
//! *hosts* others, stepping their operators beside its own, and lets them
//! go again (`README.md`, "Hosting").
//!
//! A section is a group of operators that one thread steps in a loop. A
//! plan cuts the graph into sections before the run; hosting merges two
//! of them for a while without rebuilding anything: the guest's own
//! thread waits, and the host's driver steps the guest's tasks after its
//! own in every pass, under its own beat (a beat names the section and
//! the task, so the monitor's rescue of a step stuck in a guest's task
//! pins that task, `handover.rs`). Letting go is the reverse: the guest's
//! thread drives its section again from where the host left it.
//!
//! Why nothing is lost or reordered: arcs do not change. Every arc between
//! two sections keeps its wakers, the guest's flag forwards a wake-up to
//! its host (`SleepFlag::hosted_by`), and the host announces its sleep on
//! its guests' flags before its own heavy fence, so the classic Dekker pair
//! of the sleep protocol holds for the guest's arcs too. Items inside each
//! arc stay in order whoever steps its ends; a task is stepped by one
//! thread at a time because it changes hands only under both sections'
//! locks, at the top of a driver's loop (between steps), and never while
//! one of its tasks is pinned to a stuck thread.
//!
//! Who moves: a section joins a host from the top of its own loop (its
//! driver is between steps, no task of it stuck, it hosts nobody); a host
//! lets a guest go from the top of its loop, and lets every guest go when
//! its own operators are done, when a guest's are, and before it retires,
//! so no guest waits for a host that has gone. Runs that fetch from data
//! sources do not re-cut (their sections' running count, `sync/quiet.rs`,
//! is per driver). Once a run streams from a source that waits, random
//! re-cuts let their guests go (a loop entry's hold rule is decided by the
//! sections it was built in), and a measured one regroups by the share of
//! its windows the threads were busy (a service's Monitor: fused at light
//! load, spread under load), its loop entries' holds following the groups
//! (`recut.rs`, `HoldFollow`). What moves when: an `auto` first run
//! regroups by measured busy time (`recut.rs`); Random deployments join
//! and let go at drawn moments (the tests' chaos, [`Chaos`]) or regroup
//! eagerly (fusing and spreading a service by turns).

use std::sync::MutexGuard;

use super::recut::{Regroup, PUBLISH_EVERY};
use super::section::{Ctl, Section};
use super::shared::RunShared;
use super::timing::StepClock;
use crate::sync::Ordering;

/// How a run re-cuts its sections while it goes on.
pub(crate) enum Recutting {
    /// At drawn moments (Random deployments, the tests' chaos): the seed.
    Chaos(u64),
    /// By measured cost (a first run cut finer than its threads).
    Measured(std::sync::Arc<Regroup>),
}

/// A driver's view of the sections it hosts.
pub(super) struct Hosted {
    /// A copy of `Ctl::guests`, read when `Section::guests_gen` moved.
    guests: Vec<usize>,
    /// The generation the copy is of (`u64::MAX`: read it again).
    gen: u64,
    /// Whether this run re-cuts at all; nothing else is looked at if not.
    recuts: bool,
    /// The drawn moments of a Random deployment.
    chaos: Option<Chaos>,
    /// Loops of this driver.
    loops: u64,
    /// The loop before which a refused join is not tried again.
    retry_at: u64,
    /// When (raw clock ticks) a measured re-cut publishes busy time next.
    publish_at: u64,
}

/// Loops after a refused join before the next try: a host that is hosted
/// itself is let go by its host's next loop.
const RETRY_AFTER: u64 = 32;

impl Hosted {
    /// The view of a driver of `section` that starts now (a rescue's new
    /// driver inherits the guests, so the copy is read first).
    pub(super) fn new(section: &Section<'_>) -> Self {
        let chaos = match section.recut {
            Some(Recutting::Chaos(seed)) => Some(Chaos::new(seed, section.index)),
            _ => None,
        };
        let recuts = section.recut.is_some();
        Hosted { guests: Vec::new(), gen: u64::MAX, recuts, chaos, loops: 0, retry_at: 0, publish_at: 0 }
    }

    /// Whether the run re-cuts its sections.
    #[inline]
    pub(super) fn recuts(&self) -> bool {
        self.recuts
    }

    /// The sections this driver steps besides its own.
    #[inline]
    pub(super) fn guests(&self) -> &[usize] {
        &self.guests
    }

    /// After the sleep's announcement and heavy fence: whether a section
    /// joined since the copy was read (then its tasks may have work, and
    /// its joiner's wake-up may have missed the announcement).
    #[inline]
    pub(super) fn joined_since(&self, section: &Section<'_>) -> bool {
        self.recuts && section.guests_gen.load(Ordering::Relaxed) != self.gen
    }

    /// The driver changed (a stuck one drives again): read the guests anew.
    pub(super) fn forget(&mut self) {
        self.gen = u64::MAX;
    }

    fn read(&mut self, section: &Section<'_>, ctl: &Ctl) {
        self.guests.clone_from(&ctl.guests);
        self.gen = section.guests_gen.load(Ordering::Relaxed);
    }
}

impl<'a> Section<'a> {
    /// At the top of the driver's loop, in a run that re-cuts: take in the
    /// sections that joined, let finished guests go (all of them once this
    /// section's operators are done), and at a drawn moment join another
    /// section or let the guests go.
    pub(super) fn recut(&self, peers: &[Section<'a>], hosted: &mut Hosted, shared: &RunShared) {
        if self.guests_gen.load(Ordering::Acquire) != hosted.gen {
            let ctl = self.ctl.lock().unwrap_or_else(|e| e.into_inner());
            hosted.read(self, &ctl);
        }
        let measured = match &self.recut {
            Some(Recutting::Measured(r)) => Some(&**r),
            _ => None,
        };
        if !hosted.guests.is_empty() {
            // A loop over a channel or socket keeps its cut: whether its
            // entry honours the carry's hold was decided by the sections
            // it was built in (`Builder::hold_matters`), and a host that
            // steps the entry beside the loop's cycle would let a backlog
            // stand (`exec/README.md`, "Streaming sources").
            let done = self.live.load(Ordering::Relaxed) == 0 || (measured.is_none() && shared.streaming());
            let mut i = 0;
            while i < hosted.guests.len() {
                let g = hosted.guests[i];
                let elsewhere = measured.is_some_and(|r| r.host_of(g) != self.index);
                let guest = &peers[g];
                if (done || elsewhere || guest.live.load(Ordering::Relaxed) == 0) && self.let_go_of(guest, hosted) {
                    continue; // the copy was read again
                }
                i += 1;
            }
        }
        if let Some(r) = measured {
            return self.follow(r, peers, hosted, shared);
        }
        let Some(chaos) = hosted.chaos.as_mut() else { return };
        if !chaos.due() || shared.streaming() {
            return;
        }
        if !hosted.guests.is_empty() {
            self.let_guests_go(peers, hosted);
        } else if let Some(host) = chaos.pick(peers.len(), self.index) {
            if self.live.load(Ordering::Relaxed) > 0 && shared.io().is_none() {
                self.join(&peers[host], shared);
            }
        }
    }

    /// A measured re-cut, at the top of the driver's loop: publish the
    /// busy time of the sections we step, decide when a window is over,
    /// and join the host wanted for this section.
    fn follow(&self, r: &Regroup, peers: &[Section<'a>], hosted: &mut Hosted, shared: &RunShared) {
        hosted.loops += 1;
        let clock = StepClock::get();
        let now = clock.now();
        if now >= hosted.publish_at {
            hosted.publish_at = now + clock.ticks_of_nanos(PUBLISH_EVERY.as_nanos() as u64);
            for part in std::iter::once(self).chain(hosted.guests.iter().map(|&g| &peers[g])) {
                r.add_busy(part.index, part.take_busy(clock));
            }
            if r.due() && r.decide(shared.streaming()) {
                // Parked drivers must see what is wanted of them.
                for p in peers {
                    p.waker.wake();
                }
            }
        }
        let host = r.host_of(self.index);
        if host == self.index || !hosted.guests.is_empty() || hosted.loops < hosted.retry_at {
            return;
        }
        match self.join(&peers[host], shared) {
            Joined::Yes => {}
            Joined::HostGone => r.drive_yourself(self.index),
            Joined::NotNow => hosted.retry_at = hosted.loops + RETRY_AFTER,
        }
    }

    /// The busy time of this section's tasks since the last call
    /// (`Counters::take_busy`); tasks pinned to a stuck thread are left
    /// out (their counters are that thread's) and counted once they are
    /// back.
    fn take_busy(&self, clock: &StepClock) -> std::time::Duration {
        let mut sum = std::time::Duration::ZERO;
        for slot in self.tasks.iter().filter(|s| !s.pinned.load(Ordering::Acquire)) {
            // SAFETY: unpinned tasks belong to the driver stepping this
            // section, and the caller is it, between steps.
            sum += unsafe { &mut *slot.task.get() }.counters.take_busy(clock);
        }
        sum
    }

    /// Let every guest go whose tasks are not pinned to a stuck thread;
    /// whether none is left.
    pub(super) fn let_guests_go(&self, peers: &[Section<'a>], hosted: &mut Hosted) -> bool {
        let guests = self.ctl.lock().unwrap_or_else(|e| e.into_inner()).guests.clone();
        let mut all = true;
        for g in guests {
            all &= self.let_go_of(&peers[g], hosted);
        }
        all
    }

    /// Hand `guest` back to its own thread, unless one of its tasks is
    /// pinned to a thread stuck in a step (that thread returns it to us,
    /// the host). Re-reads the host's copy of its guests.
    fn let_go_of(&self, guest: &Section<'a>, hosted: &mut Hosted) -> bool {
        let (mut mine, mut theirs) = lock_pair(self, guest);
        if guest.tasks.iter().any(|t| t.pinned.load(Ordering::Relaxed)) {
            return false;
        }
        mine.guests.retain(|&g| g != guest.index);
        self.guests_gen.fetch_add(1, Ordering::Release);
        hosted.read(self, &mine);
        guest.flag.hosted_by(None);
        theirs.host = None;
        guest.let_go.notify_all();
        true
    }

    /// Let `host`'s driver step this section's tasks, and wait until it
    /// lets them go; nothing happens if either section cannot take part
    /// now (see the module's docs).
    fn join(&self, host: &Section<'a>, shared: &RunShared) -> Joined {
        if host.index == self.index || shared.aborted() {
            return Joined::NotNow;
        }
        {
            let (mut mine, mut theirs) = lock_pair(self, host);
            if mine.threads != 1 || mine.pinned != 0 || !mine.guests.is_empty() || mine.host.is_some() {
                return Joined::NotNow;
            }
            if !theirs.driving {
                return Joined::HostGone;
            }
            if theirs.host.is_some() {
                return Joined::NotNow;
            }
            // SAFETY: we drive this section and are between steps; the
            // host gets `own` with the tasks, under the locks.
            unsafe { &mut *self.own.get() }.stats.hosted += 1;
            // Before the host can announce a sleep on our flag.
            self.flag.hosted_by(Some(host.index));
            mine.host = Some(host.index);
            theirs.guests.push(self.index);
            host.guests_gen.fetch_add(1, Ordering::Release);
        }
        // The host may be parked: its pass after the announcement looks at
        // the generation, so this wake-up or that look finds us.
        host.waker.wake();
        let mut ctl = self.ctl.lock().unwrap_or_else(|e| e.into_inner());
        while ctl.host.is_some() {
            ctl = self.let_go.wait(ctl).unwrap_or_else(|e| e.into_inner());
        }
        Joined::Yes
    }
}

/// What came of an attempt to join a host.
enum Joined {
    /// Hosted, and let go again.
    Yes,
    /// Not now: a task of ours is stuck, we host, or the host is hosted.
    NotNow,
    /// The host has retired.
    HostGone,
}

/// Lock two sections' `Ctl`s in the order of their indices (a joiner and
/// a host that lets go lock the same pair); returned as (`a`'s, `b`'s).
fn lock_pair<'s>(a: &'s Section<'_>, b: &'s Section<'_>) -> (MutexGuard<'s, Ctl>, MutexGuard<'s, Ctl>) {
    let lock = |s: &'s Section<'_>| s.ctl.lock().unwrap_or_else(|e| e.into_inner());
    if a.index < b.index {
        let first = lock(a);
        (first, lock(b))
    } else {
        let first = lock(b);
        (lock(a), first)
    }
}

/// Drawn moments to re-cut at: a Random deployment's sections join and let
/// go at random loops of their drivers, so the tests see tasks change
/// hands at many points of a run.
struct Chaos {
    state: u64,
    loops: u64,
    next: u64,
}

impl Chaos {
    fn new(seed: u64, section: usize) -> Self {
        let state = (seed ^ (section as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)) | 1;
        let mut c = Chaos { state, loops: 0, next: 0 };
        c.next = 1 + c.draw() % 48;
        c
    }

    /// xorshift64*: the moments need no more than a cheap, seeded spread.
    fn draw(&mut self) -> u64 {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Counts a loop; whether it is a drawn moment.
    fn due(&mut self) -> bool {
        self.loops += 1;
        if self.loops < self.next {
            return false;
        }
        self.next = self.loops + 1 + self.draw() % 48;
        true
    }

    /// Another of `n` sections than `me`, if there is one.
    fn pick(&mut self, n: usize, me: usize) -> Option<usize> {
        (n > 1).then(|| (me + 1 + (self.draw() % (n as u64 - 1)) as usize) % n)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::Chaos;

    #[test]
    fn drawn_moments_come_within_48_loops_and_name_another_section() {
        let mut c = Chaos::new(7, 2);
        let mut moments = 0;
        for _ in 0..4_800 {
            if c.due() {
                moments += 1;
                let to = c.pick(5, 2).unwrap();
                assert!(to < 5 && to != 2, "picked {to}");
            }
        }
        assert!(moments >= 100, "only {moments} moments in 4,800 loops");
        assert_eq!(c.pick(1, 0), None, "a lone section has nobody to join");
    }
}

/// The wake-ups of hosting, every interleaving:
/// `RUSTFLAGS="--cfg loom" cargo test -p ohua-runtime --release --lib loom`.
/// A waker's side is `Waker::wake`'s: its light fence, then the state and
/// the host it reads from the flag.
#[cfg(all(test, loom))]
mod loom_models {
    use crate::sync::{AtomicBool, AtomicU64, Fences, Mutex, Ordering, Parker, SleepFlag};
    use loom::sync::Arc;
    use loom::thread;

    fn flags() -> (Arc<SleepFlag>, Arc<SleepFlag>, Vec<Parker>) {
        let parkers = vec![Parker::new(), Parker::new()];
        let all: std::sync::Arc<[_]> = parkers.iter().map(|p| p.unparker().clone()).collect();
        let host = SleepFlag::hostable(parkers[0].unparker().clone(), all.clone(), Fences::SYMMETRIC);
        let guest = SleepFlag::hostable(parkers[1].unparker().clone(), all, Fences::SYMMETRIC);
        (host, guest, parkers)
    }

    /// A host (section 0) that adopted section 1 sleeps for it: it
    /// announces the sleep on the guest's flag and its own, then looks at
    /// the guest's arc once more. A producer pushes into that arc and wakes
    /// the guest's flag. Either the host's last look sees the item, or the
    /// wake-up reaches the host's parker.
    #[test]
    fn loom_a_wake_up_of_a_hosted_section_reaches_its_sleeping_host() {
        loom::model(|| {
            let (host, guest, _parkers) = flags();
            guest.hosted_by(Some(0));
            let item = Arc::new(AtomicBool::new(false));
            let (g, i) = (guest.clone(), item.clone());
            let producer = thread::spawn(move || {
                i.store(true, Ordering::Release);
                Fences::SYMMETRIC.light();
                g.sleeping_for_waker().then(|| g.host_index()).flatten()
            });
            guest.announce_sleep();
            host.going_to_sleep();
            let seen = item.load(Ordering::Acquire);
            let woke = producer.join().unwrap();
            assert!(seen || woke == Some(0), "the host parks and the item's wake-up missed it");
        });
    }

    /// A section joins a host that may be going to sleep: it names the host
    /// on its flag, adds itself under the host's lock with a new
    /// generation, and wakes the host. The host announces its sleep, then
    /// looks at the generation. Either it sees the join, or the joiner's
    /// wake-up finds it asleep; and once it has seen the join, a wake-up of
    /// the guest's flag after the host's next announcement reaches it.
    #[test]
    fn loom_a_section_that_joins_a_sleeping_host_is_seen_or_wakes_it() {
        loom::model(|| {
            let (host, guest, _parkers) = flags();
            let guests = Arc::new(Mutex::new(Vec::new()));
            let gen = Arc::new(AtomicU64::new(0));
            let (h, g, list, n) = (host.clone(), guest.clone(), guests.clone(), gen.clone());
            let joiner = thread::spawn(move || {
                g.hosted_by(Some(0));
                {
                    let mut l = list.lock().unwrap();
                    l.push(1);
                    n.fetch_add(1, Ordering::Release);
                }
                Fences::SYMMETRIC.light();
                h.sleeping_for_waker()
            });
            host.going_to_sleep();
            let joined = gen.load(Ordering::Relaxed) != 0;
            let woken = joiner.join().unwrap();
            assert!(joined || woken, "the host parks without its new guest and nobody wakes it");
            // Awake again, it adopts the guest under the lock; its next
            // sleep covers the guest's flag, and a wake-up of that flag
            // names the host.
            if !guests.lock().unwrap().is_empty() {
                guest.announce_sleep();
                Fences::SYMMETRIC.heavy();
                assert!(guest.sleeping_for_waker() && guest.host_index() == Some(0));
            }
        });
    }
}
