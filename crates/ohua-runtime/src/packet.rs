//! What travels on an arc: data, or an end-of-activation marker.
//!
//! See `node/README.md` for the stream format every operator obeys.

/// Nesting level of a dataflow context: 0 is the algorithm's top level, each
/// enclosing loop adds one.
pub type Level = u16;

/// One item on an arc.
///
/// A stream at context depth `d` carries one `Data` per activation of its
/// context, and an `End(l)` marker for every level `l < d` whenever an
/// activation of level `l` ends.
///
/// # Example
///
/// ```
/// use ohua_runtime::packet::Packet;
/// // A depth-1 stream for one top-level activation whose loop ran twice:
/// let stream = vec![Packet::Data(1), Packet::Data(2), Packet::End(0)];
/// assert!(stream[2].is_end());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Packet<T> {
    /// A value for one activation.
    Data(T),
    /// The current activation of the given level has ended.
    End(Level),
}

impl<T> Packet<T> {
    /// Whether this is an end marker.
    pub fn is_end(&self) -> bool {
        matches!(self, Packet::End(_))
    }
}
