// A state type with a lifetime cannot be transformed: an update finds an
// operator's state by its type with lifetimes erased.
struct View<'a>(&'a [u8]);

#[ohua::updatable]
impl View<'static> {
    fn len(&self) -> usize {
        self.0.len()
    }
}

fn main() {}
