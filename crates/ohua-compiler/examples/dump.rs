//! Print one stage of every function in a file: `cargo run -p ohua-compiler --example dump -- FILE STAGE`.
fn main() {
    let path = std::env::args().nth(1).expect("file");
    let stage = std::env::args().nth(2).unwrap_or("graph".into());
    let src = std::fs::read_to_string(path).expect("readable");
    let file: syn::File = syn::parse_str(&src).expect("valid Rust");
    for item in file.items {
        if let syn::Item::Fn(f) = item {
            let c = ohua_compiler::compile(&f, &[]).expect("compiles");
            println!("{}", c.stage(&stage).expect("known stage"));
        }
    }
}
