// Methods of a trait impl are not replaceable: the attribute says where to go.
struct Cache;

#[ohua::updatable]
impl Clone for Cache {
    fn clone(&self) -> Self {
        Cache
    }
}

fn main() {}
