#[ohua::algorithm]
fn fact(n: u64) -> u64 {
    if n == 0 {
        1
    } else {
        let r = fact(n - 1);
        n * r
    }
}
fn main() {}
