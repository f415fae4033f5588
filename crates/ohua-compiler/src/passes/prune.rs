//! Dead threaded versions: a node that threads a state object defines its
//! next version; if nothing reads that version, the node only reads it.
//!
//! Why: the generated closure returns every threaded value, and returning a
//! value the statement consumed (`let p = m.unwrap();` with `m` also the
//! receiver of `m.is_some()`, so a threaded state) does not compile (E0382),
//! while the sequential body does, because nothing uses `m` afterwards. A
//! branch's merged values that nothing reads are dropped from every arm too,
//! which is what leaves the threaded versions inside the arms dead.
//!
//! A backward liveness walk over the structured IR; loops are conservative
//! (everything their bodies yield or read stays live).

use std::collections::HashSet;

use crate::ir::{Ir, Op, Use, VarId};

/// Drop dead threaded versions and dead branch results from `ir`.
pub fn prune(ir: &mut Ir) {
    let mut live: HashSet<VarId> = ir.body.yields.iter().copied().collect();
    walk(&mut ir.body.ops, &mut live);
}

/// Walk `ops` backwards; `live` holds the values read after them and, on
/// return, the values read by them or after them.
fn walk(ops: &mut [Op], live: &mut HashSet<VarId>) {
    for op in ops.iter_mut().rev() {
        match op {
            Op::Node(n) => {
                for input in &mut n.inputs {
                    if let Use::Thread { out } = input.usage {
                        if !live.remove(&out) {
                            input.usage = Use::Read;
                        }
                    }
                }
                for o in &n.outputs {
                    live.remove(o);
                }
                live.extend(n.inputs.iter().map(|i| i.var));
            }
            Op::Branch { sel, arms, outs, .. } => {
                let keep: Vec<bool> = outs.iter().map(|o| live.contains(o)).collect();
                if keep.contains(&false) {
                    retain_by(outs, &keep);
                    for arm in arms.iter_mut() {
                        retain_by(&mut arm.yields, &keep);
                    }
                }
                for o in outs.iter() {
                    live.remove(o);
                }
                let mut reads = HashSet::new();
                for arm in arms.iter_mut() {
                    let mut arm_live = live.clone();
                    arm_live.extend(arm.yields.iter().copied());
                    walk(&mut arm.ops, &mut arm_live);
                    reads.extend(arm_live);
                }
                live.extend(reads);
                live.insert(*sel);
            }
            Op::For { coll, carried, body, .. } => {
                let mut body_live = live.clone();
                body_live.extend(body.yields.iter().copied());
                body_live.extend(carried.iter().flat_map(|c| [c.inner, c.after]));
                walk(&mut body.ops, &mut body_live);
                live.extend(body_live);
                live.insert(*coll);
                live.extend(carried.iter().map(|c| c.init));
            }
            Op::Loop { carried, body, outs, .. } => {
                let mut body_live = live.clone();
                body_live.extend(body.yields.iter().copied());
                body_live.extend(outs.iter().copied());
                body_live.extend(carried.iter().flat_map(|c| [c.inner, c.after]));
                walk(&mut body.ops, &mut body_live);
                live.extend(body_live);
                live.extend(carried.iter().map(|c| c.init));
            }
        }
    }
}

/// Keep the elements of `v` whose `keep` entry is true.
fn retain_by(v: &mut Vec<VarId>, keep: &[bool]) {
    let mut k = keep.iter();
    v.retain(|_| *k.next().unwrap_or(&true));
}
