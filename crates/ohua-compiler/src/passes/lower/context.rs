//! Contexts of the dataflow graph (top level, loop bodies, branch arms).

use super::Src;
use crate::ir::VarId;

/// Index of a context.
pub(crate) type CtxId = usize;

/// One context.
#[derive(Debug, Clone)]
pub(crate) struct Ctx {
    /// Enclosing context.
    pub parent: Option<CtxId>,
    /// Number of enclosing loops.
    pub depth: u16,
    /// For a branch arm: the selector value, this arm's index, the number of arms.
    pub arm: Option<(VarId, usize, usize)>,
    /// The context's tick stream, once known.
    pub tick: Option<Src>,
}

impl Ctx {
    /// The top level.
    pub fn top() -> Self {
        Ctx { parent: None, depth: 0, arm: None, tick: None }
    }
}

/// Where a value can be read in a context.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Routed {
    /// The stream carrying it.
    pub src: Src,
    /// The value's level.
    pub home: u16,
    /// Whether the consumer is deeper than the value (a sticky input).
    pub sticky: bool,
    /// The context of the stream (`home`-level context on the way to the consumer).
    pub ctx: CtxId,
}
