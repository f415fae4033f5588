#[ohua::algorithm]
fn alg(x: i64) -> i64 {
    let mut i = 0;
    loop {
        i += x;
    }
}
fn main() {}
