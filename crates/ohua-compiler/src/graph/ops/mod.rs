//! Operator kinds, one file per kind, registered in one list.
//!
//! Every kind is a type implementing [`Operator`]: its name (in graph dumps,
//! and the kind the runtime decodes into its `OpKind`), its input and output
//! ports, and its emission (the statement that builds it in the generated
//! code). The lowering, [`print_graph`](super::print_graph), the encoded
//! graph (`codegen/info.rs`) and code generation go through
//! [`Kind::op`] instead of matching kinds.
//!
//! # Adding a kind
//!
//! Write `ops/<kind>.rs` with the kind's type and its `impl Operator`, and
//! add one line to the `kinds!` list below; that defines the [`Kind`]
//! variant and `From<Type> for Kind`. The lowering creates it in
//! `passes/lower/` (for a control node, `Lower::control` takes its name and
//! ports from the kind). In the runtime, the operator is
//! `ohua-runtime/src/node/<kind>.rs` with one line in the `operators!` list
//! of `node/mod.rs`, which re-exports its types into
//! `ohua_runtime::__macro_support` (the facade's `ohua::__private`, the path
//! [`Emit::rt`] names); a new runtime name is one line of `op_kinds!`
//! (`ohua_runtime::graph::OpKind`).

use proc_macro2::{Span, TokenStream};

pub mod emit;
pub use emit::Emit;

/// What every operator kind defines.
pub trait Operator {
    /// The kind's name in graph dumps and in the names the lowering gives
    /// control nodes (`algorithm/smap@3`).
    fn name(&self) -> &'static str;

    /// The kind the runtime sees (`ohua_runtime::graph::OpKind::as_str`,
    /// written into the encoded graph); most kinds use [`Operator::name`].
    fn runtime_name(&self) -> &'static str {
        self.name()
    }

    /// Number of input and output ports.
    fn ports(&self) -> (usize, usize);

    /// The statement that builds the operator in the generated code,
    /// usually [`Emit::install`] of the runtime operator.
    fn emit(&self, e: &Emit<'_>) -> TokenStream;

    /// What graph dumps show after the node's inputs (a call's sticky inputs).
    fn dump_extra(&self) -> String {
        String::new()
    }

    /// Where an error about output `port`'s value is reported (the user's
    /// binding of it), if anywhere in particular.
    fn output_span(&self, _port: usize) -> Option<Span> {
        None
    }
}

/// The registry: `module::Type => Variant` declares `mod module;`, re-exports
/// `Type`, and makes `Variant(Type)` a [`Kind`].
macro_rules! kinds {
    ($($(#[$doc:meta])* $module:ident :: $ty:ident => $variant:ident,)*) => {
        $(mod $module; pub use $module::$ty;)*

        /// Operator kinds; see the runtime's `node/README.md` for their
        /// semantics and each kind's file in `graph/ops/` for its ports.
        #[derive(Debug, Clone)]
        // Compile-time data with few instances: boxing would only add noise.
        #[allow(clippy::large_enum_variant)]
        pub enum Kind {
            $($(#[$doc])* $variant($ty),)*
        }

        impl Kind {
            /// The kind's [`Operator`].
            pub fn op(&self) -> &dyn Operator {
                match self {
                    $(Kind::$variant(op) => op,)*
                }
            }
        }

        $(impl From<$ty> for Kind {
            fn from(op: $ty) -> Kind {
                Kind::$variant(op)
            }
        })*
    };
}

kinds! {
    /// An algorithm parameter.
    source::Source => Source,
    /// The top-level tick (a `source` of `()` for the runtime).
    tick::Tick => Tick,
    /// User or glue code.
    call::CallNode => Call,
    /// The answer of a fetch: waits for its ticket's answer.
    await_::Await => Await,
    /// Loop entry: the elements of a collection.
    smap::SMap => SMap,
    /// Loop exit gathering items into a collection.
    collect::Collect => Collect,
    /// Forwards a value to the selected branch arm.
    switch::Switch => Switch,
    /// Takes the value of the selected branch arm.
    merge::Merge => Merge,
    /// Values carried around a `for` loop.
    carry::Carry => Carry,
    /// A `while` loop or tail recursion.
    loop_::Loop => Loop,
    /// The algorithm's result.
    sink::Sink => Sink,
}

pub use call::Sticky;
pub(crate) use call::{dispatch, distributable};
