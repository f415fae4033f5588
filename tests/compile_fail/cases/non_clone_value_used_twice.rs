struct Token(u8);
fn make() -> Token { Token(1) }
fn a(t: &Token) -> u8 { t.0 }
fn b(t: &Token) -> u8 { t.0 + 1 }
#[ohua::algorithm]
fn alg(x: u8) -> u8 {
    let t = make();
    let p = a(&t);
    let q = b(&t);
    p + q + x
}
fn main() {}
