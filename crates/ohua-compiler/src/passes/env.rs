//! The resolver's environment: lexical scopes mapping source names to the
//! current SSA version of each binding.

use crate::ir::VarId;

/// What a name currently stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// An ordinary binding; `state` bindings are threaded by every use.
    Plain {
        /// Current version.
        var: VarId,
        /// Mutated somewhere in its scope.
        state: bool,
    },
    /// A state object resident in the single operator that uses it inside the
    /// enclosing loop: that operator receives `outer` (the version before the
    /// loop) and defines `after` (the version after the loop).
    Resident {
        /// Version before the loop.
        outer: VarId,
        /// Version after the loop.
        after: VarId,
    },
}

/// Position of a binding: (scope index, entry index).
pub type Pos = (usize, usize);

/// Lexical scopes with an optional barrier (inlined algorithms cannot see the
/// caller's locals).
#[derive(Debug, Clone, Default)]
pub struct Env {
    scopes: Vec<Vec<(String, Slot)>>,
    barrier: usize,
}

impl Env {
    /// Open a scope.
    pub fn push_scope(&mut self) {
        self.scopes.push(Vec::new());
    }

    /// Close the innermost scope.
    pub fn pop_scope(&mut self) {
        self.scopes.pop();
    }

    /// Hide every current scope from lookups; returns the previous barrier.
    pub fn push_barrier(&mut self) -> usize {
        std::mem::replace(&mut self.barrier, self.scopes.len())
    }

    /// Restore a barrier returned by [`Env::push_barrier`].
    pub fn pop_barrier(&mut self, old: usize) {
        self.barrier = old;
    }

    /// Bind `name` in the innermost scope.
    pub fn bind(&mut self, name: String, slot: Slot) {
        self.scopes.last_mut().expect("a scope is open").push((name, slot));
    }

    /// The innermost visible binding of `name`.
    pub fn lookup(&self, name: &str) -> Option<Pos> {
        for s in (self.barrier..self.scopes.len()).rev() {
            if let Some(e) = self.scopes[s].iter().rposition(|(n, _)| n == name) {
                return Some((s, e));
            }
        }
        None
    }

    /// The slot at a position.
    pub fn get(&self, pos: Pos) -> Slot {
        self.scopes[pos.0][pos.1].1
    }

    /// Replace the slot at a position (a new version of the binding).
    pub fn set(&mut self, pos: Pos, slot: Slot) {
        self.scopes[pos.0][pos.1].1 = slot;
    }

    /// Name of the binding at a position.
    pub fn name(&self, pos: Pos) -> &str {
        &self.scopes[pos.0][pos.1].0
    }

    /// Every visible binding (innermost per name), outermost first.
    pub fn visible(&self) -> Vec<Pos> {
        let mut out: Vec<Pos> = Vec::new();
        for s in self.barrier..self.scopes.len() {
            for e in 0..self.scopes[s].len() {
                let name = &self.scopes[s][e].0;
                if self.lookup(name) == Some((s, e)) {
                    out.push((s, e));
                }
            }
        }
        out
    }

    /// Positions whose slot differs between `self` and an earlier snapshot
    /// (only bindings that existed in the snapshot).
    pub fn changed_since(&self, before: &Env) -> Vec<Pos> {
        let mut out = Vec::new();
        for (s, scope) in before.scopes.iter().enumerate() {
            for (e, (_, slot)) in scope.iter().enumerate() {
                if self.scopes[s][e].1 != *slot {
                    out.push((s, e));
                }
            }
        }
        out
    }
}
