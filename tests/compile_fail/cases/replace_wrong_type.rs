// A replacement must have the replaced function's type.
#[ohua::updatable]
fn render(x: u32) -> String {
    x.to_string()
}

fn render_v2(x: u64) -> String {
    x.to_string()
}

fn main() {
    let _ = ohua::replace!(render => render_v2);
}
