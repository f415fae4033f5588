//! Data sources whose batch function is async (a database pool, an HTTP
//! client): [`AsyncDataSource`], run through [`Async`] on a tokio runtime.

use std::fmt::Debug;
use std::future::Future;
use std::hash::Hash;
use std::sync::OnceLock;

use tokio::runtime::{Handle, Runtime};

use super::source::DataSource;

/// A data source with an async batch function: what [`DataSource`] is for
/// blocking ones. Wrap it in [`Async`] to get a [`DataSource`]
/// (`Source::new(Async::new(MyHttpService::new()))`); algorithms fetch from
/// it exactly as from a blocking one.
///
/// Each batch runs on a thread of its own that drives the future on the
/// runtime [`Async`] holds, so batches of different sources are in flight
/// together whether their sources are blocking or async.
///
/// # Example
///
/// ```
/// use ohua_runtime::io::{Async, AsyncDataSource, Source};
///
/// struct Slow;
/// impl AsyncDataSource for Slow {
///     type Request = u32;
///     type Response = u32;
///     type Error = ();
///     async fn fetch(&self, requests: Vec<u32>) -> Vec<Result<u32, ()>> {
///         tokio::time::sleep(std::time::Duration::from_millis(1)).await;
///         requests.into_iter().map(|r| Ok(r + 1)).collect()
///     }
/// }
/// let src = Source::new(Async::new(Slow));
/// assert_eq!(src.fetch(41), Ok(42));
/// ```
pub trait AsyncDataSource: Send + Sync + 'static {
    /// One request, as [`DataSource::Request`].
    type Request: Clone + Eq + Hash + Debug + Send + Sync + 'static;
    /// The answer to one request.
    type Response: Clone + Send + Sync + 'static;
    /// Why one request failed.
    type Error: Clone + Debug + Send + Sync + 'static;

    /// Answer `requests` (distinct), one result per request, in order.
    fn fetch(
        &self,
        requests: Vec<Self::Request>,
    ) -> impl Future<Output = Vec<Result<Self::Response, Self::Error>>> + Send;

    /// The most requests one call may carry (`None`: no limit).
    fn max_batch_size(&self) -> Option<usize> {
        None
    }

    /// The name the run report lists the source under.
    fn name(&self) -> &str {
        let full = std::any::type_name::<Self>();
        full.rsplit("::").next().unwrap_or(full)
    }
}

/// An [`AsyncDataSource`] as a [`DataSource`]: each call drives the batch's
/// future to completion on a tokio runtime.
///
/// The runtime is the one given to [`Async::with_handle`]; [`Async::new`]
/// takes the runtime it is called in (so a pool created in `#[tokio::main]`
/// keeps running on its own runtime), or else a small runtime the process
/// shares (two worker threads, started at first use).
///
/// # Panics
///
/// A fetch made on a thread of a *current-thread* tokio runtime panics
/// (tokio cannot block there); the batches of a running algorithm are made
/// on threads of their own and are not affected. With a current-thread
/// runtime's handle, the batch futures can only use timers and sockets
/// while that runtime's thread is inside `Runtime::block_on`: prefer a
/// multi-thread runtime (`#[tokio::main]`'s default).
pub struct Async<A> {
    source: A,
    runtime: Handle,
    name: String,
}

impl<A: AsyncDataSource> Async<A> {
    /// `source` on the current tokio runtime, or the shared one outside any.
    pub fn new(source: A) -> Self {
        let runtime = Handle::try_current().unwrap_or_else(|_| shared_runtime().handle().clone());
        Async::with_handle(source, runtime)
    }

    /// `source` on the runtime of `runtime`.
    pub fn with_handle(source: A, runtime: Handle) -> Self {
        let name = source.name().to_string();
        Async { source, runtime, name }
    }

    /// The async source itself.
    pub fn get(&self) -> &A {
        &self.source
    }
}

impl<A: AsyncDataSource> DataSource for Async<A> {
    type Request = A::Request;
    type Response = A::Response;
    type Error = A::Error;

    fn fetch(&self, requests: &[A::Request]) -> Vec<Result<A::Response, A::Error>> {
        let batch = self.source.fetch(requests.to_vec());
        // Outside a runtime `block_in_place` just runs the closure; on a
        // multi-thread runtime's worker it moves that worker's other tasks
        // elsewhere first.
        tokio::task::block_in_place(|| self.runtime.block_on(batch))
    }

    fn max_batch_size(&self) -> Option<usize> {
        self.source.max_batch_size()
    }

    fn name(&self) -> &str {
        &self.name
    }
}

/// The runtime of sources created outside any tokio runtime.
fn shared_runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("ohua-async-io")
            .enable_all()
            .build()
            .expect("ohua: cannot start the tokio runtime of async data sources")
    })
}
