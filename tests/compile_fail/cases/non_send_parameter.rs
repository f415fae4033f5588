fn read(p: *const u8) -> u8 { unsafe { *p } }
#[ohua::algorithm]
fn alg(p: *const u8) -> u8 {
    let v = read(p);
    v
}
fn main() {}
