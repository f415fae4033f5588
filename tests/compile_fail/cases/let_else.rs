#[ohua::algorithm]
fn alg(x: Option<i64>) -> i64 {
    let Some(y) = x else { panic!() };
    y
}
fn main() {}
