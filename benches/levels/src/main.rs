fn main() {
    println!("{}", ohua_levels_bench::compiled::COMPILED.len());
}
