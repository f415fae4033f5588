// The attribute on one method: it says to put it on the impl block.
struct Cache;

impl Cache {
    #[ohua::updatable]
    fn load(&mut self, key: u32) -> u32 {
        key
    }
}

fn main() {}
