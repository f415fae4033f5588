//! The runtime's modules follow the layer table in `LAYERS.md`: no
//! top-level module uses one from a higher row or from its own row (unit
//! tests aside). The checker is `layers/check.rs`, shared with
//! `ohua-compiler/tests/layers.rs`.

#[path = "layers/check.rs"]
mod check;

use std::collections::BTreeMap;
use std::path::Path;

use check::{check, scan, scan_source, Layers, Scan};

const CRATE: &str = env!("CARGO_MANIFEST_DIR");

fn layers() -> Layers {
    let md = std::fs::read_to_string(Path::new(CRATE).join("LAYERS.md")).unwrap();
    Layers::parse(&md, "ohua-runtime")
}

/// `OHUA_LAYERS_DUMP=1`: print every edge between top-level modules.
fn dump(found: &Scan) {
    if std::env::var_os("OHUA_LAYERS_DUMP").is_none() {
        return;
    }
    let mut edges = BTreeMap::<(String, String), Vec<String>>::new();
    for i in &found.imports {
        let test = if i.test { " (test)" } else { "" };
        edges.entry((i.from.clone(), i.to.clone())).or_default().push(format!(
            "{}:{} {}{test}",
            i.file.display(),
            i.line,
            i.path
        ));
    }
    for ((a, b), v) in edges {
        println!("{a} -> {b} ({})", v.len());
        for l in v {
            println!("    {l}");
        }
    }
}

#[test]
fn modules_use_only_lower_layers() {
    let layers = layers();
    let found = scan(&Path::new(CRATE).join("src"));
    dump(&found);
    // The scan saw the crate: a walk or parse that silently found nothing
    // would pass any table.
    eprintln!("{} files, {} paths, {} between modules", found.files, found.paths, found.imports.len());
    assert!(found.files >= 70, "only {} files under src/", found.files);
    assert!(found.paths >= 450, "only {} crate-relative paths", found.paths);
    assert!(found.imports.len() >= 220, "only {} paths between modules", found.imports.len());
    for m in ["sync", "node", "exec"] {
        assert!(layers.row(m).is_some(), "`{m}` is in no row of LAYERS.md");
    }
    let msg = check("ohua-runtime", &layers, &found);
    assert!(msg.is_empty(), "{msg}");
}

/// The checker itself: imports of a higher row, of the same row, through
/// `super::super`, in a `use` group and inside a macro are reported with
/// their lines; lower rows, the module itself and test code are not.
#[test]
fn the_checker_reports_a_violating_import() {
    let layers =
        Layers::parse("## demo\n\n| row | modules |\n|---|---|\n| 1 | `low`, `side` |\n| 2 | `high` |\n", "demo");
    let source = "\
use crate::high::Thing;
use super::super::high::Other;
use crate::{side::S, low::L};
use super::helper;
fn f() { crate::low::g(); m!(crate::high::h); }
#[cfg(test)]
mod tests { use crate::high::*; }
";
    let module = ["low".to_string(), "leaf".to_string()];
    let (total, imports) = scan_source(&module, source, Path::new("low/leaf.rs"), &BTreeMap::new());
    assert_eq!(total, 8, "{imports:#?}");
    let found = Scan { files: 1, paths: total, imports };
    let msg = check("demo", &layers, &found);
    assert!(msg.contains("src/low/leaf.rs:1: `low` (row 1) uses `high` from a higher row"), "{msg}");
    assert!(msg.contains("leaf.rs:2: `low` (row 1) uses `high`"), "{msg}");
    assert!(msg.contains("leaf.rs:3: `low` (row 1) uses `side` from its own row"), "{msg}");
    assert!(msg.contains("leaf.rs:5: `low` (row 1) uses `high`"), "{msg}");
    assert!(!msg.contains("leaf.rs:7"), "test code is not bound by the table: {msg}");
    assert!(!msg.contains("`low` (row 1) uses `low`"), "{msg}");
    assert!(msg.contains("   2  high\n   1  low, side"), "the table is printed: {msg}");
    assert_eq!(msg.lines().filter(|l| l.starts_with("src/")).count(), 4, "{msg}");

    let clean = scan_source(&module, "use crate::low::x; use super::y;", Path::new("l.rs"), &BTreeMap::new());
    let msg = check("demo", &layers, &Scan { files: 1, paths: clean.0, imports: clean.1 });
    assert!(msg.is_empty(), "{msg}");
}

/// A directory module declared test-only in `lib.rs` (`#[cfg(all(test,
/// not(loom)))] mod tests;`, as `src/tests/` is) is test code, and so is
/// every file under it, submodules of submodules included; a module beside
/// it declared without the `cfg` is still bound by the table.
#[test]
fn the_files_of_a_test_only_directory_module_are_test_code() {
    let src = Path::new(env!("CARGO_TARGET_TMPDIR")).join("layers-test-directory/src");
    let _ = std::fs::remove_dir_all(&src);
    for (file, text) in [
        ("lib.rs", "pub mod low;\npub mod high;\n#[cfg(all(test, not(loom)))]\nmod tests;\n"),
        ("low/mod.rs", "mod leaf;\npub fn l() {}\n"),
        ("low/leaf.rs", "use crate::high::h;\n"),
        ("high.rs", "use crate::low::l;\npub fn h() {}\n"),
        ("tests/mod.rs", "mod cases;\nmod common;\nuse crate::high::h;\n"),
        ("tests/cases.rs", "use super::common::run;\nfn f() { crate::high::h(); }\n"),
        ("tests/common/mod.rs", "mod shapes;\npub fn run() { crate::high::h(); }\n"),
        ("tests/common/shapes.rs", "use crate::high::h;\n"),
    ] {
        let path = src.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let layers = Layers::parse("## demo\n\n| row | modules |\n|---|---|\n| 1 | `low` |\n| 2 | `high` |\n", "demo");
    let found = scan(&src);
    assert_eq!(found.files, 8);
    let from_tests: Vec<_> = found.imports.iter().filter(|i| i.from == "tests").collect();
    let files: std::collections::BTreeSet<_> = from_tests.iter().map(|i| i.file.display().to_string()).collect();
    assert_eq!(
        files.into_iter().collect::<Vec<_>>(),
        ["tests/cases.rs", "tests/common/mod.rs", "tests/common/shapes.rs", "tests/mod.rs"],
        "{from_tests:#?}"
    );
    assert!(from_tests.iter().all(|i| i.test && i.to == "high"), "{from_tests:#?}");
    let msg = check("demo", &layers, &found);
    assert!(msg.contains("src/low/leaf.rs:1: `low` (row 1) uses `high` from a higher row"), "{msg}");
    assert!(!msg.contains("tests"), "test code is not bound by the table: {msg}");
    assert_eq!(msg.lines().filter(|l| l.starts_with("src/")).count(), 1, "{msg}");
    std::fs::remove_dir_all(&src).unwrap();
}
