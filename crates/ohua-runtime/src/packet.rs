//! What travels on an arc: data, an end-of-activation marker, or a control
//! marker (an update, checkpoint or no-op marker of a service).
//!
//! See `node/README.md` for the stream format every operator obeys, and
//! `update/README.md` for what control markers do.

/// Nesting level of a dataflow context: 0 is the algorithm's top level, each
/// enclosing loop adds one.
pub type Level = u16;

/// One item on an arc.
///
/// A stream at context depth `d` carries one `Data` per activation of its
/// context, and an `End(l)` marker for every level `l < d` whenever an
/// activation of level `l ends`. A control marker `Mark(m)` is inserted by
/// the loop entry of level `m.level` between two of its iterations; like
/// `End(m.level)` it appears in every stream deeper than `m.level`
/// downstream of that entry, at the same position in all of them, but it
/// ends nothing.
///
/// # Example
///
/// A depth-1 stream for one top-level activation whose loop ran three
/// times, with a control marker between the second and third iteration, is
/// `Data(1), Data(2), Mark(Mark { level: 0, id: 7 }), Data(3), End(0)`: see
/// the unit test `a_depth_1_stream_with_a_marker`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Packet<T> {
    /// A value for one activation.
    Data(T),
    /// The current activation of the given level has ended.
    End(Level),
    /// A control marker between two activations (see [`Mark`]).
    Mark(Mark),
}

/// A control marker: inserted by the loop entry (`smap`) of level `level`
/// between two iterations, so every operator of the loop body sees it
/// between the same two iterations (a consistent cut). `id` names what the
/// marker carries in the run's control table (`crate::update`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Mark {
    /// The level of the loop entry that inserted the marker.
    pub level: Level,
    /// The marker's number in its run.
    pub id: u32,
}

impl Mark {
    /// The level of a *local* marker: one a keyed scatter inserts into its
    /// own replicas' lanes to move key groups where its stream is now
    /// (`node/README.md`, "Moving key groups"). Its gather ends it: no
    /// other operator ever sees one, and no service counts it.
    pub const LOCAL: Level = Level::MAX;

    /// A local marker numbered `id` (see [`Mark::LOCAL`]).
    pub fn local(id: u32) -> Self {
        Mark { level: Mark::LOCAL, id }
    }

    /// Whether this is a local marker (see [`Mark::LOCAL`]).
    #[inline]
    pub fn is_local(&self) -> bool {
        self.level == Mark::LOCAL
    }
}

impl<T> Packet<T> {
    /// Whether this is an end marker.
    pub fn is_end(&self) -> bool {
        matches!(self, Packet::End(_))
    }

    /// Whether this is a control marker.
    pub fn is_mark(&self) -> bool {
        matches!(self, Packet::Mark(_))
    }
}

#[cfg(test)]
mod tests {
    use super::{Mark, Packet};

    /// [`Packet`]'s example.
    #[test]
    fn a_depth_1_stream_with_a_marker() {
        // A depth-1 stream for one top-level activation whose loop ran three
        // times, with a control marker between the second and third iteration:
        let stream =
            [Packet::Data(1), Packet::Data(2), Packet::Mark(Mark { level: 0, id: 7 }), Packet::Data(3), Packet::End(0)];
        assert!(stream[4].is_end());
        assert!(stream[2].is_mark());
    }
}
