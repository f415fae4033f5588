// Found by the fuzz test: a stray `;` became an operator running `let _ = ;`.
fn lets(x: i64) -> (i64, i64) {
    let y = double(x);
    let (a, b) = pair(y); ;
    ;
    (a, b)
}
