//! The layer checker shared by `ohua-runtime/tests/layers.rs` and
//! `ohua-compiler/tests/layers.rs`: reads a crate's layer table from its
//! `LAYERS.md`, parses every `.rs` file under its `src/` with `syn`, and
//! reports each `crate::`, `super::` or `self::` path that makes one
//! top-level module use another from a higher row or from its own row.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// A crate's layer table, bottom row first: a module may use the modules of
/// lower rows, never those of a higher row or of its own row.
#[derive(Debug, Clone)]
pub struct Layers {
    /// Rows bottom to top, each the top-level modules on it.
    pub rows: Vec<Vec<String>>,
}

impl Layers {
    /// The table under the heading `## <name>` of `markdown`: the rows of a
    /// markdown table whose first cell is the row number (1 = bottom) and
    /// whose second cell names the row's modules in backticks.
    pub fn parse(markdown: &str, name: &str) -> Layers {
        let heading = format!("## {name}");
        let mut in_section = false;
        let mut numbered: Vec<(usize, Vec<String>)> = Vec::new();
        for line in markdown.lines() {
            if line.starts_with("## ") {
                in_section = line.trim() == heading;
                continue;
            }
            if !in_section || !line.trim_start().starts_with('|') {
                continue;
            }
            let cells: Vec<&str> = line.trim().trim_matches('|').split('|').collect();
            if cells.len() < 2 {
                continue;
            }
            let Ok(number) = cells[0].trim().parse::<usize>() else {
                continue;
            };
            let modules: Vec<String> = cells[1]
                .split('`')
                .skip(1)
                .step_by(2)
                .map(|m| m.trim().to_string())
                .filter(|m| !m.is_empty())
                .collect();
            numbered.push((number, modules));
        }
        numbered.sort_by_key(|(n, _)| *n);
        for (i, (n, _)) in numbered.iter().enumerate() {
            assert_eq!(*n, i + 1, "{name}: the rows of the layer table must be numbered 1, 2, ...");
        }
        assert!(!numbered.is_empty(), "no layer table under `{heading}`");
        Layers { rows: numbered.into_iter().map(|(_, m)| m).collect() }
    }

    /// The row (0 = bottom) of top-level module `module`.
    pub fn row(&self, module: &str) -> Option<usize> {
        self.rows.iter().position(|r| r.iter().any(|m| m == module))
    }

    /// The table as text, top row first, for failure messages.
    pub fn render(&self) -> String {
        let mut s = String::new();
        for (i, row) in self.rows.iter().enumerate().rev() {
            let _ = writeln!(s, "  {:>2}  {}", i + 1, row.join(", "));
        }
        s
    }
}

/// One use of top-level module `to` by code in top-level module `from`.
#[derive(Debug, Clone)]
pub struct Import {
    /// The file, relative to the crate's `src/`.
    pub file: PathBuf,
    /// 1-based line of the path.
    pub line: usize,
    /// The top-level module of the file (`""` for the crate root).
    pub from: String,
    /// The top-level module the path names.
    pub to: String,
    /// The path as written, `::`-joined.
    pub path: String,
    /// Whether the path is in test-only code (`#[cfg(test)]`), which the
    /// table does not bind: a unit test may drive its module through the
    /// layers above it.
    pub test: bool,
}

/// What `scan` found under a `src/` directory.
#[derive(Debug, Default)]
pub struct Scan {
    /// `.rs` files parsed.
    pub files: usize,
    /// Every crate-relative path (cross-module or not) found, resolved.
    pub paths: usize,
    /// The paths from one top-level module to another.
    pub imports: Vec<Import>,
}

/// Parses every `.rs` file under `src`.
pub fn scan(src: &Path) -> Scan {
    let mut out = Scan::default();
    let mut files = Vec::new();
    collect(src, &mut files);
    files.sort();
    let parsed: Vec<(PathBuf, syn::File)> = files
        .iter()
        .map(|file| {
            let rel = file.strip_prefix(src).unwrap().to_path_buf();
            let text = std::fs::read_to_string(file).unwrap();
            let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: does not parse: {e}", rel.display()));
            (rel, ast)
        })
        .collect();
    let root = parsed.iter().find(|(rel, _)| module_path(rel).is_empty()).map(|(_, ast)| root_reexports(ast));
    let root = root.unwrap_or_default();
    // Modules declared `#[cfg(test)] mod name;`: their files are test code.
    let mut test_modules = Vec::new();
    for (rel, ast) in &parsed {
        let mut v = Visitor::new(&module_path(rel), &root, false);
        v.visit_file(ast);
        test_modules.extend(v.test_modules);
    }
    for (rel, ast) in &parsed {
        let module = module_path(rel);
        let test = test_modules.iter().any(|t: &Vec<String>| module.starts_with(t));
        let (paths, imports) = scan_ast(&module, ast, rel, &root, test);
        out.files += 1;
        out.paths += paths;
        out.imports.extend(imports);
    }
    out
}

/// The crate root's `use` items, by the name they bring in: `pub use
/// pipeline::compile` makes `crate::compile` a path into `pipeline`.
fn root_reexports(ast: &syn::File) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    fn walk(first: Option<&str>, tree: &syn::UseTree, map: &mut BTreeMap<String, String>) {
        match tree {
            syn::UseTree::Path(p) => {
                let id = p.ident.to_string();
                let first = first.unwrap_or(&id).to_string();
                if first == "crate" || first == "self" {
                    walk(None, &p.tree, map);
                } else {
                    walk(Some(&first), &p.tree, map);
                }
            }
            syn::UseTree::Name(n) => {
                if let Some(f) = first {
                    map.insert(n.ident.to_string(), f.to_string());
                }
            }
            syn::UseTree::Rename(r) => {
                if let Some(f) = first {
                    map.insert(r.rename.to_string(), f.to_string());
                }
            }
            syn::UseTree::Glob(_) => {}
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    walk(first, t, map);
                }
            }
        }
    }
    for item in &ast.items {
        if let syn::Item::Use(u) = item {
            walk(None, &u.tree, &mut map);
        }
    }
    map
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

/// The module path of a file relative to `src/`: `lib.rs` -> `[]`,
/// `a.rs` and `a/mod.rs` -> `[a]`, `a/b.rs` -> `[a, b]`.
pub fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap();
    let stem = last.strip_suffix(".rs").unwrap_or(&last);
    if stem != "mod" && !(parts.is_empty() && matches!(stem, "lib" | "main")) {
        parts.push(stem.to_string());
    }
    parts
}

/// The crate-relative paths of one file whose module path is `module`:
/// how many there are, and those that leave the file's top-level module.
/// `root` maps the names the crate root re-exports to their modules.
pub fn scan_source(
    module: &[String],
    source: &str,
    rel: &Path,
    root: &BTreeMap<String, String>,
) -> (usize, Vec<Import>) {
    let ast = syn::parse_file(source).unwrap_or_else(|e| panic!("{}: does not parse: {e}", rel.display()));
    scan_ast(module, &ast, rel, root, false)
}

fn scan_ast(
    module: &[String],
    ast: &syn::File,
    rel: &Path,
    root: &BTreeMap<String, String>,
    test: bool,
) -> (usize, Vec<Import>) {
    let mut v = Visitor::new(module, root, test);
    v.visit_file(ast);
    let from = module.first().cloned().unwrap_or_default();
    let total = v.found.len();
    let imports = v
        .found
        .into_iter()
        .filter(|f| !from.is_empty() && f.to != from)
        .map(|f| Import {
            file: rel.to_path_buf(),
            line: f.line,
            from: from.clone(),
            to: f.to,
            path: f.path,
            test: f.test,
        })
        .collect();
    (total, imports)
}

/// Whether `attrs` make an item test-only: `#[cfg(test)]`,
/// `#[cfg(all(test, ..))]`, or `#[test]`.
fn test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        if a.path().is_ident("test") {
            return true;
        }
        if !a.path().is_ident("cfg") {
            return false;
        }
        let Ok(list) = a.meta.require_list() else { return false };
        let text: String = list.tokens.to_string().chars().filter(|c| !c.is_whitespace()).collect();
        text == "test"
            || text
                .strip_prefix("all(")
                .and_then(|t| t.strip_suffix(')'))
                .is_some_and(|t| t.split(',').any(|p| p == "test"))
    })
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    use syn::Item::*;
    match item {
        Const(i) => &i.attrs,
        Enum(i) => &i.attrs,
        ExternCrate(i) => &i.attrs,
        Fn(i) => &i.attrs,
        ForeignMod(i) => &i.attrs,
        Impl(i) => &i.attrs,
        Macro(i) => &i.attrs,
        Mod(i) => &i.attrs,
        Static(i) => &i.attrs,
        Struct(i) => &i.attrs,
        Trait(i) => &i.attrs,
        TraitAlias(i) => &i.attrs,
        Type(i) => &i.attrs,
        Union(i) => &i.attrs,
        Use(i) => &i.attrs,
        _ => &[],
    }
}

struct Found {
    line: usize,
    to: String,
    path: String,
    test: bool,
}

struct Visitor<'r> {
    /// Module path of the code being visited (inline `mod`s included).
    module: Vec<String>,
    /// The crate root's re-exports (name -> module).
    root: &'r BTreeMap<String, String>,
    /// Inside test-only code.
    test: bool,
    found: Vec<Found>,
    /// File modules declared test-only (`#[cfg(test)] mod name;`).
    test_modules: Vec<Vec<String>>,
}

impl<'r> Visitor<'r> {
    fn new(module: &[String], root: &'r BTreeMap<String, String>, test: bool) -> Self {
        Visitor { module: module.to_vec(), root, test, found: Vec::new(), test_modules: Vec::new() }
    }

    /// Resolves a path's leading segments; records it if it is crate-relative.
    fn record(&mut self, segments: &[String], line: usize) {
        let Some(first) = segments.first() else { return };
        let mut base: Vec<String> = match first.as_str() {
            "crate" | "$crate" => Vec::new(),
            "super" | "self" => self.module.clone(),
            _ => return,
        };
        let mut rest = &segments[1..];
        if first == "super" {
            base.pop();
        }
        while rest.first().is_some_and(|s| s == "super") {
            base.pop();
            rest = &rest[1..];
        }
        let top = match base.first() {
            Some(m) => m.clone(),
            None => match rest.first() {
                Some(s) if s != "self" && s != "*" => self.root.get(s).unwrap_or(s).clone(),
                // `use crate::{self}`, `use super::*` at the crate root.
                _ => return,
            },
        };
        self.found.push(Found { line, to: top, path: segments.join("::"), test: self.test });
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                prefix.push(n.ident.to_string());
                self.record(&prefix.clone(), n.ident.span().start().line);
                prefix.pop();
            }
            syn::UseTree::Rename(r) => {
                prefix.push(r.ident.to_string());
                self.record(&prefix.clone(), r.ident.span().start().line);
                prefix.pop();
            }
            syn::UseTree::Glob(g) => {
                prefix.push("*".to_string());
                self.record(&prefix.clone(), g.star_token.span.start().line);
                prefix.pop();
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }

    /// Paths inside macro invocations (`crate::x` or `$crate::x` tokens).
    fn tokens(&mut self, tokens: proc_macro2::TokenStream) {
        use proc_macro2::TokenTree;
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < trees.len() {
            if let TokenTree::Group(g) = &trees[i] {
                self.tokens(g.stream());
                i += 1;
                continue;
            }
            let starts = matches!(&trees[i], TokenTree::Ident(id) if id == "crate" || id == "super" || id == "self");
            if !starts {
                i += 1;
                continue;
            }
            let line = trees[i].span().start().line;
            let mut segments = vec![trees[i].to_string()];
            let mut j = i + 1;
            // `:: ident` repeated: two `:` puncts then an ident.
            while j + 2 < trees.len() {
                let (TokenTree::Punct(a), TokenTree::Punct(b)) = (&trees[j], &trees[j + 1]) else { break };
                if a.as_char() != ':' || b.as_char() != ':' {
                    break;
                }
                let Some(TokenTree::Ident(id)) = trees.get(j + 2) else { break };
                segments.push(id.to_string());
                j += 3;
            }
            if segments.len() > 1 {
                self.record(&segments, line);
            }
            i = j.max(i + 1);
        }
    }
}

impl<'ast> Visit<'ast> for Visitor<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let outer = self.test;
        self.test |= test_only(item_attrs(item));
        syn::visit::visit_item(self, item);
        self.test = outer;
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        let outer = self.test;
        self.test |= test_only(&f.attrs);
        syn::visit::visit_impl_item_fn(self, f);
        self.test = outer;
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        self.module.push(m.ident.to_string());
        if m.content.is_some() {
            syn::visit::visit_item_mod(self, m);
        } else if self.test {
            self.test_modules.push(self.module.clone());
        }
        self.module.pop();
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &u.tree);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segments: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        if segments.len() > 1 || p.leading_colon.is_none() && segments.first().is_some_and(|s| s == "crate") {
            let line = p.segments[0].ident.span().start().line;
            self.record(&segments, line);
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.tokens(m.tokens.clone());
        syn::visit::visit_macro(self, m);
    }
}

/// The imports that break `layers`, and the top-level modules the table
/// lacks, as a failure message naming file and line (empty if none).
pub fn check(crate_name: &str, layers: &Layers, scan: &Scan) -> String {
    let mut msg = String::new();
    let mut missing: BTreeMap<String, ()> = BTreeMap::new();
    for i in scan.imports.iter().filter(|i| !i.test) {
        for m in [&i.from, &i.to] {
            if layers.row(m).is_none() {
                missing.insert(m.clone(), ());
            }
        }
    }
    for m in missing.keys() {
        let _ = writeln!(msg, "module `{m}` is in no row of the table");
    }
    for i in scan.imports.iter().filter(|i| !i.test) {
        let (Some(from), Some(to)) = (layers.row(&i.from), layers.row(&i.to)) else { continue };
        if to >= from {
            let how = if to == from { "its own row" } else { "a higher row" };
            let _ = writeln!(
                msg,
                "src/{}:{}: `{}` (row {}) uses `{}` from {how} (row {}): {}",
                i.file.display(),
                i.line,
                i.from,
                from + 1,
                i.to,
                to + 1,
                i.path
            );
        }
    }
    if !msg.is_empty() {
        msg = format!(
            "{crate_name}: imports against the layer table (LAYERS.md; a module may use only \
             modules of lower rows):\n{msg}\nthe table, top row first:\n{}",
            layers.render()
        );
    }
    msg
}
