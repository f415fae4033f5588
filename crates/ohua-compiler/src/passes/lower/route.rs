//! Routing values into deeper contexts, and context ticks.

use std::collections::HashMap;

use super::context::{Ctx, CtxId, Routed};
use super::{Lower, Src};
use crate::graph::ops::{Switch, Tick};
use crate::ir::{Code, VarId};

impl Lower<'_> {
    /// Route `var` to a consumer in `ctx`.
    ///
    /// # Panics
    ///
    /// If the value was not defined in `ctx` or an enclosing context (a
    /// resolver bug).
    pub(crate) fn route(&mut self, var: VarId, ctx: CtxId) -> Routed {
        let (def_ctx, src) =
            *self.def.get(&var).unwrap_or_else(|| panic!("ohua internal error: value {var:?} used before definition"));
        let home = self.ctxs[def_ctx].depth;
        let mut path = vec![ctx];
        while *path.last().unwrap() != def_ctx {
            let up = self.ctxs[*path.last().unwrap()]
                .parent
                .unwrap_or_else(|| panic!("ohua internal error: value {var:?} used outside its context"));
            path.push(up);
        }
        path.reverse();
        let (mut cur, mut src) = (def_ctx, src);
        for &c in &path[1..] {
            if self.ctxs[c].depth != home {
                break;
            }
            src = self.switch_into(var, src, c);
            cur = c;
        }
        Routed { src, home, sticky: self.ctxs[ctx].depth > home, ctx: cur }
    }

    /// `var` as a data input in `ctx`: a per-activation clone if it comes
    /// from an outer level.
    pub(crate) fn data(&mut self, var: VarId, ctx: CtxId) -> Src {
        let r = self.route(var, ctx);
        if !r.sticky {
            return r.src;
        }
        let copy = self.synthetic();
        self.glue(ctx, "clone", Code::CloneOf, &[var], vec![copy]);
        self.def[&copy].1
    }

    /// The stream of `var` (available in `arm`'s parent) switched into `arm`.
    fn switch_into(&mut self, var: VarId, src: Src, arm: CtxId) -> Src {
        if let Some(s) = self.switched.get(&(var, arm)) {
            return *s;
        }
        let sw = self.switch(src, arm);
        let (_, _, n) = self.ctxs[arm].arm.expect("arm");
        let parent = self.ctxs[arm].parent.expect("arm has a parent");
        for (k, sibling) in self.siblings(parent, arm, n) {
            self.switched.insert((var, sibling), (sw, k));
        }
        self.switched[&(var, arm)]
    }

    /// A switch node in `arm`'s parent forwarding `src` by the arm's selector.
    fn switch(&mut self, src: Src, arm: CtxId) -> super::NodeId {
        let (sel, _, n) = self.ctxs[arm].arm.expect("arm");
        let parent = self.ctxs[arm].parent.expect("arm has a parent");
        let sel_src = self.data(sel, parent);
        let sw = self.control(parent, Switch { arms: n });
        self.connect(sel_src, (sw, 0), false);
        self.connect(src, (sw, 1), false);
        sw
    }

    /// The arm contexts of the branch `arm` belongs to, with their indices.
    fn siblings(&self, parent: CtxId, arm: CtxId, n: usize) -> Vec<(usize, CtxId)> {
        let (sel, _, _) = self.ctxs[arm].arm.expect("arm");
        let mut by_index: HashMap<usize, CtxId> = HashMap::new();
        for (id, c) in self.ctxs.iter().enumerate() {
            if c.parent == Some(parent) {
                if let Some((s, k, _)) = c.arm {
                    if s == sel {
                        by_index.insert(k, id);
                    }
                }
            }
        }
        (0..n).filter_map(|k| by_index.get(&k).map(|c| (k, *c))).collect()
    }

    /// The tick stream of `ctx` (one `()` per activation).
    pub(crate) fn tick(&mut self, ctx: CtxId) -> Src {
        if let Some(t) = self.ctxs[ctx].tick {
            return t;
        }
        let t = match self.ctxs[ctx].parent {
            None => {
                let n = self.control(ctx, Tick);
                (n, 0)
            }
            Some(parent) => {
                let up = self.tick(parent);
                let sw = self.switch(up, ctx);
                let (_, _, n) = self.ctxs[ctx].arm.expect("loop bodies get their tick when created");
                for (k, sibling) in self.siblings(parent, ctx, n) {
                    if self.ctxs[sibling].tick.is_none() {
                        self.ctxs[sibling].tick = Some((sw, k));
                    }
                }
                return self.ctxs[ctx].tick.expect("set above");
            }
        };
        self.ctxs[ctx].tick = Some(t);
        t
    }

    /// Open a child context.
    pub(crate) fn child(
        &mut self,
        parent: CtxId,
        deeper: bool,
        arm: Option<(VarId, usize, usize)>,
        tick: Option<Src>,
    ) -> CtxId {
        let depth = self.ctxs[parent].depth + u16::from(deeper);
        self.ctxs.push(Ctx { parent: Some(parent), depth, arm, tick });
        self.ctxs.len() - 1
    }
}
