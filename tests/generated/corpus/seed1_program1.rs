#[allow(unused, unused_mut, unused_variables, unused_assignments, unused_parens)]
mod p1 {
    use super::*;
    #[ohua::algorithm]
    pub fn alg(xs: Vec<i64>, k: i64, ra: &Source<GenDb>, rb: &Source<GenDb>, rc: &Source<GenDb>) -> (i64, i64, i64, Vec<String>, i64, Vec<String>, i64,) {
        let mut s0 = Log::new();
        let mut s1 = Log::new();
        let r1 = ra.fetch(k % 4);
        let x2 = r1.unwrap_or(-1);
        let x3 = f2(k, x2);
        s1.push(k);
        match x3 % 3 {
            0 => {
                let mut m5 = -8;
                let n6 = x3 % 5;
                for v4 in 0..n6 {
                    let mut sa7 = text(m5);
                    let mut sb8 = text(k);
                    let st9 = sa7;
                    sa7 = sb8;
                    sb8 = st9;
                    let x10 = measure(sa7, sb8);
                    let mut sa11 = text(m5);
                    let mut sb12 = text(n6);
                    let st13 = sa11;
                    sa11 = sb12;
                    sb12 = st13;
                    let x14 = measure(sa11, sb12);
                    m5 = f2(m5, v4);
                }
                let om15 = pick(k);
                let x17 = if om15.is_some() {
                    let pv16 = om15.unwrap();
                    measure1(pv16)
                } else {
                    lit(m5)
                };
            }
            1 => {
                let mut m19 = 9;
                let n20 = x2 % 5;
                for v18 in 0..n20 {
                    let r21 = rb.fetch(lit(13));
                    let x22 = r21.unwrap_or(-1);
                    let mut sa23 = text(v18);
                    let mut sb24 = text(k);
                    let st25 = sa23;
                    sa23 = sb24;
                    sb24 = st25;
                    let x26 = measure(sa23, sb24);
                    m19 = f2(m19, v18);
                }
                let r27 = rb.fetch(x2 % 4);
                let x28 = r27.unwrap_or(-1);
            }
            _ => {
                let (x29, x30) = g2(x2);
            }
        }
        let r31 = rb.fetch(x3 % 4);
        let x32 = r31.unwrap_or(-1);
        let x42 = match k % 3 {
            0 => {
                x2
            }
            1 => {
                match k % 3 {
                    0 => {
                        let mut sa33 = text(x3);
                        let mut sb34 = text(x2);
                        let st35 = sa33;
                        sa33 = sb34;
                        sb34 = st35;
                        let x36 = measure(sa33, sb34);
                        let r37 = rb.fetch(x36 % 4);
                        let x38 = r37.unwrap_or(-1);
                        let x39 = inc(x38);
                    }
                    1 => {
                        let x40 = f2(x3, x32);
                        let mut m41 = -2;
                    }
                    _ => {
                    }
                }
                k
            }
            _ => {
                inc(x3)
            }
        };
        let (cs0, as0) = s0.finish();
        let (cs1, as1) = s1.finish();
        (x42, x32, x3, cs0, as0, cs1, as1,)
    }
    pub fn seq(xs: Vec<i64>, k: i64, ra: &Source<GenDb>, rb: &Source<GenDb>, rc: &Source<GenDb>) -> (i64, i64, i64, Vec<String>, i64, Vec<String>, i64,) {
        let mut s0 = Log::new();
        let mut s1 = Log::new();
        let r1 = ra.fetch(k % 4);
        let x2 = r1.unwrap_or(-1);
        let x3 = f2(k, x2);
        s1.push(k);
        match x3 % 3 {
            0 => {
                let mut m5 = -8;
                let n6 = x3 % 5;
                for v4 in 0..n6 {
                    let mut sa7 = text(m5);
                    let mut sb8 = text(k);
                    let st9 = sa7;
                    sa7 = sb8;
                    sb8 = st9;
                    let x10 = measure(sa7, sb8);
                    let mut sa11 = text(m5);
                    let mut sb12 = text(n6);
                    let st13 = sa11;
                    sa11 = sb12;
                    sb12 = st13;
                    let x14 = measure(sa11, sb12);
                    m5 = f2(m5, v4);
                }
                let om15 = pick(k);
                let x17 = if om15.is_some() {
                    let pv16 = om15.unwrap();
                    measure1(pv16)
                } else {
                    lit(m5)
                };
            }
            1 => {
                let mut m19 = 9;
                let n20 = x2 % 5;
                for v18 in 0..n20 {
                    let r21 = rb.fetch(lit(13));
                    let x22 = r21.unwrap_or(-1);
                    let mut sa23 = text(v18);
                    let mut sb24 = text(k);
                    let st25 = sa23;
                    sa23 = sb24;
                    sb24 = st25;
                    let x26 = measure(sa23, sb24);
                    m19 = f2(m19, v18);
                }
                let r27 = rb.fetch(x2 % 4);
                let x28 = r27.unwrap_or(-1);
            }
            _ => {
                let (x29, x30) = g2(x2);
            }
        }
        let r31 = rb.fetch(x3 % 4);
        let x32 = r31.unwrap_or(-1);
        let x42 = match k % 3 {
            0 => {
                x2
            }
            1 => {
                match k % 3 {
                    0 => {
                        let mut sa33 = text(x3);
                        let mut sb34 = text(x2);
                        let st35 = sa33;
                        sa33 = sb34;
                        sb34 = st35;
                        let x36 = measure(sa33, sb34);
                        let r37 = rb.fetch(x36 % 4);
                        let x38 = r37.unwrap_or(-1);
                        let x39 = inc(x38);
                    }
                    1 => {
                        let x40 = f2(x3, x32);
                        let mut m41 = -2;
                    }
                    _ => {
                    }
                }
                k
            }
            _ => {
                inc(x3)
            }
        };
        let (cs0, as0) = s0.finish();
        let (cs1, as1) = s1.finish();
        (x42, x32, x3, cs0, as0, cs1, as1,)
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
