#[allow(unused, unused_mut, unused_variables, unused_assignments, unused_parens)]
mod p97 {
    use super::*;
    #[ohua::algorithm]
    pub fn alg(xs: Vec<i64>, k: i64, ra: &Source<GenDb>, rb: &Source<GenDb>, rc: &Source<GenDb>) -> (i64, i64, i64, i64, Vec<String>, i64, Vec<String>, i64, Vec<String>, i64, Vec<(i64, Vec<String>, i64)>,) {
        let mut s0 = Log::new();
        let mut s1 = Log::new();
        let mut s2 = Log::new();
        let mut ks = ohua::keyed(KeyedLog::new());
        let mut m2 = -6;
        let n3 = k % 5;
        for v1 in 0..n3 {
            let kk4 = v1 % 5;
            ks.record(&kk4, k);
            let r5 = ra.fetch(v1 % 4);
            let x6 = r5.unwrap_or(-1);
            let (x7, x8) = (f2(x6, v1), inc(x6));
            let x11 = if m2 > x7 {
                let r9 = rb.write((k % 4, v1));
                let x10 = r9.unwrap_or(0);
                let k = ks.record(&kk4, x6);
                f3(x8, x8, x8)
            } else {
                v1
            };
            m2 = f2(m2, v1);
        }
        s2.push(lit(5));
        let ys13 = xs.clone().into_iter().map(|v12| {
            inc(m2)
        }).collect::<Vec<i64>>();
        let x14 = ys13.iter().fold(0i64, |a, b| a.wrapping_add(*b));
        if x14 % 3 == 0 {
            let n3 = s2.push(k);
            let mut sa15 = text(n3);
            let mut sb16 = text(n3);
            let st17 = sa15;
            sa15 = sb16;
            sb16 = st17;
            let x18 = measure(sa15, sb16);
        } else {
            let _ = rb.write((lit(-6) % 4, m2));
            let x14 = inc(n3);
        }
        match n3 % 3 {
            0 => {
                let x21 = inc(n3);
                let x22 = inc(k);
                m2 = f2(m2, x21);
            }
            1 if x14 > m2 => {
                let x23 = f1(m2);
                let r24 = ra.fetch(n3 % 4);
                let x25 = r24.unwrap_or(-1);
                let mut i26 = 0;
                while i26 < 2 {
                    let x27 = s0.push(x14);
                    let mut sa28 = text(lit(-8));
                    let mut sb29 = text(lit(-4));
                    let st30 = sa28;
                    sa28 = sb29;
                    sb29 = st30;
                    let k = measure(sa28, sb29);
                    i26 = inc(i26);
                }
            }
            1 => {
                if x14 % 3 == 0 {
                    s0.mark("t1");
                    s2.push(x14);
                } else if m2 <= 8 {
                    let mut sa31 = text(k);
                    let mut sb32 = text(n3);
                    let st33 = sa31;
                    sa31 = sb32;
                    sb32 = st33;
                    let x34 = measure(sa31, sb32);
                } else {
                }
            }
            _ => {
            }
        }
        let (cs0, as0) = s0.finish();
        let (cs1, as1) = s1.finish();
        let (cs2, as2) = s2.finish();
        let fks = ks.finish();
        (x14, n3, k, m2, cs0, as0, cs1, as1, cs2, as2, fks,)
    }
    pub fn seq(xs: Vec<i64>, k: i64, ra: &Source<GenDb>, rb: &Source<GenDb>, rc: &Source<GenDb>) -> (i64, i64, i64, i64, Vec<String>, i64, Vec<String>, i64, Vec<String>, i64, Vec<(i64, Vec<String>, i64)>,) {
        let mut s0 = Log::new();
        let mut s1 = Log::new();
        let mut s2 = Log::new();
        let mut ks = ohua::keyed(KeyedLog::new());
        let mut m2 = -6;
        let n3 = k % 5;
        for v1 in 0..n3 {
            let kk4 = v1 % 5;
            ks.record(&kk4, k);
            let r5 = ra.fetch(v1 % 4);
            let x6 = r5.unwrap_or(-1);
            let (x7, x8) = (f2(x6, v1), inc(x6));
            let x11 = if m2 > x7 {
                let r9 = rb.write((k % 4, v1));
                let x10 = r9.unwrap_or(0);
                let k = ks.record(&kk4, x6);
                f3(x8, x8, x8)
            } else {
                v1
            };
            m2 = f2(m2, v1);
        }
        s2.push(lit(5));
        let ys13 = xs.clone().into_iter().map(|v12| {
            inc(m2)
        }).collect::<Vec<i64>>();
        let x14 = ys13.iter().fold(0i64, |a, b| a.wrapping_add(*b));
        if x14 % 3 == 0 {
            let n3 = s2.push(k);
            let mut sa15 = text(n3);
            let mut sb16 = text(n3);
            let st17 = sa15;
            sa15 = sb16;
            sb16 = st17;
            let x18 = measure(sa15, sb16);
        } else {
            let _ = rb.write((lit(-6) % 4, m2));
            let x14 = inc(n3);
        }
        match n3 % 3 {
            0 => {
                let x21 = inc(n3);
                let x22 = inc(k);
                m2 = f2(m2, x21);
            }
            1 if x14 > m2 => {
                let x23 = f1(m2);
                let r24 = ra.fetch(n3 % 4);
                let x25 = r24.unwrap_or(-1);
                let mut i26 = 0;
                while i26 < 2 {
                    let x27 = s0.push(x14);
                    let mut sa28 = text(lit(-8));
                    let mut sb29 = text(lit(-4));
                    let st30 = sa28;
                    sa28 = sb29;
                    sb29 = st30;
                    let k = measure(sa28, sb29);
                    i26 = inc(i26);
                }
            }
            1 => {
                if x14 % 3 == 0 {
                    s0.mark("t1");
                    s2.push(x14);
                } else if m2 <= 8 {
                    let mut sa31 = text(k);
                    let mut sb32 = text(n3);
                    let st33 = sa31;
                    sa31 = sb32;
                    sb32 = st33;
                    let x34 = measure(sa31, sb32);
                } else {
                }
            }
            _ => {
            }
        }
        let (cs0, as0) = s0.finish();
        let (cs1, as1) = s1.finish();
        let (cs2, as2) = s2.finish();
        let fks = ks.finish();
        (x14, n3, k, m2, cs0, as0, cs1, as1, cs2, as2, fks,)
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
