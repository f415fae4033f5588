#[ohua::algorithm]
fn alg(x: i64) -> i64 {
    fn helper(y: i64) -> i64 { y }
    helper(x)
}
fn main() {}
