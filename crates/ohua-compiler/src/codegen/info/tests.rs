//! Source lines in the graph and its description: parsed from text, spans
//! carry the lines of that text (proc-macro2's `span-locations`).

use super::encode;
use crate::graph::Graph;

/// The graph of the algorithm in `src`.
fn graph(src: &str) -> Graph {
    let item: syn::ItemFn = syn::parse_str(src).expect("parses");
    crate::compile(&item, &[]).expect("compiles").graph
}

/// The line of the node whose label is `label`.
fn line(g: &Graph, label: &str) -> u32 {
    g.nodes.iter().find(|n| n.label == label).unwrap_or_else(|| panic!("no node `{label}`")).line
}

const LOOP: &str = "fn f(xs: Vec<u64>,
     k: u64) -> Vec<u64> {
    let mut out = Vec::new();
    for x in xs {
        let y = double(x, k);
        out.push(y);
    }
    out
}";

#[test]
fn calls_have_their_statements_line_and_control_nodes_their_constructs() {
    let g = graph(LOOP);
    assert_eq!(line(&g, "Vec :: new ()"), 3);
    assert_eq!(line(&g, "double (x , k)"), 5);
    assert_eq!(line(&g, "out . push (y)"), 6);
    assert_eq!(line(&g, "smap"), 4, "the `for`'s");

    assert_eq!((line(&g, "xs"), line(&g, "k")), (1, 2), "a parameter's");
    assert_eq!(line(&g, "result"), 0, "no code of its own");
}

#[test]
fn the_nodes_of_a_branch_have_the_line_of_its_if() {
    let g = graph(
        "fn f(x: u64) -> u64 {\n    let r = if x > 1 {\n        a(x)\n    } else {\n        b(x)\n    };\n    r\n}",
    );
    assert_eq!((line(&g, "a (x)"), line(&g, "b (x)")), (3, 5));
    assert_eq!((line(&g, "merge"), line(&g, "switch")), (2, 2));
}

#[test]
fn the_description_carries_file_and_lines() {
    let g = graph(LOOP);
    let spec = encode(&g, "src/a b.rs");
    let mut records = spec.lines();
    assert_eq!(records.next(), Some("f src/a b.rs"), "the file after the name");
    assert!(records.any(|r| r == "/double#2 call 1r@5 double (x , k)"), "`@` after the `r`: {spec}");
    assert!(spec.contains("\n/result sink 0 result"), "no `@` for an unknown line: {spec}");
    assert!(encode(&g, "").starts_with("f\n"), "no file: the name alone");
}

#[test]
fn spans_without_source_have_no_line() {
    let g = crate::compile(
        &syn::parse_quote!(
            fn f(x: u64) -> u64 {
                g(x)
            }
        ),
        &[],
    )
    .expect("compiles")
    .graph;
    assert!(g.nodes.iter().all(|n| n.line == 0), "{:?}", g.nodes);
}
