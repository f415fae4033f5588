//! Per-operator counters, sampled step timing and the step budget.
//!
//! Why sampled: a clock read costs 14-20 ns on the project's VMs (`rdtsc`,
//! plus `quanta`'s per-call mock check for `quanta::Instant::now`), and with
//! small batches a step is one firing of a few nanoseconds. Timing every step
//! of every operator cost a cross-section hop four clock reads per message
//! (BENCHMARKS.md, `hop`). So a step is timed with the raw TSC with
//! probability 1/[`SAMPLE_EVERY`] (1/4 until an operator has a productive
//! timed step), and busy time is estimated from the timed productive steps.
//! Random rather than periodic sampling: an operator whose steps alternate
//! between productive and blocked with some period would otherwise never, or
//! always, be timed when productive. Coarse operators (10 µs or more per
//! firing) time every step: their step budgets depend on it, and there a
//! clock read is lost in the noise.

use std::sync::OnceLock;
use std::time::Duration;

/// A fine-grained operator times one in this many of its steps (a power of two).
const SAMPLE_EVERY: u32 = 16;

/// Until its first productive timed step, an operator times one in this many.
const SAMPLE_EVERY_UNMEASURED: u32 = 4;

/// Which steps to time: a xorshift generator, one per section.
pub(crate) struct Sampler(u32);

impl Sampler {
    /// A generator for section `index` (any seed works; distinct ones keep
    /// sections from sampling in lockstep).
    pub(crate) fn new(index: usize) -> Self {
        Sampler(0x9E37_79B9 ^ (index as u32).wrapping_mul(0x85EB_CA6B) | 1)
    }

    /// Whether to time a step, with probability `1 / every` (a power of two).
    #[inline(always)]
    fn one_in(&mut self, every: u32) -> bool {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        x & (every - 1) == 0
    }
}

/// Target length of one step of a *coarse* operator: its firing budget is
/// this slice divided by its measured cost per firing (at least 1). An
/// operator whose firing takes half a millisecond thus hands each result on at
/// once instead of holding a batch of them back from the next section.
const STEP_SLICE: Duration = Duration::from_micros(100);

/// Operators cheaper than this per firing always get the full `batch_size`:
/// for them, shorter steps only mean more hand-offs of neighbouring ring slots
/// between cores (measured: `word_freq` 0.85x -> 0.73x with 100 us steps).
const COARSE_FIRING: Duration = Duration::from_micros(10);

/// The longest step of any operator in a run that re-cuts its sections
/// while it goes on (`recut.rs`). Its drivers publish busy time and
/// regroup only between steps, at the top of their loops; a full batch of
/// a 9 µs operator (not coarse) is a step of 9 ms, four times the measured
/// prefix before the first decision, so a first run of two such stages
/// regrouped at 25-48 ms instead of 2 ms (BENCHMARKS.md, "A first run
/// re-cuts its sections while it runs"). A quarter millisecond is one
/// publication period; a step that long still hands on 25 or more items
/// at a time.
const RECUT_SLICE: Duration = Duration::from_micros(250);

/// The raw clock and the step-budget thresholds in its ticks.
pub(crate) struct StepClock {
    clock: quanta::Clock,
    coarse_ticks: u64,
    slice_ticks: u64,
    recut_slice_ticks: u64,
}

impl StepClock {
    /// The process-wide clock (calibrated once, on first use).
    pub(crate) fn get() -> &'static StepClock {
        static CLOCK: OnceLock<StepClock> = OnceLock::new();
        CLOCK.get_or_init(|| {
            let clock = quanta::Clock::new();
            let coarse_ticks = ticks_for(&clock, COARSE_FIRING);
            let slice_ticks = ticks_for(&clock, STEP_SLICE);
            let recut_slice_ticks = ticks_for(&clock, RECUT_SLICE);
            StepClock { clock, coarse_ticks, slice_ticks, recut_slice_ticks }
        })
    }

    /// The current raw time (TSC ticks where available).
    #[inline(always)]
    pub(crate) fn now(&self) -> u64 {
        self.clock.raw()
    }

    /// How many raw ticks make `ns` nanoseconds (0 for 0).
    pub(crate) fn ticks_of_nanos(&self, ns: u64) -> u64 {
        if ns == 0 {
            return 0;
        }
        ticks_for(&self.clock, Duration::from_nanos(ns))
    }
}

/// How many raw ticks make `d` (at least 1).
fn ticks_for(clock: &quanta::Clock, d: Duration) -> u64 {
    // `delta_as_nanos` scales ticks to nanoseconds; scale a large count once.
    const PROBE: u64 = 1 << 32;
    let ns_per_probe = clock.delta_as_nanos(0, PROBE).max(1);
    u64::try_from(u128::from(PROBE) * d.as_nanos() / u128::from(ns_per_probe)).unwrap_or(u64::MAX).max(1)
}

/// Measurements of one operator, kept by its section (no sharing needed).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Counters {
    /// Firings (work units) over all steps.
    pub(crate) firings: u64,
    /// Steps, productive or not.
    pub(crate) steps: u64,
    /// Firings of the timed steps.
    timed_firings: u64,
    /// Raw ticks of the timed steps.
    timed_ticks: u64,
    /// At least [`COARSE_FIRING`] per firing, as last measured.
    coarse: bool,
    /// Firings already counted by [`Counters::take_busy`].
    taken_firings: u64,
}

impl Counters {
    /// Whether the next step should be timed.
    #[inline(always)]
    pub(crate) fn wants_timing(&self, sampler: &mut Sampler) -> bool {
        if self.coarse {
            return true;
        }
        if self.timed_firings == 0 {
            // One that fired, untimed, with its cost still unknown is timed
            // at every step until a productive one is: an operator that
            // fires a few times a run (a 40 ms summary, 5 times in 3 s)
            // otherwise went unmeasured in a quarter of the runs, its busy
            // time 0, and `auto` planned the next run as if it cost nothing.
            return self.firings > 0 || sampler.one_in(SAMPLE_EVERY_UNMEASURED);
        }
        sampler.one_in(SAMPLE_EVERY)
    }

    /// A productive step of `firings` that took `ticks`.
    #[inline]
    pub(crate) fn record_timed(&mut self, firings: u64, ticks: u64, clock: &StepClock) {
        self.firings += firings;
        self.timed_firings += firings;
        self.timed_ticks = self.timed_ticks.saturating_add(ticks);
        self.coarse = self.timed_ticks >= clock.coarse_ticks.saturating_mul(self.timed_firings);
    }

    /// A productive step of `firings` that was not timed.
    #[inline(always)]
    pub(crate) fn record_untimed(&mut self, firings: u64) {
        self.firings += firings;
    }

    /// Firings the next step may do; `recutting`: the run re-cuts its
    /// sections while it goes on, and no step may take longer than
    /// [`RECUT_SLICE`].
    #[inline]
    pub(crate) fn budget(&self, batch: usize, clock: &StepClock, recutting: bool) -> usize {
        if self.timed_firings == 0 {
            // Unknown cost: one firing measures it.
            return 1;
        }
        let slice = if self.coarse {
            clock.slice_ticks
        } else if recutting {
            clock.recut_slice_ticks
        } else {
            return batch;
        };
        let per_firing = (self.timed_ticks / self.timed_firings).max(1);
        usize::try_from(slice / per_firing).unwrap_or(usize::MAX).clamp(1, batch)
    }

    /// The busy time of the firings since the last call, at the cost per
    /// firing measured so far: a run that re-cuts adds these up per
    /// window (`recut.rs`). Unlike differences of [`Counters::busy`],
    /// which values all past firings at the latest cost, a change of cost
    /// does not revalue the past (under overload, a preempted timed step
    /// made a window of 64 ms look 266 ms busy). Firings before the first
    /// timed step wait until it.
    pub(crate) fn take_busy(&mut self, clock: &StepClock) -> Duration {
        if self.timed_firings == 0 {
            return Duration::ZERO;
        }
        let new = self.firings - self.taken_firings;
        self.taken_firings = self.firings;
        self.cost_of(new, clock)
    }

    /// Estimated busy time: the timed steps' cost per firing times all firings.
    pub(crate) fn busy(&self, clock: &StepClock) -> Duration {
        self.cost_of(self.firings, clock)
    }

    /// `firings` at the timed steps' cost per firing (nothing before the
    /// first timed step).
    fn cost_of(&self, firings: u64, clock: &StepClock) -> Duration {
        if self.timed_firings == 0 {
            return Duration::ZERO;
        }
        let ticks = u128::from(self.timed_ticks) * u128::from(firings) / u128::from(self.timed_firings);
        clock.clock.delta(0, u64::try_from(ticks).unwrap_or(u64::MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock() -> &'static StepClock {
        StepClock::get()
    }

    #[test]
    fn an_unmeasured_operator_fires_once_per_step() {
        assert_eq!(Counters::default().budget(64, clock(), false), 1);
    }

    /// Steps timed out of `steps`, each productive with one firing.
    fn timed_out_of(c: &mut Counters, steps: u32) -> u32 {
        let mut sampler = Sampler::new(0);
        let mut timed = 0;
        for _ in 0..steps {
            if c.wants_timing(&mut sampler) {
                timed += 1;
                c.record_timed(1, 10, clock());
            } else {
                c.record_untimed(1);
            }
        }
        timed
    }

    #[test]
    fn a_fine_operator_is_timed_on_about_one_step_in_sixteen_and_gets_the_full_batch() {
        let mut c = Counters::default();
        let timed = timed_out_of(&mut c, 16_000);
        assert!((800..=1200).contains(&timed), "timed {timed} of 16000 steps");
        assert_eq!(c.budget(64, clock(), false), 64);
        assert_eq!(c.firings, 16_000);
    }

    #[test]
    fn sampling_does_not_alias_with_periodic_progress() {
        // Productive on every 16th step only: a periodic sampler could miss
        // (or hit) every productive step.
        let mut sampler = Sampler::new(1);
        let mut c = Counters::default();
        let mut timed_productive = 0;
        for step in 0..32_000u32 {
            let timed = c.wants_timing(&mut sampler);
            if step % 16 == 0 {
                if timed {
                    timed_productive += 1;
                    c.record_timed(1, 10, clock());
                } else {
                    c.record_untimed(1);
                }
            }
        }
        assert!((60..=190).contains(&timed_productive), "timed {timed_productive} of 2000 productive steps");
    }

    #[test]
    fn an_operator_whose_first_firing_went_untimed_is_timed_until_a_firing_is() {
        let mut sampler = Sampler::new(3);
        let mut c = Counters::default();
        c.record_untimed(1);
        assert!((0..100).all(|_| c.wants_timing(&mut sampler)), "every step until measured");
        c.record_timed(1, 10, clock());
        assert!(!(0..100).all(|_| c.wants_timing(&mut sampler)), "sampled again once measured");
    }

    #[test]
    fn a_coarse_operator_is_timed_every_step_and_sliced() {
        let clock = clock();
        let mut c = Counters::default();
        // Two firings of 50 µs each: a 100 µs slice holds two of them.
        c.record_timed(2, 2 * ticks_for(&clock.clock, Duration::from_micros(50)), clock);
        let mut sampler = Sampler::new(0);
        assert!((0..100).all(|_| c.wants_timing(&mut sampler)));
        assert_eq!(c.budget(64, clock, false), 2);
        assert_eq!(c.budget(64, clock, true), 2, "a coarse operator's slice is the shorter one");
    }

    #[test]
    fn a_run_that_recuts_caps_the_steps_of_operators_below_the_coarse_threshold() {
        let clock = clock();
        let mut c = Counters::default();
        // 9 µs per firing: not coarse, so a full batch of 1024 would be a
        // step of 9 ms; re-cutting, a step holds 250 / 9 firings.
        c.record_timed(4, 4 * ticks_for(&clock.clock, Duration::from_micros(9)), clock);
        assert_eq!(c.budget(1024, clock, false), 1024);
        assert!((26..=28).contains(&c.budget(1024, clock, true)), "{}", c.budget(1024, clock, true));
        // A cheap operator's full batch is shorter than the slice anyway.
        let mut cheap = Counters::default();
        cheap.record_timed(1000, ticks_for(&clock.clock, Duration::from_micros(100)), clock);
        assert_eq!(cheap.budget(1024, clock, true), 1024);
    }

    #[test]
    fn busy_time_taken_by_windows_values_each_windows_firings_at_the_cost_known_then() {
        let clock = clock();
        let us = |n: u64| ticks_for(&clock.clock, Duration::from_micros(n));
        let mut c = Counters::default();
        c.record_untimed(5);
        assert_eq!(c.take_busy(clock), Duration::ZERO, "no cost measured yet");
        c.record_timed(5, 5 * us(1), clock);
        let first = c.take_busy(clock).as_nanos();
        assert!((9_900..=10_100).contains(&first), "10 firings at 1 µs each: {first} ns");
        // The cost per firing rises to 7 µs (105 µs over 15 timed
        // firings): only the new firings are valued at it.
        c.record_timed(10, 100 * us(1), clock);
        let second = c.take_busy(clock).as_nanos();
        assert!((69_000..=71_000).contains(&second), "10 firings at 7 µs: {second} ns");
        assert_eq!(c.take_busy(clock), Duration::ZERO, "nothing new");
    }

    #[test]
    fn busy_time_extrapolates_the_timed_steps_to_all_firings() {
        let clock = clock();
        let mut c = Counters::default();
        c.record_timed(10, ticks_for(&clock.clock, Duration::from_micros(1)), clock);
        for _ in 0..9 {
            c.record_untimed(10);
        }
        let busy = c.busy(clock).as_nanos();
        // 100 firings at 100 ns each, within the tick conversion's rounding.
        assert!((9_900..=10_100).contains(&busy), "busy {busy} ns");
    }
}
