//! The compiler's modules follow the layer table in `LAYERS.md`: no
//! top-level module uses one from a higher row or from its own row (unit
//! tests aside). The checker is shared with the runtime
//! (`ohua-runtime/tests/layers/check.rs`, which also tests it).

#[path = "../../ohua-runtime/tests/layers/check.rs"]
#[allow(dead_code)]
mod check;

use std::path::Path;

use check::{check, scan, Layers};

const CRATE: &str = env!("CARGO_MANIFEST_DIR");

#[test]
fn modules_use_only_lower_layers() {
    let md = std::fs::read_to_string(Path::new(CRATE).join("LAYERS.md")).unwrap();
    let layers = Layers::parse(&md, "ohua-compiler");
    let found = scan(&Path::new(CRATE).join("src"));
    if std::env::var_os("OHUA_LAYERS_DUMP").is_some() {
        for i in &found.imports {
            println!(
                "{} -> {}  {}:{} {}{}",
                i.from,
                i.to,
                i.file.display(),
                i.line,
                i.path,
                if i.test { " (test)" } else { "" }
            );
        }
    }
    // The scan saw the crate: a walk or parse that silently found nothing
    // would pass any table.
    eprintln!("{} files, {} paths, {} between modules", found.files, found.paths, found.imports.len());
    assert!(found.files >= 40, "only {} files under src/", found.files);
    assert!(found.paths >= 230, "only {} crate-relative paths", found.paths);
    assert!(found.imports.len() >= 110, "only {} paths between modules", found.imports.len());
    for m in ["frontend", "graph", "passes", "codegen"] {
        assert!(layers.row(m).is_some(), "`{m}` is in no row of LAYERS.md");
    }
    let msg = check("ohua-compiler", &layers, &found);
    assert!(msg.is_empty(), "{msg}");
}
