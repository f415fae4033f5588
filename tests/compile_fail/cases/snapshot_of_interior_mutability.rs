// A `&self` method that writes through a `Cell` would lose its write on a
// snapshot: a snapshot state must be `Sync`, and a `Cell` is not.
#[derive(Clone, Default)]
struct Hits {
    seen: std::cell::Cell<u64>,
}
impl Hits {
    fn hit(&self) -> u64 {
        self.seen.set(self.seen.get() + 1);
        self.seen.get()
    }
}
#[ohua::algorithm]
fn alg(xs: Vec<u64>) -> u64 {
    let hits = ohua::snapshot(Hits::default());
    let mut last = 0;
    for x in xs {
        let h = hits.hit();
        last = h + x;
    }
    last
}
fn main() {}
