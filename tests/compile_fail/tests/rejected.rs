//! What `#[algorithm]` must reject, with the error each case produces.
//! Regenerate expectations with `TRYBUILD=overwrite` after reviewing them.

#[test]
fn rejected_constructs() {
    let t = trybuild::TestCases::new();
    t.compile_fail("cases/*.rs");
}
