//! Data sources and the handle algorithms fetch through.

use std::fmt::Debug;
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A service an algorithm reads from: a batch function over requests with
/// one result per request.
///
/// Inside an `#[ohua::algorithm]`, every `src.fetch(q)` on a parameter
/// declared `src: &Source<S>` joins a batch: the runtime collects the
/// requests that do not depend on each other's answers, removes duplicates,
/// answers repeats within one call of the algorithm from a cache, and calls
/// [`DataSource::fetch`] once per batch (split by
/// [`DataSource::max_batch_size`]). Run sequentially ([`Source::fetch`] from
/// ordinary code), every fetch is a call with one request.
///
/// An error for one request fails only that request's result (and whatever
/// the algorithm computes from it); the other requests of the batch are
/// answered as usual.
///
/// # Example
///
/// ```
/// use ohua_runtime::io::{DataSource, Source};
///
/// /// Squares numbers; negative ones are an error.
/// struct Squares;
/// impl DataSource for Squares {
///     type Request = i64;
///     type Response = i64;
///     type Error = String;
///     fn fetch(&self, requests: &[i64]) -> Vec<Result<i64, String>> {
///         requests.iter().map(|&x| if x < 0 { Err(format!("{x} < 0")) } else { Ok(x * x) }).collect()
///     }
/// }
/// let src = Source::new(Squares);
/// assert_eq!(src.fetch(7), Ok(49));
/// assert_eq!(src.fetch(-1), Err("-1 < 0".to_string()));
/// assert_eq!(src.stats().calls, 2);
/// ```
pub trait DataSource: Send + Sync + 'static {
    /// One request (a key). Equal requests are fetched once per call of an
    /// algorithm, so a request must say everything its answer depends on.
    type Request: Clone + Eq + Hash + Debug + Send + Sync + 'static;
    /// The answer to one request.
    type Response: Clone + Send + Sync + 'static;
    /// Why one request failed.
    type Error: Clone + Debug + Send + Sync + 'static;

    /// Answer `requests`, one result per request, in their order. The
    /// requests of one call are distinct.
    ///
    /// # Panics
    ///
    /// A panic here aborts the algorithm's run and is re-raised in its
    /// caller, as a panic of the fetch would be in sequential code.
    fn fetch(&self, requests: &[Self::Request]) -> Vec<Result<Self::Response, Self::Error>>;

    /// The most requests one call of [`DataSource::fetch`] may carry
    /// (`None`: no limit). Larger batches are split.
    fn max_batch_size(&self) -> Option<usize> {
        None
    }

    /// The name the run report lists the source under.
    fn name(&self) -> &str {
        let full = std::any::type_name::<Self>();
        full.rsplit("::").next().unwrap_or(full)
    }
}

/// A typed request: what an algorithm passes to `fetch` and what it gets
/// back. A source's own request type is one ([`Source::fetch`] of a plain
/// request returns the plain response); a source with several kinds of
/// request (an enum) gives each kind a type of its own with the answer's
/// type, so `db.fetch(PostInfo(id))` returns a `PostInfo`.
///
/// # Example
///
/// ```
/// use ohua_runtime::io::{DataSource, Query, Source};
///
/// #[derive(Clone, PartialEq, Eq, Hash, Debug)]
/// enum Req { Len(String), Upper(String) }
/// #[derive(Clone)]
/// enum Resp { Len(usize), Upper(String) }
/// struct Text;
/// impl DataSource for Text {
///     type Request = Req;
///     type Response = Resp;
///     type Error = ();
///     fn fetch(&self, rs: &[Req]) -> Vec<Result<Resp, ()>> {
///         rs.iter().map(|r| Ok(match r {
///             Req::Len(s) => Resp::Len(s.len()),
///             Req::Upper(s) => Resp::Upper(s.to_uppercase()),
///         })).collect()
///     }
/// }
/// struct Len(&'static str);
/// impl Query<Text> for Len {
///     type Output = usize;
///     fn request(self) -> Req { Req::Len(self.0.to_string()) }
///     fn output(r: Resp) -> usize { match r { Resp::Len(n) => n, _ => unreachable!() } }
/// }
/// assert_eq!(Source::new(Text).fetch(Len("four")), Ok(4));
/// ```
pub trait Query<S: DataSource> {
    /// What the algorithm gets for this request.
    type Output: Send + 'static;
    /// The source's request.
    fn request(self) -> S::Request;
    /// The typed answer from the source's response to [`Query::request`].
    fn output(response: S::Response) -> Self::Output;
}

/// A source's own request type is a query answered by its plain response.
impl<R, S> Query<S> for R
where
    S: DataSource<Request = R>,
{
    type Output = S::Response;
    fn request(self) -> R {
        self
    }
    fn output(response: S::Response) -> S::Response {
        response
    }
}

/// Counters of one source over the handle's life (all algorithm calls and
/// sequential fetches).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SourceStats {
    /// Calls of [`DataSource::fetch`] and [`Writable::write`] (batches).
    ///
    /// [`Writable::write`]: super::Writable::write
    pub calls: u64,
    /// Requests sent in those calls (writes included).
    pub requests: u64,
    /// Writes sent, all calls together.
    pub writes: u64,
}

/// A shared handle to a data source, the parameter type through which an
/// algorithm fetches (`db: &Source<PostDb>`). Cloning it is cheap; all
/// clones count into the same [`SourceStats`].
///
/// # Example
///
/// See [`DataSource`].
pub struct Source<S: DataSource> {
    inner: Arc<Inner<S>>,
}

struct Inner<S> {
    source: S,
    calls: AtomicU64,
    requests: AtomicU64,
    writes: AtomicU64,
}

impl<S: DataSource> Clone for Source<S> {
    fn clone(&self) -> Self {
        Source { inner: self.inner.clone() }
    }
}

impl<S: DataSource> Source<S> {
    /// A handle to `source`.
    pub fn new(source: S) -> Self {
        Source {
            inner: Arc::new(Inner {
                source,
                calls: AtomicU64::new(0),
                requests: AtomicU64::new(0),
                writes: AtomicU64::new(0),
            }),
        }
    }

    /// The source itself.
    pub fn get(&self) -> &S {
        &self.inner.source
    }

    /// Fetch one request now, with a call of its own: what an `src.fetch(q)`
    /// does when the algorithm runs sequentially (`ohua::sequential`) or is
    /// called from ordinary code. In a running algorithm the compiler
    /// batches fetches instead.
    ///
    /// # Errors
    ///
    /// The source's error for this request.
    ///
    /// # Panics
    ///
    /// If the source panics, or returns no result for the request.
    pub fn fetch<Q: Query<S>>(&self, query: Q) -> Result<Q::Output, S::Error> {
        let request = query.request();
        let mut results = self.call(std::slice::from_ref(&request));
        results.pop().expect("checked by call").map(Q::output)
    }

    /// The counters of this source so far.
    pub fn stats(&self) -> SourceStats {
        SourceStats {
            calls: self.inner.calls.load(Ordering::Relaxed),
            requests: self.inner.requests.load(Ordering::Relaxed),
            writes: self.inner.writes.load(Ordering::Relaxed),
        }
    }

    /// One call of the source, counted and checked.
    pub(crate) fn call(&self, requests: &[S::Request]) -> Vec<Result<S::Response, S::Error>> {
        self.counted(requests.len(), || self.inner.source.fetch(requests))
    }

    /// One write call of the source, counted and checked.
    pub(crate) fn call_write(&self, writes: &[S::Write]) -> Vec<Result<S::Written, S::Error>>
    where
        S: super::Writable,
    {
        self.inner.writes.fetch_add(writes.len() as u64, Ordering::Relaxed);
        self.counted(writes.len(), || self.inner.source.write(writes))
    }

    /// Count a call with `n` requests, make it, and check it answered each.
    fn counted<T>(&self, n: usize, call: impl FnOnce() -> Vec<T>) -> Vec<T> {
        self.inner.calls.fetch_add(1, Ordering::Relaxed);
        self.inner.requests.fetch_add(n as u64, Ordering::Relaxed);
        let results = call();
        assert_eq!(
            results.len(),
            n,
            "ohua: data source `{}` returned {} results for {} requests",
            self.inner.source.name(),
            results.len(),
            n
        );
        results
    }

    /// Identifies the source (all clones of a handle) within a run.
    pub(crate) fn id(&self) -> usize {
        Arc::as_ptr(&self.inner) as *const () as usize
    }
}

impl<S: DataSource + Debug> Debug for Source<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Source").field("source", &self.inner.source).field("stats", &self.stats()).finish()
    }
}
