use ohua::{DataSource, Source};

struct Db;
impl DataSource for Db {
    type Request = u32;
    type Response = u32;
    type Error = ();
    fn fetch(&self, rs: &[u32]) -> Vec<Result<u32, ()>> {
        rs.iter().map(|r| Ok(*r)).collect()
    }
}

#[ohua::algorithm]
fn alg(db: &Source<Db>, x: u32) -> u32 {
    let y = db.fetch(x).unwrap_or(0) + 1;
    y
}

fn main() {}
