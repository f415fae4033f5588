fn parse(s: &str) -> Result<i64, String> { s.parse().map_err(|_| "bad".to_string()) }
#[ohua::algorithm]
fn alg(s: String) -> Result<i64, String> {
    let x = parse(&s)?;
    Ok(x)
}
fn main() {}
