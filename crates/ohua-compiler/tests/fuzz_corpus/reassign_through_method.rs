// Found by a new user: the macro panicked in debug builds (subtract with overflow).
fn peak_of(xs: Vec<u64>) -> u64 {
    let mut peak = 0;
    for n in xs {
        peak = peak.max(n);
    }
    peak
}
