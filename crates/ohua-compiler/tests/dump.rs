//! `OHUA_DUMP` writes files, not stderr (cargo replays a crate's compiler
//! output on later builds, so a printed dump came back stale). One test in
//! its own binary: it changes the process environment.

#[test]
fn ohua_dump_writes_each_stage_to_a_file() {
    let f: syn::ItemFn = syn::parse_quote! {
        fn dumped(xs: Vec<u64>) -> u64 {
            let mut total = 0;
            for x in xs {
                total += x;
            }
            total
        }
    };
    let compiled = ohua_compiler::compile(&f, &[]).expect("compiles");
    let base = std::env::temp_dir().join(format!("ohua-dump-test-{}", std::process::id()));

    std::env::set_var("OHUA_DUMP", "ir,graph");
    std::env::set_var("OHUA_DUMP_DIR", base.join("explicit"));
    ohua_compiler::pipeline::dump_from_env(&compiled);
    let ir = std::fs::read_to_string(base.join("explicit/dumped.ir")).expect("the ir stage was written");
    assert!(ir.contains("algorithm dumped"), "{ir}");
    assert!(base.join("explicit/dumped.graph").exists());
    assert!(!base.join("explicit/dumped.code").exists(), "only the stages asked for");

    // Without a directory: `ohua-dump` in the target directory.
    std::env::remove_var("OHUA_DUMP_DIR");
    std::env::set_var("CARGO_TARGET_DIR", base.join("target"));
    ohua_compiler::pipeline::dump_from_env(&compiled);
    assert!(base.join("target/ohua-dump/dumped.graph").exists());

    std::env::remove_var("OHUA_DUMP");
    let _ = std::fs::remove_dir_all(&base);
}
