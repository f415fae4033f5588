#[allow(unused, unused_mut, unused_variables, unused_assignments, unused_parens)]
mod p404 {
    use super::*;
    #[ohua::algorithm]
    pub mod a {
        use super::*;
        #[algorithm]
        pub fn helper(a: i64, s: Log) -> (i64, Log) {
            let mut s = s;
            let om1001 = pick(a);
            let x1003 = if om1001.is_some() {
                let pv1002 = om1001.unwrap();
                measure1(pv1002)
            } else {
                lit(a)
            };
            s.push(lit(-4));
            let x1004 = f1(x1003);
            s.mark("t1001");
            if a % 3 == 0 {
                s.mark("t1002");
            } else if a <= 8 {
                s.mark("t1003");
            }
            let mut sa1005 = text(x1003);
            let mut sb1006 = text(x1004);
            let st1007 = sa1005;
            sa1005 = sb1006;
            sb1006 = st1007;
            let x1008 = measure(sa1005, sb1006);
            (x1004, s)
        }
        #[algorithm]
        pub fn alg(xs: Vec<i64>, k: i64) -> (i64, i64, Vec<String>, i64, Vec<String>, i64, Vec<(i64, Vec<String>, i64)>,) {
            let mut s0 = Log::new();
            let mut s1 = Log::new();
            let mut ks = ohua::keyed(KeyedLog::new());
            match k % 3 {
                0 => {
                    let mut sa1 = text(k);
                    let mut sb2 = text(k);
                    let st3 = sa1;
                    sa1 = sb2;
                    sb2 = st3;
                    let x4 = measure(sa1, sb2);
                    let ys6 = xs.clone().into_iter().map(|v5| {
                        let v5 = s0.peek();
                        let mut sa7 = text(v5);
                        let mut sb8 = text(k);
                        let st9 = sa7;
                        sa7 = sb8;
                        sb8 = st9;
                        let x4 = measure(sa7, sb8);
                        f3(lit(-10), x4, lit(-5))
                    }).collect::<Vec<i64>>();
                    let x10 = ys6.iter().fold(0i64, |a, b| a.wrapping_add(*b));
                    let mut m12 = -2;
                    for v11 in xs.clone() {
                        let kk13 = v11 % 5;
                        s0.push(v11);
                        let x14 = ks.record(&kk13, v11);
                        m12 = f2(m12, v11);
                    }
                }
                1 if k <= -3 => {
                    let (x15, x16) = (f2(k, k), f3(k, k, k));
                    let (x17, x18) = (f3(k, k, k), f2(k, k));
                    let x19 = f2(x15, x15);
                }
                1 => {
                    let (x20, x21) = (f2(k, k), f1(lit(9)));
                    let ys23 = xs.clone().into_iter().map(|v22| {
                        s0.push(lit(3));
                        let mut sa24 = text(x21);
                        let mut sb25 = text(v22);
                        let st26 = sa24;
                        sa24 = sb25;
                        sb25 = st26;
                        let x27 = measure(sa24, sb25);
                        f3(v22, x27, x27)
                    }).collect::<Vec<i64>>();
                    let x28 = ys23.iter().fold(0i64, |a, b| a.wrapping_add(*b));
                    let x29 = f2(x28, x21);
                }
                _ => {
                    if k % 3 == 0 {
                        let mut sa30 = text(k);
                        let mut sb31 = text(k);
                        let st32 = sa30;
                        sa30 = sb31;
                        sb31 = st32;
                        let x33 = measure(sa30, sb31);
                        let mut sa34 = text(k);
                        let mut sb35 = text(k);
                        let st36 = sa34;
                        sa34 = sb35;
                        sb35 = st36;
                        let x37 = measure(sa34, sb35);
                    } else if k > k {
                        let mut sa38 = text(k);
                        let mut sb39 = text(k);
                        let st40 = sa38;
                        sa38 = sb39;
                        sb39 = st40;
                        let x41 = measure(sa38, sb39);
                        let mut m42 = 1;
                    } else {
                        let mut sa43 = text(k);
                        let mut sb44 = text(lit(2));
                        let st45 = sa43;
                        sa43 = sb44;
                        sb44 = st45;
                        let x46 = measure(sa43, sb44);
                    }
                    let (x47, x48) = (f2(k, k), f1(k));
                    s0.mark("t1");
                }
            }
            let mut m50 = -10;
            for v49 in xs.clone() {
                let kk51 = v49 % 5;
                let x52 = inc(k);
                let k = ks.record(&kk51, m50);
                ks.record(&kk51, k);
                s0.push(v49);
                m50 = f2(m50, v49);
            }
            s0.push(k);
            s1.push(m50);
            match m50 % 3 {
                0 => {
                    let x53 = f1(k);
                    let mut m55 = -7;
                    let n56 = lit(-7) % 5;
                    for v54 in 0..n56 {
                        let kk57 = v54 % 5;
                        let mut sa58 = text(m50);
                        let mut sb59 = text(m55);
                        let st60 = sa58;
                        sa58 = sb59;
                        sb59 = st60;
                        let x61 = measure(sa58, sb59);
                        let mut sa62 = text(lit(-5));
                        let mut sb63 = text(n56);
                        let st64 = sa62;
                        sa62 = sb63;
                        sb63 = st64;
                        let x65 = measure(sa62, sb63);
                        s1.mark("t2");
                        m55 = f2(m55, v54);
                    }
                }
                1 if m50 <= 10 => {
                    let ys67 = xs.clone().into_iter().map(|v66| {
                        s0.push(m50)
                    }).collect::<Vec<i64>>();
                    let x68 = ys67.iter().fold(0i64, |a, b| a.wrapping_add(*b));
                }
                1 => {
                }
                _ => {
                }
            }
            let (cs0, as0) = s0.finish();
            let (cs1, as1) = s1.finish();
            let fks = ks.finish();
            (k, m50, cs0, as0, cs1, as1, fks,)
        }
    }
    pub use a::alg;
    pub fn seq_helper(a: i64, s: Log) -> (i64, Log) {
        let mut s = s;
        let om1001 = pick(a);
        let x1003 = if om1001.is_some() {
            let pv1002 = om1001.unwrap();
            measure1(pv1002)
        } else {
            lit(a)
        };
        s.push(lit(-4));
        let x1004 = f1(x1003);
        s.mark("t1001");
        if a % 3 == 0 {
            s.mark("t1002");
        } else if a <= 8 {
            s.mark("t1003");
        }
        let mut sa1005 = text(x1003);
        let mut sb1006 = text(x1004);
        let st1007 = sa1005;
        sa1005 = sb1006;
        sb1006 = st1007;
        let x1008 = measure(sa1005, sb1006);
        (x1004, s)
    }
    pub fn seq(xs: Vec<i64>, k: i64) -> (i64, i64, Vec<String>, i64, Vec<String>, i64, Vec<(i64, Vec<String>, i64)>,) {
        let mut s0 = Log::new();
        let mut s1 = Log::new();
        let mut ks = ohua::keyed(KeyedLog::new());
        match k % 3 {
            0 => {
                let mut sa1 = text(k);
                let mut sb2 = text(k);
                let st3 = sa1;
                sa1 = sb2;
                sb2 = st3;
                let x4 = measure(sa1, sb2);
                let ys6 = xs.clone().into_iter().map(|v5| {
                    let v5 = s0.peek();
                    let mut sa7 = text(v5);
                    let mut sb8 = text(k);
                    let st9 = sa7;
                    sa7 = sb8;
                    sb8 = st9;
                    let x4 = measure(sa7, sb8);
                    f3(lit(-10), x4, lit(-5))
                }).collect::<Vec<i64>>();
                let x10 = ys6.iter().fold(0i64, |a, b| a.wrapping_add(*b));
                let mut m12 = -2;
                for v11 in xs.clone() {
                    let kk13 = v11 % 5;
                    s0.push(v11);
                    let x14 = ks.record(&kk13, v11);
                    m12 = f2(m12, v11);
                }
            }
            1 if k <= -3 => {
                let (x15, x16) = (f2(k, k), f3(k, k, k));
                let (x17, x18) = (f3(k, k, k), f2(k, k));
                let x19 = f2(x15, x15);
            }
            1 => {
                let (x20, x21) = (f2(k, k), f1(lit(9)));
                let ys23 = xs.clone().into_iter().map(|v22| {
                    s0.push(lit(3));
                    let mut sa24 = text(x21);
                    let mut sb25 = text(v22);
                    let st26 = sa24;
                    sa24 = sb25;
                    sb25 = st26;
                    let x27 = measure(sa24, sb25);
                    f3(v22, x27, x27)
                }).collect::<Vec<i64>>();
                let x28 = ys23.iter().fold(0i64, |a, b| a.wrapping_add(*b));
                let x29 = f2(x28, x21);
            }
            _ => {
                if k % 3 == 0 {
                    let mut sa30 = text(k);
                    let mut sb31 = text(k);
                    let st32 = sa30;
                    sa30 = sb31;
                    sb31 = st32;
                    let x33 = measure(sa30, sb31);
                    let mut sa34 = text(k);
                    let mut sb35 = text(k);
                    let st36 = sa34;
                    sa34 = sb35;
                    sb35 = st36;
                    let x37 = measure(sa34, sb35);
                } else if k > k {
                    let mut sa38 = text(k);
                    let mut sb39 = text(k);
                    let st40 = sa38;
                    sa38 = sb39;
                    sb39 = st40;
                    let x41 = measure(sa38, sb39);
                    let mut m42 = 1;
                } else {
                    let mut sa43 = text(k);
                    let mut sb44 = text(lit(2));
                    let st45 = sa43;
                    sa43 = sb44;
                    sb44 = st45;
                    let x46 = measure(sa43, sb44);
                }
                let (x47, x48) = (f2(k, k), f1(k));
                s0.mark("t1");
            }
        }
        let mut m50 = -10;
        for v49 in xs.clone() {
            let kk51 = v49 % 5;
            let x52 = inc(k);
            let k = ks.record(&kk51, m50);
            ks.record(&kk51, k);
            s0.push(v49);
            m50 = f2(m50, v49);
        }
        s0.push(k);
        s1.push(m50);
        match m50 % 3 {
            0 => {
                let x53 = f1(k);
                let mut m55 = -7;
                let n56 = lit(-7) % 5;
                for v54 in 0..n56 {
                    let kk57 = v54 % 5;
                    let mut sa58 = text(m50);
                    let mut sb59 = text(m55);
                    let st60 = sa58;
                    sa58 = sb59;
                    sb59 = st60;
                    let x61 = measure(sa58, sb59);
                    let mut sa62 = text(lit(-5));
                    let mut sb63 = text(n56);
                    let st64 = sa62;
                    sa62 = sb63;
                    sb63 = st64;
                    let x65 = measure(sa62, sb63);
                    s1.mark("t2");
                    m55 = f2(m55, v54);
                }
            }
            1 if m50 <= 10 => {
                let ys67 = xs.clone().into_iter().map(|v66| {
                    s0.push(m50)
                }).collect::<Vec<i64>>();
                let x68 = ys67.iter().fold(0i64, |a, b| a.wrapping_add(*b));
            }
            1 => {
            }
            _ => {
            }
        }
        let (cs0, as0) = s0.finish();
        let (cs1, as1) = s1.finish();
        let fks = ks.finish();
        (k, m50, cs0, as0, cs1, as1, fks,)
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
