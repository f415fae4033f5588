//! The whole pipeline for one algorithm, and the `OHUA_DUMP` stage dumps.

use std::collections::HashMap;

use proc_macro2::TokenStream;

use crate::error::Result;
use crate::frontend::{self, ast::Algorithm};
use crate::graph::{self, Graph};
use crate::ir::{self, Ir};
use crate::{codegen, passes};

/// Every stage of one compiled algorithm.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// Surface AST (after the frontend).
    pub ast: Algorithm,
    /// SSA IR (after resolution: threading, loops, inlining).
    pub ir: Ir,
    /// Dataflow graph (after control lowering).
    pub graph: Graph,
    /// Generated Rust.
    pub tokens: TokenStream,
}

/// The stages `OHUA_DUMP` and the CLI can print.
pub const STAGES: &[&str] = &["ast", "ir", "graph", "dot", "io", "code"];

impl Compiled {
    /// Text of one stage (`ast`, `ir`, `graph`, `dot`, `io`, `code`); `io`
    /// is the static I/O explain ([`graph::print_io`]).
    pub fn stage(&self, stage: &str) -> Option<String> {
        Some(match stage {
            "ast" => format!("{:#?}", self.ast.body).lines().map(|l| format!("{l}\n")).collect(),
            "ir" => ir::print_ir(&self.ir),
            "graph" => graph::print_graph(&self.graph),
            "dot" => graph::to_dot(&self.graph),
            "io" => graph::print_io(&self.graph),
            "code" => match syn::parse2::<syn::File>(self.tokens.clone()) {
                Ok(f) => prettyplease::unparse(&f),
                Err(_) => self.tokens.to_string(),
            },
            _ => return None,
        })
    }
}

/// What `#[algorithm(..)]`'s arguments ask for.
///
/// # Example
///
/// ```
/// use ohua_compiler::pipeline::Options;
/// let o = Options::parse(quote::quote!(cluster)).unwrap();
/// assert!(o.cluster);
/// assert!(Options::parse(quote::quote!(fast)).is_err());
/// assert_eq!(Options::parse(quote::quote!()).unwrap(), Options::default());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// `cluster`: the algorithm's replicable calls may run in other
    /// processes; every value they take or give must be `Serialize` and
    /// `Deserialize` (checked at the user's bindings).
    pub cluster: bool,
}

impl Options {
    /// The options in an attribute's arguments: nothing, or `cluster`.
    ///
    /// # Errors
    ///
    /// Anything else, at its tokens.
    pub fn parse(attr: TokenStream) -> syn::Result<Options> {
        if attr.is_empty() {
            return Ok(Options::default());
        }
        match syn::parse2::<syn::Ident>(attr.clone()) {
            Ok(id) if id == "cluster" => Ok(Options { cluster: true }),
            _ => Err(syn::Error::new_spanned(
                attr,
                "`#[algorithm]` takes no arguments but `cluster` (`#[algorithm(cluster)]`: its replicable calls may run in other processes)",
            )),
        }
    }
}

/// Compile `item`; `siblings` are other algorithms it may call by name.
///
/// # Errors
///
/// Any construct outside the algorithm language, or an invalid use of one
/// (see [`crate::error::CompileError`]).
pub fn compile(item: &syn::ItemFn, siblings: &[syn::ItemFn]) -> Result<Compiled> {
    compile_with(item, siblings, Options::default())
}

/// [`compile`] with the attribute's [`Options`].
///
/// # Errors
///
/// As [`compile`].
pub fn compile_with(item: &syn::ItemFn, siblings: &[syn::ItemFn], options: Options) -> Result<Compiled> {
    let names: Vec<syn::Ident> =
        std::iter::once(item.sig.ident.clone()).chain(siblings.iter().map(|s| s.sig.ident.clone())).collect();
    let mut algorithms: HashMap<String, Algorithm> = HashMap::new();
    for s in siblings.iter().filter(|s| s.sig.ident != item.sig.ident) {
        algorithms.insert(s.sig.ident.to_string(), frontend::parse_algorithm(s, &names)?);
    }
    // Several calls on one keyed state in a loop body become one operator
    // (`frontend/keyed_regions.rs`); the sequential body stays as written.
    let ast = frontend::parse_algorithm(&frontend::keyed_regions::fuse(item), &names)?;
    let name = ast.name.to_string();
    algorithms.insert(name.clone(), ast.clone());
    let mut ir = passes::resolve::resolve(&name, &algorithms)?;
    passes::prune::prune(&mut ir);
    let mut graph = passes::lower::lower(&ir)?;
    graph.keyed = graph::keyed_locals(&ast.body);
    graph.cloneable = graph::cloneable_params(&ast);
    graph.cluster = options.cluster;
    // A call on a snapshot state becomes a step on the state and a finish
    // off it, where a `&self` call runs (`graph/snapshot.rs`).
    let snapshots = graph::snapshot::snapshot_locals(item, &ast.body)?;
    graph::snapshot::split_reads(&mut graph, &snapshots);
    graph.snapshots = snapshots.iter().map(|s| s.name.clone()).collect();
    // In a `cluster` algorithm a run of distributable calls crosses to
    // another process as one call (`graph/remote_chains.rs`).
    graph::remote_chains::merge(&mut graph);
    let tokens = codegen::generate(item, &graph);
    Ok(Compiled { ast, ir, graph, tokens })
}

/// Write the stages named in `OHUA_DUMP` (comma-separated, or `all`) into
/// files `<dir>/<algorithm>.<stage>`: `dir` is `OHUA_DUMP_DIR` if set, else
/// `ohua-dump` in the target directory of the crate being built. With
/// `OHUA_DUMP_DIR=stderr` they are printed instead.
///
/// Files, not stderr, by default: cargo keeps the compiler's output of a
/// crate and prints it again on every later build that reuses the crate, so
/// a dump printed once came back, stale, long after `OHUA_DUMP` was unset.
/// A file holds the dump of the last expansion, which is the current one.
/// (The macro runs only when the crate is recompiled: after setting
/// `OHUA_DUMP`, `cargo clean -p <crate>` or change a file.)
pub fn dump_from_env(c: &Compiled) {
    let Ok(spec) = std::env::var("OHUA_DUMP") else { return };
    let wanted: Vec<&str> =
        if spec.trim() == "all" { STAGES.to_vec() } else { spec.split(',').map(str::trim).collect() };
    let dir = std::env::var("OHUA_DUMP_DIR").ok().map(std::path::PathBuf::from).unwrap_or_else(default_dump_dir);
    for stage in wanted {
        let Some(text) = c.stage(stage) else { continue };
        if dir.as_os_str() == "stderr" {
            eprintln!("===== ohua {} : {stage} =====\n{text}", c.ir.name);
            continue;
        }
        // A dump that cannot be written must not fail the build.
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(dir.join(format!("{}.{stage}", c.ir.name)), text);
    }
}

/// `<target dir>/ohua-dump`: `CARGO_TARGET_DIR`, else the `target` folder
/// next to the nearest `Cargo.lock` above the crate being built (its
/// workspace root), else next to the crate.
fn default_dump_dir() -> std::path::PathBuf {
    if let Ok(t) = std::env::var("CARGO_TARGET_DIR") {
        return std::path::PathBuf::from(t).join("ohua-dump");
    }
    let manifest = std::env::var("CARGO_MANIFEST_DIR").map(std::path::PathBuf::from).unwrap_or_default();
    let root = manifest.ancestors().find(|d| d.join("Cargo.lock").exists()).unwrap_or(&manifest);
    root.join("target").join("ohua-dump")
}

/// The whole `#[algorithm]` attribute: its arguments and the item it is on,
/// as the proc-macro receives them. Returns the generated code, or a
/// `compile_error!` at the offending tokens; it never panics (the fuzz test
/// `tests/fuzz.rs` holds it to that).
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let options = match Options::parse(attr) {
        Ok(o) => o,
        Err(e) => return e.to_compile_error(),
    };
    match syn::parse2::<syn::Item>(item) {
        Ok(syn::Item::Fn(f)) => expand_fn_with(f, &[], options),
        Ok(syn::Item::Mod(m)) => expand_mod_with(m, options),
        Ok(other) => {
            syn::Error::new_spanned(other, "`#[algorithm]` goes on a `fn` or on an inline `mod` of algorithms")
                .to_compile_error()
        }
        Err(e) => e.to_compile_error(),
    }
}

/// Expand `#[algorithm]` on a function: the generated item, or a
/// `compile_error!` pointing at the offending code.
pub fn expand_fn(item: syn::ItemFn, siblings: &[syn::ItemFn]) -> TokenStream {
    expand_fn_with(item, siblings, Options::default())
}

/// [`expand_fn`] with the attribute's [`Options`].
pub fn expand_fn_with(item: syn::ItemFn, siblings: &[syn::ItemFn], options: Options) -> TokenStream {
    match compile_with(&item, siblings, options) {
        Ok(c) => {
            dump_from_env(&c);
            c.tokens
        }
        Err(e) => {
            let err = e.to_compile_error();
            // Keep the function so that callers do not get follow-up errors.
            quote::quote!(#err #item)
        }
    }
}

/// Expand `#[algorithm]` on an inline module: every `fn` in it marked
/// `#[algorithm]` is compiled knowing all the others, so they can call each
/// other (calls are inlined into one graph).
pub fn expand_mod(module: syn::ItemMod) -> TokenStream {
    expand_mod_with(module, Options::default())
}

/// [`expand_mod`] with the module attribute's [`Options`] (`cluster` on the
/// module marks every algorithm in it; `#[algorithm(cluster)]` on a
/// function marks that one).
pub fn expand_mod_with(mut module: syn::ItemMod, options: Options) -> TokenStream {
    let Some((_, items)) = module.content.as_mut() else {
        return syn::Error::new_spanned(
            &module,
            "`#[algorithm]` on a module needs an inline module body `mod m { .. }`",
        )
        .to_compile_error();
    };
    let is_alg = |a: &syn::Attribute| a.path().segments.last().is_some_and(|s| s.ident == "algorithm");
    let algs: Vec<syn::ItemFn> = items
        .iter()
        .filter_map(|i| match i {
            syn::Item::Fn(f) if f.attrs.iter().any(is_alg) => {
                let mut f = f.clone();
                f.attrs.retain(|a| !is_alg(a));
                Some(f)
            }
            _ => None,
        })
        .collect();
    for item in items.iter_mut() {
        if let syn::Item::Fn(f) = item {
            if let Some(attr) = f.attrs.iter().find(|a| is_alg(a)) {
                let own = match &attr.meta {
                    syn::Meta::List(list) => Options::parse(list.tokens.clone()),
                    _ => Ok(Options::default()),
                };
                let own = match own {
                    Ok(o) => o,
                    Err(e) => {
                        // Keep the function, so that callers get no follow-up errors.
                        let (err, mut clean) = (e.to_compile_error(), f.clone());
                        clean.attrs.retain(|a| !is_alg(a));
                        *item = syn::Item::Verbatim(quote::quote!(#err #clean));
                        continue;
                    }
                };
                let mut clean = f.clone();
                clean.attrs.retain(|a| !is_alg(a));
                let tokens = expand_fn_with(clean, &algs, Options { cluster: options.cluster || own.cluster });
                *item = syn::Item::Verbatim(tokens);
            }
        }
    }
    quote::quote!(#module)
}
