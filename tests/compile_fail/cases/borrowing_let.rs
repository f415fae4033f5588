fn count(s: &str) -> usize { s.split_whitespace().count() }
#[ohua::algorithm]
fn words(lines: Vec<String>) -> usize {
    let mut n = 0;
    for line in lines {
        let t = line.trim();
        let k = count(t);
        n += k;
    }
    n
}
fn main() {}
