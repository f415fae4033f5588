//! Lowering `if`/`match`, `for`/`collect` and `while`/recursion.

use super::context::CtxId;
use super::Lower;
use crate::graph::ops::{Carry, Collect, Loop, Merge, SMap};
use crate::ir::{Carried, Code, Region, VarId};

impl Lower<'_> {
    /// Arms in their own contexts, then one `merge` per output.
    pub(crate) fn branch(&mut self, sel: VarId, arms: &[Region], outs: &[VarId], ctx: CtxId) {
        let n = arms.len();
        let arm_ctxs: Vec<CtxId> = (0..n).map(|k| self.child(ctx, false, Some((sel, k, n)), None)).collect();
        for (arm, c) in arms.iter().zip(&arm_ctxs) {
            self.region(arm, *c);
        }
        for (i, out) in outs.iter().enumerate() {
            let sel_src = self.data(sel, ctx);
            let m = self.control(ctx, Merge { arms: n });
            self.connect(sel_src, (m, 0), false);
            for (k, (arm, c)) in arms.iter().zip(&arm_ctxs).enumerate() {
                let src = self.data(arm.yields[i], *c);
                self.connect(src, (m, 1 + k), false);
            }
            self.def.insert(*out, (ctx, (m, 0)));
        }
    }

    /// Pack several values into one tuple (or pass a single one through).
    fn pack(&mut self, ctx: CtxId, vars: &[VarId]) -> VarId {
        let v = self.synthetic();
        self.glue(ctx, "pack", Code::Pack, vars, vec![v]);
        v
    }

    /// Unpack a tuple value into `outs`.
    fn unpack(&mut self, ctx: CtxId, tuple: VarId, outs: Vec<VarId>) {
        self.glue(ctx, "unpack", Code::Unpack, &[tuple], outs);
    }

    /// `for`: smap → body → (collect), with a carry cycle for carried values.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn for_loop(
        &mut self,
        coll: VarId,
        elem: VarId,
        carried: &[Carried],
        collect: Option<VarId>,
        collect_ty: Option<syn::Type>,
        body: &Region,
        ctx: CtxId,
    ) {
        let level = self.ctxs[ctx].depth;
        let coll_src = self.data(coll, ctx);
        let smap = self.control(ctx, SMap { level });
        self.connect(coll_src, (smap, 0), false);
        let b = self.child(ctx, true, None, Some((smap, 1)));
        self.def.insert(elem, (b, (smap, 0)));
        let carry = (!carried.is_empty()).then(|| {
            let inits: Vec<VarId> = carried.iter().map(|c| c.init).collect();
            let init = self.pack(ctx, &inits);
            let init_src = self.data(init, ctx);
            let carry = self.control(ctx, Carry { level });
            self.connect(init_src, (carry, 0), false);
            self.connect((smap, 1), (carry, 1), false);
            let current = self.synthetic();
            self.def.insert(current, (b, (carry, 0)));
            self.unpack(b, current, carried.iter().map(|c| c.inner).collect());
            carry
        });
        self.region(body, b);
        if let Some(carry) = carry {
            let next = self.pack(b, &body.yields[..carried.len()]);
            let next_src = self.data(next, b);
            self.connect(next_src, (carry, 2), true);
            let fin = self.synthetic();
            self.def.insert(fin, (ctx, (carry, 1)));
            self.unpack(ctx, fin, carried.iter().map(|c| c.after).collect());
        }
        if let Some(result) = collect {
            let item = *body.yields.last().expect("collect yields an item");
            let src = self.data(item, b);
            let c = self.control(ctx, Collect { level, ty: collect_ty });
            self.connect(src, (c, 0), false);
            self.def.insert(result, (ctx, (c, 0)));
        }
    }

    /// `while` / tail recursion: a loop node cycling `ControlFlow` values.
    pub(crate) fn while_loop(&mut self, carried: &[Carried], body: &Region, outs: &[VarId], ctx: CtxId) {
        let level = self.ctxs[ctx].depth;
        let inits: Vec<VarId> = carried.iter().map(|c| c.init).collect();
        let init = self.pack(ctx, &inits);
        let init_src = self.data(init, ctx);
        let lp = self.control(ctx, Loop { level });
        self.connect(init_src, (lp, 0), false);
        let b = self.child(ctx, true, None, Some((lp, 1)));
        let current = self.synthetic();
        self.def.insert(current, (b, (lp, 0)));
        self.unpack(b, current, carried.iter().map(|c| c.inner).collect());
        self.region(body, b);
        let flow = self.data(body.yields[0], b);
        self.connect(flow, (lp, 1), true);
        let result = self.synthetic();
        self.def.insert(result, (ctx, (lp, 2)));
        self.unpack(ctx, result, outs.to_vec());
    }
}
