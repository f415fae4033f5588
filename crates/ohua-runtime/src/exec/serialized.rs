//! Calls of `#[ohua::algorithm(cluster)]` algorithms: replicable calls whose
//! arguments and results are `Serialize` and `Deserialize`, so that their
//! lanes can carry bytes ([`crate::deploy::Lanes`], `codec.rs`).
//!
//! With [`Lanes::Serialized`] every replica encodes the argument tuple it
//! takes and decodes it again before the statement runs, and does the same
//! with the result tuple it gives: what a lane to another process does at
//! its two ends, in one process. The bytes are counted for the report. A
//! call that runs once, and every call with `Lanes::Values`, runs as
//! [`CallPorts::run_replicable`] does. Sticky values (read-only captures)
//! are checked `Serialize` by the macro but not yet sent through bytes.

use serde::{de::DeserializeOwned, Serialize};

use crate::codec::{Codec, LaneBytes};
use crate::deploy::Lanes;
use crate::node::fan::FanSticky;
use crate::node::inputs::DataInputs;
use crate::node::outputs::OutputSet;
use crate::sync::process::Arc;

use super::call_ports::{CallFn, CallPorts, HoldFn};

impl<'a, I, S, O> CallPorts<'_, 'a, I, S, O>
where
    I: DataInputs + 'a,
    S: FanSticky + HoldFn<'a, I, O> + 'a,
    O: OutputSet + 'a,
    I::Item: Send + Serialize + DeserializeOwned + 'a,
    O::Item: Send + Serialize + DeserializeOwned + 'a,
{
    /// Install a replicable call of a `cluster` algorithm: as
    /// [`CallPorts::run_replicable`], with every replica's arguments and
    /// results through bytes when the plan's lanes are
    /// [`Lanes::Serialized`].
    ///
    /// # Panics
    ///
    /// As [`crate::exec::Builder::node`]. While running, a value that does
    /// not come back from its bytes panics the run with the
    /// [`crate::codec::CodecError`] naming its type.
    #[inline(never)]
    pub fn run_distributable<F>(self, f: F)
    where
        F: FnMut(I::Item, S::Values) -> (S::Values, O::Item) + Clone + Send + 'a,
    {
        let plan = self.builder.plan();
        if plan.lanes != Lanes::Serialized || !plan.is_replicated(self.id) {
            return self.run_replicable(f);
        }
        let n = plan.replicas[self.id];
        let counts = self.builder.lane_bytes(self.id);
        let fs = (0..n).map(|_| through_bytes::<I, S, O, F>(f.clone(), counts.clone())).collect();
        self.run_replicas(fs);
    }
}

/// `f` with its arguments and results sent through bytes and back, the
/// bytes counted in `counts`.
fn through_bytes<'a, I, S, O, F>(mut f: F, counts: Arc<LaneBytes>) -> CallFn<'a, I, S, O>
where
    I: DataInputs,
    S: FanSticky,
    O: OutputSet,
    I::Item: Serialize + DeserializeOwned + 'a,
    O::Item: Serialize + DeserializeOwned + 'a,
    F: FnMut(I::Item, S::Values) -> (S::Values, O::Item) + Send + 'a,
{
    let (args, results) = (Codec::<I::Item>::serde(), Codec::<O::Item>::serde());
    let mut buffer = Vec::new();
    Box::new(move |item, values| {
        let (item, bytes) = args.round_trip(item, &mut buffer).unwrap_or_else(|e| panic!("{e}"));
        counts.add(bytes);
        let (values, result) = f(item, values);
        let (result, bytes) = results.round_trip(result, &mut buffer).unwrap_or_else(|e| panic!("{e}"));
        counts.add(bytes);
        (values, result)
    })
}
