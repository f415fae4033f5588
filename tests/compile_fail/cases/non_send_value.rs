use std::rc::Rc;
fn wrap(x: u64) -> Rc<u64> { Rc::new(x) }
fn unwrap(r: Rc<u64>) -> u64 { *r }
#[ohua::algorithm]
fn alg(x: u64) -> u64 {
    let r = wrap(x);
    let y = unwrap(r);
    y
}
fn main() {}
