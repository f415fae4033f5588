//! Regression tests, named after the bug they pin down.
//!
//! `generated_seed1_p1` / `generated_seed1_p7` are programs from the generator
//! (`tests/generated.rs`, seed 1) that hung before the fix below; they are
//! kept verbatim.
//!
//! BUG (fixed): a `for`/`while` loop nested in another loop, running zero
//! iterations many times in a row, hung under deployments with capacity-1
//! arcs. The loop body echoes every end-of-activation marker back into the
//! `carry`/`loop` operator's feedback arc; the operator only read feedback
//! while an iteration was in flight, so the echoes of empty loops filled the
//! arc and stalled the body and everything upstream. The loop operators now
//! drain echoes whenever no iteration is in flight.

#![allow(unused, unused_mut, unused_variables, unused_assignments, unused_parens, dead_code)]

use ohua::algorithm;
use ohua_conformance::{check, Log};

pub fn f1(a: i64) -> i64 {
    a.wrapping_mul(3).wrapping_add(1)
}
pub fn f2(a: i64, b: i64) -> i64 {
    a.wrapping_mul(31).wrapping_add(b) ^ 7
}
pub fn f3(a: i64, b: i64, c: i64) -> i64 {
    a.wrapping_sub(b).wrapping_mul(c | 1)
}
pub fn g2(a: i64) -> (i64, i64) {
    (a.wrapping_add(1), a.wrapping_sub(2))
}
pub fn inc(a: i64) -> i64 {
    a.wrapping_add(1)
}
pub fn lit(a: i64) -> i64 {
    a
}

/// Run `f` on a thread; panic if it does not finish in 10 s (a hang).
fn within_10s<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(std::time::Duration::from_secs(10)).expect("hung: no result after 10s")
}

fn inputs() -> Vec<(Vec<i64>, i64)> {
    let mut v = Vec::new();
    for xs in [vec![], vec![1], vec![5, -3, 7, 0]] {
        for k in [0, 3, -7] {
            v.push((xs.clone(), k));
        }
    }
    v
}

#[allow(unused, unused_mut, unused_variables, unused_assignments, unused_parens)]
mod p1 {
    use super::*;
    #[ohua::algorithm]
    pub fn alg(xs: Vec<i64>, k: i64) -> (i64, i64, i64, Vec<String>, i64, Vec<String>, i64) {
        let mut s0 = Log::new();
        let mut s1 = Log::new();
        let mut i1 = 0;
        while i1 < 3 {
            let mut m3 = 1;
            let n4 = k % 5;
            for v2 in 0..n4 {
                let ys6 = xs
                    .clone()
                    .into_iter()
                    .map(|v5| {
                        let x7 = s1.push(k);
                        inc(v5)
                    })
                    .collect::<Vec<i64>>();
                let x8 = ys6.iter().fold(0i64, |a, b| a.wrapping_add(*b));
                match n4 % 3 {
                    0 => {
                        let x9 = f2(m3, v2);
                        let x10 = f3(x8, m3, k);
                    }
                    1 => {
                        m3 = f2(m3, m3);
                    }
                    _ => {
                        let x11 = f3(k, m3, v2);
                    }
                }
                m3 = f2(m3, v2);
            }
            let mut m13 = 9;
            let n14 = n4 % 5;
            for v12 in 0..n14 {
                let ys16 = xs.clone().into_iter().map(|v15| s1.peek()).collect::<Vec<i64>>();
                let x17 = ys16.iter().fold(0i64, |a, b| a.wrapping_add(*b));
                let ys19 = xs
                    .clone()
                    .into_iter()
                    .map(|v18| {
                        let x20 = f3(n14, x17, k);
                        let x21 = inc(v18);
                        s1.push(n4)
                    })
                    .collect::<Vec<i64>>();
                let x22 = ys19.iter().fold(0i64, |a, b| a.wrapping_add(*b));
                m13 = f2(m13, v12);
            }
            match n14 % 3 {
                0 => {
                    let x23 = f2(lit(5), n14);
                    let n4 = f2(x23, m13);
                    let (x24, x25) = g2(n14);
                }
                1 => {
                    let x26 = f2(m13, n4);
                }
                _ => {
                    let x27 = f2(k, m3);
                    let x27 = f2(m13, k);
                }
            }
            i1 = inc(i1);
        }
        let ys29 = xs
            .clone()
            .into_iter()
            .map(|v28| {
                let mut m30 = -9;
                s0.peek()
            })
            .collect::<Vec<i64>>();
        let x31 = ys29.iter().fold(0i64, |a, b| a.wrapping_add(*b));
        let (cs0, as0) = s0.finish();
        let (cs1, as1) = s1.finish();
        (x31, i1, k, cs0, as0, cs1, as1)
    }
    pub fn seq(xs: Vec<i64>, k: i64) -> (i64, i64, i64, Vec<String>, i64, Vec<String>, i64) {
        let mut s0 = Log::new();
        let mut s1 = Log::new();
        let mut i1 = 0;
        while i1 < 3 {
            let mut m3 = 1;
            let n4 = k % 5;
            for v2 in 0..n4 {
                let ys6 = xs
                    .clone()
                    .into_iter()
                    .map(|v5| {
                        let x7 = s1.push(k);
                        inc(v5)
                    })
                    .collect::<Vec<i64>>();
                let x8 = ys6.iter().fold(0i64, |a, b| a.wrapping_add(*b));
                match n4 % 3 {
                    0 => {
                        let x9 = f2(m3, v2);
                        let x10 = f3(x8, m3, k);
                    }
                    1 => {
                        m3 = f2(m3, m3);
                    }
                    _ => {
                        let x11 = f3(k, m3, v2);
                    }
                }
                m3 = f2(m3, v2);
            }
            let mut m13 = 9;
            let n14 = n4 % 5;
            for v12 in 0..n14 {
                let ys16 = xs.clone().into_iter().map(|v15| s1.peek()).collect::<Vec<i64>>();
                let x17 = ys16.iter().fold(0i64, |a, b| a.wrapping_add(*b));
                let ys19 = xs
                    .clone()
                    .into_iter()
                    .map(|v18| {
                        let x20 = f3(n14, x17, k);
                        let x21 = inc(v18);
                        s1.push(n4)
                    })
                    .collect::<Vec<i64>>();
                let x22 = ys19.iter().fold(0i64, |a, b| a.wrapping_add(*b));
                m13 = f2(m13, v12);
            }
            match n14 % 3 {
                0 => {
                    let x23 = f2(lit(5), n14);
                    let n4 = f2(x23, m13);
                    let (x24, x25) = g2(n14);
                }
                1 => {
                    let x26 = f2(m13, n4);
                }
                _ => {
                    let x27 = f2(k, m3);
                    let x27 = f2(m13, k);
                }
            }
            i1 = inc(i1);
        }
        let ys29 = xs
            .clone()
            .into_iter()
            .map(|v28| {
                let mut m30 = -9;
                s0.peek()
            })
            .collect::<Vec<i64>>();
        let x31 = ys29.iter().fold(0i64, |a, b| a.wrapping_add(*b));
        let (cs0, as0) = s0.finish();
        let (cs1, as1) = s1.finish();
        (x31, i1, k, cs0, as0, cs1, as1)
    }
}

#[allow(unused, unused_mut, unused_variables, unused_assignments, unused_parens)]
mod p7 {
    use super::*;
    #[ohua::algorithm]
    pub fn alg(xs: Vec<i64>, k: i64) -> (i64, i64, i64, Vec<String>, i64, Vec<String>, i64) {
        let mut s0 = Log::new();
        let mut s1 = Log::new();
        let x8 = if k % 3 == 0 {
            let mut i1 = 0;
            while i1 < 2 {
                s0.push(k);
                if k <= 5 {
                    let x2 = f3(k, k, k);
                    s1.mark("t1");
                } else {
                    let mut m3 = -5;
                }
                let mut m5 = 5;
                for v4 in xs.clone() {
                    let x6 = f2(m5, k);
                    let x7 = s0.push(x6);
                    m5 = f2(m5, v4);
                }
                i1 = inc(i1);
            }
            inc(k)
        } else {
            f3(k, k, k)
        };
        let ys10 = xs
            .clone()
            .into_iter()
            .map(|v9| {
                let x11 = inc(v9);
                f2(v9, x11)
            })
            .collect::<Vec<i64>>();
        let x12 = ys10.iter().fold(0i64, |a, b| a.wrapping_add(*b));
        let ys14 = xs.clone().into_iter().map(|v13| f1(x8)).collect::<Vec<i64>>();
        let k = ys14.iter().fold(0i64, |a, b| a.wrapping_add(*b));
        let (cs0, as0) = s0.finish();
        let (cs1, as1) = s1.finish();
        (k, x12, x8, cs0, as0, cs1, as1)
    }
    pub fn seq(xs: Vec<i64>, k: i64) -> (i64, i64, i64, Vec<String>, i64, Vec<String>, i64) {
        let mut s0 = Log::new();
        let mut s1 = Log::new();
        let x8 = if k % 3 == 0 {
            let mut i1 = 0;
            while i1 < 2 {
                s0.push(k);
                if k <= 5 {
                    let x2 = f3(k, k, k);
                    s1.mark("t1");
                } else {
                    let mut m3 = -5;
                }
                let mut m5 = 5;
                for v4 in xs.clone() {
                    let x6 = f2(m5, k);
                    let x7 = s0.push(x6);
                    m5 = f2(m5, v4);
                }
                i1 = inc(i1);
            }
            inc(k)
        } else {
            f3(k, k, k)
        };
        let ys10 = xs
            .clone()
            .into_iter()
            .map(|v9| {
                let x11 = inc(v9);
                f2(v9, x11)
            })
            .collect::<Vec<i64>>();
        let x12 = ys10.iter().fold(0i64, |a, b| a.wrapping_add(*b));
        let ys14 = xs.clone().into_iter().map(|v13| f1(x8)).collect::<Vec<i64>>();
        let k = ys14.iter().fold(0i64, |a, b| a.wrapping_add(*b));
        let (cs0, as0) = s0.finish();
        let (cs1, as1) = s1.finish();
        (k, x12, x8, cs0, as0, cs1, as1)
    }
}

#[test]
fn generated_seed1_p1() {
    for (xs, k) in inputs() {
        eprintln!("xs={xs:?} k={k}");
        let want = p1::seq(xs.clone(), k);
        let got = within_10s(move || check(|| p1::alg(xs.clone(), k)));
        assert_eq!(got, want);
    }
}

#[test]
fn generated_seed1_p7() {
    for (xs, k) in inputs() {
        eprintln!("xs={xs:?} k={k}");
        let want = p7::seq(xs.clone(), k);
        let got = within_10s(move || check(|| p7::alg(xs.clone(), k)));
        assert_eq!(got, want);
    }
}

#[ohua::algorithm]
fn empty_inner_loops(k: i64, rounds: i64) -> (i64, i64) {
    let mut i = 0;
    let mut last = 0;
    while i < rounds {
        let mut m = 1;
        for v in 0..k {
            // Two uses: `m` is carried around the loop by a `carry` operator.
            let t = f2(m, v);
            m = inc(t);
        }
        last = m;
        i = inc(i);
    }
    (i, last)
}

#[test]
fn empty_inner_loops_do_not_fill_the_feedback_arc() {
    use ohua::{Deployment, SectionStrategy};
    let want = ohua::sequential(|| empty_inner_loops(0, 50));
    for seed in 0..8 {
        let d = Deployment::default()
            .workers(2)
            .sections(SectionStrategy::Random { sections: 3, seed })
            .batch_size(1)
            .arc_capacity(1);
        let got = within_10s(move || ohua::with_deployment(d, || empty_inner_loops(0, 50)));
        assert_eq!(got, want, "seed {seed}");
    }
    assert_eq!(check(|| empty_inner_loops(3, 5)).0, 5);
}

fn bump(x: i64) -> i64 {
    x * 10 + 1
}

/// BUG (fixed): a statement whose `let` shadowed one of the node's sticky or
/// threaded inputs (`let k = bump(k);` with `k` from outside the loop) returned
/// the shadowing binding to the sticky slot, so every iteration saw the
/// previous iteration's result instead of the outer `k`. Found by the program
/// generator (seed 1, program 243).
#[ohua::algorithm]
fn shadow_captured(xs: Vec<i64>, k: i64) -> Vec<i64> {
    let ys: Vec<i64> = xs
        .into_iter()
        .map(|x| {
            let k = bump(k);
            k + x
        })
        .collect();
    ys
}

#[test]
fn shadowing_a_captured_value_in_a_loop() {
    assert_eq!(check(|| shadow_captured(vec![0, 0, 0], 1)), vec![11, 11, 11]);
}

/// BUG (fixed): `x = x.method(..)` made the macro panic in every debug
/// build ("attempt to subtract with overflow" in the compiler's use scan).
/// This file is also built in the dev profile by `.ci/run`.
#[algorithm]
fn reassigning_through_a_method_of_the_same_name(xs: Vec<u64>) -> (u64, u64) {
    let mut peak = 0;
    let mut low = u64::MAX;
    for n in xs {
        peak = peak.max(n);
        low = low.min(n);
    }
    (peak, low)
}

#[test]
fn reassigning_through_a_method_of_the_same_name_compiles_and_runs() {
    let got = check(|| reassigning_through_a_method_of_the_same_name(vec![3, 9, 1, 7]));
    assert_eq!(got, (9, 1));
}
