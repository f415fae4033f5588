// Methods are not replaceable yet: the attribute says so at the receiver.
struct Cache;

impl Cache {
    #[ohua::updatable]
    fn load(&mut self, key: u32) -> u32 {
        key
    }
}

fn main() {}
