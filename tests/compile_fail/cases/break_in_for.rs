fn f(x: i64) -> i64 { x }
#[ohua::algorithm]
fn alg(xs: Vec<i64>) -> i64 {
    let mut acc = 0;
    for x in xs {
        if x > 3 {
            break;
        }
        acc = f(x);
    }
    acc
}
fn main() {}
