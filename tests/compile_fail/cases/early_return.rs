fn f(x: i64) -> i64 { x }
#[ohua::algorithm]
fn alg(x: i64) -> i64 {
    if x > 0 {
        return f(x);
    }
    let y = f(x);
    y
}
fn main() {}
