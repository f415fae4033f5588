#[derive(Clone, Default)]
struct Routes(Vec<u64>);
impl Routes {
    fn add(&mut self, x: u64) { self.0.push(x) }
    fn len(&self) -> usize { self.0.len() }
}
fn load() -> Routes { Routes::default() }
#[ohua::algorithm]
fn alg(xs: Vec<u64>) -> usize {
    let mut routes = ohua::snapshot(load());
    for x in xs {
        routes.add(x);
    }
    let n = routes.len();
    n
}
fn main() {}
