// A live update swaps a function pointer: a generic function has none.
#[ohua::updatable]
fn pick<T: Clone>(x: T) -> T {
    x
}

fn main() {}
