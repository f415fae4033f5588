use ohua::{DataSource, Source, Writable};

struct Db;
impl DataSource for Db {
    type Request = u32;
    type Response = u32;
    type Error = ();
    fn fetch(&self, rs: &[u32]) -> Vec<Result<u32, ()>> {
        rs.iter().map(|r| Ok(*r)).collect()
    }
}
impl Writable for Db {
    type Write = u32;
    type Written = u32;
    fn write(&self, ws: &[u32]) -> Vec<Result<u32, ()>> {
        ws.iter().map(|w| Ok(*w)).collect()
    }
}

#[ohua::algorithm]
fn alg(db: &Source<Db>, x: u32) -> u32 {
    let y = if db.write(x).is_ok() { 1 } else { 0 };
    y
}

fn main() {}
