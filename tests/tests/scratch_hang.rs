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

#[allow(unused, unused_mut, unused_variables, unused_assignments, unused_parens)]
mod p3 {
    use super::*;
    #[ohua::algorithm]
    pub fn alg(xs: Vec<i64>, k: i64) -> (i64, i64, i64, Vec<String>, i64, Vec<String>, i64) {
        let mut s0 = Log::new();
        let mut s1 = Log::new();
        let x1 = inc(k);
        s1.mark("t1");
        let x2 = if k > k { x1 } else { inc(k) };
        let x3 = f3(x2, k, x1);
        let x10 = match x1 % 3 {
            0 => {
                let ys5 = xs.clone().into_iter().map(|v4| f3(x2, x3, v4)).collect::<Vec<i64>>();
                let x6 = ys5.iter().fold(0i64, |a, b| a.wrapping_add(*b));
                s0.peek()
            }
            1 => s0.push(x1),
            _ => {
                let mut m8 = -1;
                for v7 in xs.clone() {
                    let x2 = f1(x2);
                    let x9 = inc(v7);
                    let x1 = inc(x1);
                    m8 = f2(m8, v7);
                }
                m8 = f2(m8, x3);
                s1.push(m8)
            }
        };
        let x11 = inc(k);
        let x12 = f3(k, lit(0), x10);
        let x13 = s0.push(x10);
        if x12 % 3 == 0 {
            match x12 % 3 {
                0 => {
                    let x14 = inc(x10);
                    s1.push(x13);
                    let x15 = f1(x10);
                }
                1 if k > k => {
                    let x16 = s0.push(k);
                    s1.mark("t2");
                }
                1 => {}
                _ => {}
            }
        } else if x12 > x13 {
        }
        let (cs0, as0) = s0.finish();
        let (cs1, as1) = s1.finish();
        (x13, x12, x11, cs0, as0, cs1, as1)
    }
    pub fn seq(xs: Vec<i64>, k: i64) -> (i64, i64, i64, Vec<String>, i64, Vec<String>, i64) {
        let mut s0 = Log::new();
        let mut s1 = Log::new();
        let x1 = inc(k);
        s1.mark("t1");
        let x2 = if k > k { x1 } else { inc(k) };
        let x3 = f3(x2, k, x1);
        let x10 = match x1 % 3 {
            0 => {
                let ys5 = xs.clone().into_iter().map(|v4| f3(x2, x3, v4)).collect::<Vec<i64>>();
                let x6 = ys5.iter().fold(0i64, |a, b| a.wrapping_add(*b));
                s0.peek()
            }
            1 => s0.push(x1),
            _ => {
                let mut m8 = -1;
                for v7 in xs.clone() {
                    let x2 = f1(x2);
                    let x9 = inc(v7);
                    let x1 = inc(x1);
                    m8 = f2(m8, v7);
                }
                m8 = f2(m8, x3);
                s1.push(m8)
            }
        };
        let x11 = inc(k);
        let x12 = f3(k, lit(0), x10);
        let x13 = s0.push(x10);
        if x12 % 3 == 0 {
            match x12 % 3 {
                0 => {
                    let x14 = inc(x10);
                    s1.push(x13);
                    let x15 = f1(x10);
                }
                1 if k > k => {
                    let x16 = s0.push(k);
                    s1.mark("t2");
                }
                1 => {}
                _ => {}
            }
        } else if x12 > x13 {
        }
        let (cs0, as0) = s0.finish();
        let (cs1, as1) = s1.finish();
        (x13, x12, x11, cs0, as0, cs1, as1)
    }
    pub fn run(inputs: &[(Vec<i64>, i64)]) -> Result<(), String> {
        for (xs, k) in inputs {
            let want = seq(xs.clone(), *k);
            let got = check(|| alg(xs.clone(), *k));
            if got != want {
                return Err(format!("xs={xs:?} k={k}: algorithm {got:?} != plain {want:?}"));
            }
        }
        Ok(())
    }
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
#[test]
fn scratch() {
    for (xs, k) in inputs() {
        let want = p3::seq(xs.clone(), k);
        for (name, d) in ohua_conformance::deployments() {
            let t = std::time::Instant::now();
            let (xs2, tx_rx) = (xs.clone(), std::sync::mpsc::channel());
            let (tx, rx) = tx_rx;
            std::thread::spawn(move || {
                let _ = tx.send(ohua::with_deployment(d, || p3::alg(xs2, k)));
            });
            match rx.recv_timeout(std::time::Duration::from_secs(5)) {
                Ok(got) => {
                    assert_eq!(got, want);
                }
                Err(_) => {
                    eprintln!("HUNG xs={xs:?} k={k} {name}");
                }
            }
            let e = t.elapsed();
            if e.as_millis() > 200 {
                eprintln!("slow {e:?} xs={xs:?} k={k} {name}");
            }
        }
    }
}
