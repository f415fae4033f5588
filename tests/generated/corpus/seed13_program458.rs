#[allow(unused, unused_mut, unused_variables, unused_assignments, unused_parens)]
mod p458 {
    use super::*;
    #[ohua::algorithm]
    pub fn alg(xs: Vec<i64>, k: i64, ra: &Source<GenDb>, rb: &Source<GenDb>, rc: &Source<GenDb>) -> (i64, i64, i64, Vec<String>, i64, Vec<String>, i64, Vec<String>, i64,) {
        let mut s0 = Log::new();
        let mut s1 = Log::new();
        let mut s2 = Log::new();
        let (x1, x2) = (f3(lit(9), k, k), f3(k, k, k));
        let mut sa3 = text(k);
        let mut sb4 = text(x1);
        let st5 = sa3;
        sa3 = sb4;
        sb4 = st5;
        let x6 = measure(sa3, sb4);
        let ys8 = xs.clone().into_iter().map(|v7| {
            let x10 = if lit(4) > v7 {
                let x9 = f1(v7);
                x6
            } else {
                f2(v7, x6)
            };
            let mut sa11 = text(x2);
            let mut sb12 = text(x2);
            let st13 = sa11;
            sa11 = sb12;
            sb12 = st13;
            let x14 = measure(sa11, sb12);
            f2(k, x14)
        }).collect::<Vec<i64>>();
        let x15 = ys8.iter().fold(0i64, |a, b| a.wrapping_add(*b));
        match x6 % 3 {
            0 => {
                let x20 = if lit(-4) > lit(9) {
                    s0.push(x2);
                    s2.peek()
                } else {
                    let mut sa16 = text(x1);
                    let mut sb17 = text(x1);
                    let st18 = sa16;
                    sa16 = sb17;
                    sb17 = st18;
                    let x19 = measure(sa16, sb17);
                    inc(k)
                };
                let r21 = ra.fetch(lit(-7) % 4);
                let x22 = r21.unwrap_or(-1);
            }
            1 if x1 % 3 == 0 => {
                s1.mark("t1");
                let x23 = f1(k);
                let mut m25 = -2;
                let n26 = x15 % 5;
                for v24 in 0..n26 {
                    m25 = f2(m25, m25);
                    let mut sa27 = text(x23);
                    let mut sb28 = text(x6);
                    let st29 = sa27;
                    sa27 = sb28;
                    sb28 = st29;
                    let x30 = measure(sa27, sb28);
                    m25 = f2(m25, v24);
                }
            }
            1 => {
                if x15 <= 5 {
                    let mut sa31 = text(x2);
                    let mut sb32 = text(x15);
                    let st33 = sa31;
                    sa31 = sb32;
                    sb32 = st33;
                    let x34 = measure(sa31, sb32);
                    let x35 = s2.peek();
                    let r36 = ra.fetch(x34 % 4);
                    let x37 = r36.unwrap_or(-1);
                } else {
                    let (x38, x39) = (f1(x15), f3(x15, x15, k));
                    let (x40, x41) = (f2(x1, x2), f3(x38, x1, x2));
                }
            }
            _ => {
                let r42 = ra.fetch(x15 % 4);
                let x43 = r42.unwrap_or(-1);
                let x44 = f1(x15);
                let x45 = if lit(-1) % 3 == 0 {
                    x6
                } else {
                    x2
                };
            }
        }
        let ys47 = xs.clone().into_iter().map(|v46| {
            f1(v46)
        }).collect::<Vec<i64>>();
        let x48 = ys47.iter().fold(0i64, |a, b| a.wrapping_add(*b));
        let x49 = f3(x2, lit(6), x15);
        let r50 = ra.fetch(x49 % 4);
        let x48 = r50.unwrap_or(-1);
        let (cs0, as0) = s0.finish();
        let (cs1, as1) = s1.finish();
        let (cs2, as2) = s2.finish();
        (x48, x49, x15, cs0, as0, cs1, as1, cs2, as2,)
    }
    pub fn seq(xs: Vec<i64>, k: i64, ra: &Source<GenDb>, rb: &Source<GenDb>, rc: &Source<GenDb>) -> (i64, i64, i64, Vec<String>, i64, Vec<String>, i64, Vec<String>, i64,) {
        let mut s0 = Log::new();
        let mut s1 = Log::new();
        let mut s2 = Log::new();
        let (x1, x2) = (f3(lit(9), k, k), f3(k, k, k));
        let mut sa3 = text(k);
        let mut sb4 = text(x1);
        let st5 = sa3;
        sa3 = sb4;
        sb4 = st5;
        let x6 = measure(sa3, sb4);
        let ys8 = xs.clone().into_iter().map(|v7| {
            let x10 = if lit(4) > v7 {
                let x9 = f1(v7);
                x6
            } else {
                f2(v7, x6)
            };
            let mut sa11 = text(x2);
            let mut sb12 = text(x2);
            let st13 = sa11;
            sa11 = sb12;
            sb12 = st13;
            let x14 = measure(sa11, sb12);
            f2(k, x14)
        }).collect::<Vec<i64>>();
        let x15 = ys8.iter().fold(0i64, |a, b| a.wrapping_add(*b));
        match x6 % 3 {
            0 => {
                let x20 = if lit(-4) > lit(9) {
                    s0.push(x2);
                    s2.peek()
                } else {
                    let mut sa16 = text(x1);
                    let mut sb17 = text(x1);
                    let st18 = sa16;
                    sa16 = sb17;
                    sb17 = st18;
                    let x19 = measure(sa16, sb17);
                    inc(k)
                };
                let r21 = ra.fetch(lit(-7) % 4);
                let x22 = r21.unwrap_or(-1);
            }
            1 if x1 % 3 == 0 => {
                s1.mark("t1");
                let x23 = f1(k);
                let mut m25 = -2;
                let n26 = x15 % 5;
                for v24 in 0..n26 {
                    m25 = f2(m25, m25);
                    let mut sa27 = text(x23);
                    let mut sb28 = text(x6);
                    let st29 = sa27;
                    sa27 = sb28;
                    sb28 = st29;
                    let x30 = measure(sa27, sb28);
                    m25 = f2(m25, v24);
                }
            }
            1 => {
                if x15 <= 5 {
                    let mut sa31 = text(x2);
                    let mut sb32 = text(x15);
                    let st33 = sa31;
                    sa31 = sb32;
                    sb32 = st33;
                    let x34 = measure(sa31, sb32);
                    let x35 = s2.peek();
                    let r36 = ra.fetch(x34 % 4);
                    let x37 = r36.unwrap_or(-1);
                } else {
                    let (x38, x39) = (f1(x15), f3(x15, x15, k));
                    let (x40, x41) = (f2(x1, x2), f3(x38, x1, x2));
                }
            }
            _ => {
                let r42 = ra.fetch(x15 % 4);
                let x43 = r42.unwrap_or(-1);
                let x44 = f1(x15);
                let x45 = if lit(-1) % 3 == 0 {
                    x6
                } else {
                    x2
                };
            }
        }
        let ys47 = xs.clone().into_iter().map(|v46| {
            f1(v46)
        }).collect::<Vec<i64>>();
        let x48 = ys47.iter().fold(0i64, |a, b| a.wrapping_add(*b));
        let x49 = f3(x2, lit(6), x15);
        let r50 = ra.fetch(x49 % 4);
        let x48 = r50.unwrap_or(-1);
        let (cs0, as0) = s0.finish();
        let (cs1, as1) = s1.finish();
        let (cs2, as2) = s2.finish();
        (x48, x49, x15, cs0, as0, cs1, as1, cs2, as2,)
    }
    pub fn run(inputs: &[(Vec<i64>, i64)]) -> Result<(), String> {
        for (xs, k) in inputs {
            let (ra, rb, rc) = (Source::new(GenDb::default()), Source::new(GenDb::default()), Source::new(GenDb::default()));
            let want = seq(xs.clone(), *k, &ra, &rb, &rc);
            let got = check_io(|ra, rb, rc| alg(xs.clone(), *k, ra, rb, rc))?;
            if got != want {
                return Err(format!("xs={xs:?} k={k}: algorithm {got:?} != plain {want:?}"));
            }
        }
        Ok(())
    }
}
