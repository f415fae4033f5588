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
    let r = db.write(x);
    r.unwrap_or(0)
}

fn main() {}
