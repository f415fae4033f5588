#[ohua::algorithm]
fn alg(mut xs: Vec<i64>) -> i64 {
    let mut acc = 0;
    while let Some(x) = xs.pop() {
        acc += x;
    }
    acc
}
fn main() {}
