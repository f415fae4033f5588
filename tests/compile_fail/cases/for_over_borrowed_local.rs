struct Acc(u64);
impl Acc {
    fn new() -> Self {
        Acc(0)
    }
    fn add(&mut self, x: &u64) {
        self.0 += x;
    }
}
#[ohua::algorithm]
fn alg(xs: Vec<u64>) -> u64 {
    let mut acc = Acc::new();
    for x in &xs {
        acc.add(x);
    }
    acc.0
}
fn main() {}
