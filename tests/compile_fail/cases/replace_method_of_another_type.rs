// A method's replacement must take the same receiver type: a method of
// another state type does not compile.
struct Cache(u32);
struct CacheV2(u64);

#[ohua::updatable]
impl Cache {
    fn get(&mut self, key: u32) -> u32 {
        self.0 + key
    }
}

impl CacheV2 {
    fn get(&mut self, key: u32) -> u32 {
        self.0 as u32 + key
    }
}

fn main() {
    let _ = ohua::replace!(Cache::get => CacheV2::get);
}
