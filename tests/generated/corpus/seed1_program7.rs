#[allow(unused, unused_mut, unused_variables, unused_assignments, unused_parens)]
mod p7 {
    use super::*;
    #[ohua::algorithm]
    pub fn alg(xs: Vec<i64>, k: i64) -> (i64, i64, i64, i64, Vec<String>, i64, Vec<String>, i64,) {
        let mut s0 = Log::new();
        let mut s1 = Log::new();
        let x1 = f1(k);
        s1.mark("t1");
        let mut m3 = -3;
        let n4 = k % 5;
        for v2 in (0..n4).filter(|j: &i64| (*j).wrapping_add(x1) % 2 == 0) {
            let mut m6 = -1;
            for v5 in xs.clone() {
                s0.mark("t2");
                let ys8 = xs.clone().into_iter().map(|v7| {
                    let mut m9 = 0;
                    f2(x1, v7)
                }).collect::<Vec<i64>>();
                let x10 = ys8.iter().fold(0i64, |a, b| a.wrapping_add(*b));
                let x11 = s0.push(v5);
                m6 = f2(m6, v5);
            }
            m3 = f2(m3, v2);
        }
        let x1 = s1.push(x1);
        let mut i12 = 0;
        while i12 < 1 {
            let mut i13 = 0;
            while i13 < 1 {
                let x1 = match x1 % 3 {
                    0 => {
                        f3(x1, x1, x1)
                    }
                    1 => {
                        let mut sa14 = text(n4);
                        let mut sb15 = text(k);
                        let st16 = sa14;
                        sa14 = sb15;
                        sb15 = st16;
                        let x17 = measure(sa14, sb15);
                        f2(n4, m3)
                    }
                    _ => {
                        x1
                    }
                };
                let x19 = if n4 % 3 == 0 {
                    let x18 = f2(m3, n4);
                    f2(n4, x18)
                } else {
                    inc(x1)
                };
                let x21 = if x1 <= 7 {
                    lit(2)
                } else {
                    m3 = f2(m3, x1);
                    let x20 = inc(n4);
                    x19
                };
                i13 = inc(i13);
            }
            let mut m23 = 7;
            let n24 = i13 % 5;
            for v22 in (0..n24).filter(|j: &i64| (*j).wrapping_add(x1) % 2 == 0) {
                let ys26 = xs.clone().into_iter().map(|v25| {
                    let mut sa27 = text(x1);
                    let mut sb28 = text(v25);
                    let st29 = sa27;
                    sa27 = sb28;
                    sb28 = st29;
                    let x30 = measure(sa27, sb28);
                    f3(x1, m3, x1)
                }).collect::<Vec<i64>>();
                let x31 = ys26.iter().fold(0i64, |a, b| a.wrapping_add(*b));
                m23 = f2(m23, v22);
            }
            let x32 = f1(m23);
            i12 = inc(i12);
        }
        let mut sa33 = text(m3);
        let mut sb34 = text(k);
        let st35 = sa33;
        sa33 = sb34;
        sb34 = st35;
        let x36 = measure(sa33, sb34);
        let x37 = inc(lit(-8));
        let x40 = if n4 % 3 == 0 {
            let x38 = s0.peek();
            s1.mark("t3");
            s1.peek()
        } else {
            let x39 = f2(x37, x1);
            x1
        };
        let mut sa41 = text(lit(6));
        let mut sb42 = text(k);
        let st43 = sa41;
        sa41 = sb42;
        sb42 = st43;
        let x44 = measure(sa41, sb42);
        let mut sa45 = text(x40);
        let mut sb46 = text(m3);
        let st47 = sa45;
        sa45 = sb46;
        sb46 = st47;
        let x48 = measure(sa45, sb46);
        s0.mark("t4");
        let ys50 = xs.clone().into_iter().map(|v49| {
            inc(i12)
        }).collect::<Vec<i64>>();
        let x51 = ys50.iter().fold(0i64, |a, b| a.wrapping_add(*b));
        let x52 = f2(m3, x44);
        m3 = f2(m3, k);
        let (cs0, as0) = s0.finish();
        let (cs1, as1) = s1.finish();
        (x52, x51, x48, m3, cs0, as0, cs1, as1,)
    }
    pub fn seq(xs: Vec<i64>, k: i64) -> (i64, i64, i64, i64, Vec<String>, i64, Vec<String>, i64,) {
        let mut s0 = Log::new();
        let mut s1 = Log::new();
        let x1 = f1(k);
        s1.mark("t1");
        let mut m3 = -3;
        let n4 = k % 5;
        for v2 in (0..n4).filter(|j: &i64| (*j).wrapping_add(x1) % 2 == 0) {
            let mut m6 = -1;
            for v5 in xs.clone() {
                s0.mark("t2");
                let ys8 = xs.clone().into_iter().map(|v7| {
                    let mut m9 = 0;
                    f2(x1, v7)
                }).collect::<Vec<i64>>();
                let x10 = ys8.iter().fold(0i64, |a, b| a.wrapping_add(*b));
                let x11 = s0.push(v5);
                m6 = f2(m6, v5);
            }
            m3 = f2(m3, v2);
        }
        let x1 = s1.push(x1);
        let mut i12 = 0;
        while i12 < 1 {
            let mut i13 = 0;
            while i13 < 1 {
                let x1 = match x1 % 3 {
                    0 => {
                        f3(x1, x1, x1)
                    }
                    1 => {
                        let mut sa14 = text(n4);
                        let mut sb15 = text(k);
                        let st16 = sa14;
                        sa14 = sb15;
                        sb15 = st16;
                        let x17 = measure(sa14, sb15);
                        f2(n4, m3)
                    }
                    _ => {
                        x1
                    }
                };
                let x19 = if n4 % 3 == 0 {
                    let x18 = f2(m3, n4);
                    f2(n4, x18)
                } else {
                    inc(x1)
                };
                let x21 = if x1 <= 7 {
                    lit(2)
                } else {
                    m3 = f2(m3, x1);
                    let x20 = inc(n4);
                    x19
                };
                i13 = inc(i13);
            }
            let mut m23 = 7;
            let n24 = i13 % 5;
            for v22 in (0..n24).filter(|j: &i64| (*j).wrapping_add(x1) % 2 == 0) {
                let ys26 = xs.clone().into_iter().map(|v25| {
                    let mut sa27 = text(x1);
                    let mut sb28 = text(v25);
                    let st29 = sa27;
                    sa27 = sb28;
                    sb28 = st29;
                    let x30 = measure(sa27, sb28);
                    f3(x1, m3, x1)
                }).collect::<Vec<i64>>();
                let x31 = ys26.iter().fold(0i64, |a, b| a.wrapping_add(*b));
                m23 = f2(m23, v22);
            }
            let x32 = f1(m23);
            i12 = inc(i12);
        }
        let mut sa33 = text(m3);
        let mut sb34 = text(k);
        let st35 = sa33;
        sa33 = sb34;
        sb34 = st35;
        let x36 = measure(sa33, sb34);
        let x37 = inc(lit(-8));
        let x40 = if n4 % 3 == 0 {
            let x38 = s0.peek();
            s1.mark("t3");
            s1.peek()
        } else {
            let x39 = f2(x37, x1);
            x1
        };
        let mut sa41 = text(lit(6));
        let mut sb42 = text(k);
        let st43 = sa41;
        sa41 = sb42;
        sb42 = st43;
        let x44 = measure(sa41, sb42);
        let mut sa45 = text(x40);
        let mut sb46 = text(m3);
        let st47 = sa45;
        sa45 = sb46;
        sb46 = st47;
        let x48 = measure(sa45, sb46);
        s0.mark("t4");
        let ys50 = xs.clone().into_iter().map(|v49| {
            inc(i12)
        }).collect::<Vec<i64>>();
        let x51 = ys50.iter().fold(0i64, |a, b| a.wrapping_add(*b));
        let x52 = f2(m3, x44);
        m3 = f2(m3, k);
        let (cs0, as0) = s0.finish();
        let (cs1, as1) = s1.finish();
        (x52, x51, x48, m3, cs0, as0, cs1, as1,)
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
