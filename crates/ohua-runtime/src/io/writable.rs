//! Sources that can also be written to.

use std::fmt::Debug;

use super::source::{DataSource, Source};

/// A data source that also takes writes (`let r = db.write(w);` in an
/// algorithm).
///
/// Writes are never deduplicated or answered from a cache, and they keep
/// program order: in an algorithm that writes to a source, every fetch and
/// write on that source is submitted in program order, consecutive reads
/// are batched, consecutive writes go out in one [`Writable::write`] call
/// (in program order), and a read after a write is sent only after the
/// write has been answered, so it sees it. The per-call cache forgets every
/// answer at a write. Reads on sources the algorithm does not write to are
/// batched as usual.
///
/// # Example
///
/// ```
/// use std::collections::HashMap;
/// use std::sync::Mutex;
/// use ohua_runtime::io::{DataSource, Source, Writable};
///
/// #[derive(Default)]
/// struct Kv(Mutex<HashMap<u32, u32>>);
/// impl DataSource for Kv {
///     type Request = u32;
///     type Response = Option<u32>;
///     type Error = String;
///     fn fetch(&self, keys: &[u32]) -> Vec<Result<Option<u32>, String>> {
///         let map = self.0.lock().unwrap();
///         keys.iter().map(|k| Ok(map.get(k).copied())).collect()
///     }
/// }
/// impl Writable for Kv {
///     type Write = (u32, u32);
///     type Written = ();
///     fn write(&self, writes: &[(u32, u32)]) -> Vec<Result<(), String>> {
///         let mut map = self.0.lock().unwrap();
///         writes.iter().map(|&(k, v)| { map.insert(k, v); Ok(()) }).collect()
///     }
/// }
/// let kv = Source::new(Kv::default());
/// assert_eq!(kv.fetch(1), Ok(None));
/// assert_eq!(kv.write((1, 10)), Ok(()));
/// assert_eq!(kv.fetch(1), Ok(Some(10)));
/// assert_eq!((kv.stats().calls, kv.stats().writes), (3, 1));
/// ```
pub trait Writable: DataSource {
    /// One write.
    type Write: Clone + Debug + Send + Sync + 'static;
    /// The answer to one write.
    type Written: Clone + Send + Sync + 'static;

    /// Apply `writes` in their order (program order), one result per write.
    ///
    /// # Panics
    ///
    /// A panic here aborts the algorithm's run and is re-raised in its
    /// caller.
    fn write(&self, writes: &[Self::Write]) -> Vec<Result<Self::Written, Self::Error>>;
}

impl<S: Writable> Source<S> {
    /// Write now, with a call of its own: what `src.write(w)` does when the
    /// algorithm runs sequentially or is called from ordinary code.
    ///
    /// # Errors
    ///
    /// The source's error for this write.
    ///
    /// # Panics
    ///
    /// If the source panics, or returns no result for the write.
    pub fn write(&self, write: S::Write) -> Result<S::Written, S::Error> {
        let mut results = self.call_write(std::slice::from_ref(&write));
        results.pop().expect("checked by call_write")
    }
}
