#[allow(unused, unused_mut, unused_variables, unused_assignments, unused_parens)]
mod p243 {
    use super::*;
    #[ohua::algorithm]
    pub fn alg(xs: Vec<i64>, k: i64) -> (i64, i64, i64, i64,) {
        let mut m2 = 1;
        for v1 in xs.clone() {
            let x3 = f3(m2, lit(8), v1);
            m2 = f2(m2, v1);
        }
        let mut i4 = 0;
        while i4 < 3 {
            let mut m6 = 0;
            let n7 = m2 % 5;
            for v5 in 0..n7 {
                let x8 = inc(m6);
                let x9 = inc(m2);
                let x18 = if n7 <= 10 {
                    let mut sa10 = text(n7);
                    let mut sb11 = text(x8);
                    let st12 = sa10;
                    sa10 = sb11;
                    sb11 = st12;
                    let x13 = measure(sa10, sb11);
                    let mut sa14 = text(m2);
                    let mut sb15 = text(x13);
                    let st16 = sa14;
                    sa14 = sb15;
                    sb15 = st16;
                    let x17 = measure(sa14, sb15);
                    f2(x17, v5)
                } else {
                    v5
                };
                m6 = f2(m6, v5);
            }
            let mut sa19 = text(m6);
            let mut sb20 = text(k);
            let st21 = sa19;
            sa19 = sb20;
            sb20 = st21;
            let x22 = measure(sa19, sb20);
            i4 = inc(i4);
        }
        let (x23, x24) = g2(m2);
        (x24, x23, i4, m2,)
    }
    pub fn seq(xs: Vec<i64>, k: i64) -> (i64, i64, i64, i64,) {
        let mut m2 = 1;
        for v1 in xs.clone() {
            let x3 = f3(m2, lit(8), v1);
            m2 = f2(m2, v1);
        }
        let mut i4 = 0;
        while i4 < 3 {
            let mut m6 = 0;
            let n7 = m2 % 5;
            for v5 in 0..n7 {
                let x8 = inc(m6);
                let x9 = inc(m2);
                let x18 = if n7 <= 10 {
                    let mut sa10 = text(n7);
                    let mut sb11 = text(x8);
                    let st12 = sa10;
                    sa10 = sb11;
                    sb11 = st12;
                    let x13 = measure(sa10, sb11);
                    let mut sa14 = text(m2);
                    let mut sb15 = text(x13);
                    let st16 = sa14;
                    sa14 = sb15;
                    sb15 = st16;
                    let x17 = measure(sa14, sb15);
                    f2(x17, v5)
                } else {
                    v5
                };
                m6 = f2(m6, v5);
            }
            let mut sa19 = text(m6);
            let mut sb20 = text(k);
            let st21 = sa19;
            sa19 = sb20;
            sb20 = st21;
            let x22 = measure(sa19, sb20);
            i4 = inc(i4);
        }
        let (x23, x24) = g2(m2);
        (x24, x23, i4, m2,)
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
