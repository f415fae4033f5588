// A `cluster` algorithm's replicable call gives a value of a type that is
// not `Serialize`/`Deserialize`: reported at the user's `let`.
#[derive(Clone, Debug)]
struct Point {
    x: u64,
}
fn locate(x: u64) -> Point {
    Point { x }
}
#[ohua::algorithm(cluster)]
fn alg(xs: Vec<u64>) -> Vec<u64> {
    let mut out = Vec::new();
    for x in xs {
        let p = locate(x);
        out.push(p.x);
    }
    out
}
fn main() {}
