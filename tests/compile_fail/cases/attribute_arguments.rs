#[ohua::algorithm(fast)]
fn alg(x: i64) -> i64 {
    x
}
fn main() {}
