//! `load`: the state object that finds a request's file, in memory (small
//! files, with an optional cache) or open to be streamed (large ones).

use std::collections::HashMap;
use std::io::Read;
use std::sync::Arc;

use super::answer::{answer, Loaded};
use super::exchange::{Body, Exchange, OpenFile, Request};
use super::files::status_of;
use super::{Root, Validators};

/// `load` from disk, with an optional cache: a state object of the
/// server's algorithm (the cache is its state; off by default, as the
/// dissertation's server, which reads each file per request). Files up to
/// [`Root::stream_above`] are read into memory (and cached); larger ones
/// are left open for `reply` to stream ([`Body::Stream`]).
///
/// Updatable: a running server gets a cache by a live update that
/// transforms this state ([`Files::with_cache`]; the cache insertion of the
/// dissertation's Fig. 5.17, `tests/web_live_update.rs`), and switches to
/// zero-copy by replacing `load` with [`Files::load_zero_copy`] together
/// with `reply` ([`super::switch_to_sendfile`], §5.3.2's NIO switch).
pub struct Files {
    root: Root,
    /// By request path (normalised by `target_path`, `/` at the end for a
    /// target that ended in one).
    cache: HashMap<String, Cached>,
}

/// A file in the cache: its bytes, `Content-Type` and validators.
type Cached = (Arc<[u8]>, &'static str, Option<Validators>);

#[ohua::updatable]
impl Files {
    /// Serve from `root`.
    pub fn new(root: &Root) -> Self {
        Files { root: root.clone(), cache: HashMap::new() }
    }

    /// The same files, keeping what they read in memory from now on.
    pub fn with_cache(&self) -> Files {
        let mut root = self.root.clone();
        root.cache = true;
        Files { root, cache: self.cache.clone() }
    }

    /// The same files without a cache: what was kept in memory is dropped
    /// (the zero-copy switch's transform: a file sent from the kernel needs
    /// no copy in memory).
    pub fn without_cache(&self) -> Files {
        let mut root = self.root.clone();
        root.cache = false;
        Files { root, cache: HashMap::new() }
    }

    /// `load`: the file the request names, read into memory (or from the
    /// cache), or open to be streamed if it is larger than
    /// [`Root::stream_above`]; or the error status.
    pub fn load(&mut self, ex: Exchange) -> Exchange {
        answer(ex, |r| self.read(r))
    }

    /// `load`, version 2 (zero-copy): the file the request names, opened
    /// and not read; `reply` sends it from the kernel
    /// ([`super::reply_sendfile`]). The cache is not consulted (the switch
    /// drops it, [`Files::without_cache`]). Same statuses as
    /// [`Files::load`]. Only [`super::reply_sendfile`] sends what this
    /// returns: the default `reply` would send the head without the body.
    pub fn load_zero_copy(&mut self, ex: Exchange) -> Exchange {
        answer(ex, |r| {
            let (file, len, kind, validators) = self.root.open_as(&r.path, r.dir)?;
            Ok(Loaded { body: Body::File(OpenFile::new(file, len)), kind, validators })
        })
    }

    fn read(&mut self, r: &Request) -> Result<Loaded, u16> {
        // `a/` is cached apart from `a`: for a file, `a/` is 404.
        let key = if r.dir { format!("{}/", r.path) } else { r.path.clone() };
        if let Some((body, kind, validators)) = self.cache.get(&key) {
            return Ok(Loaded { body: Body::Bytes(body.clone()), kind, validators: validators.clone() });
        }
        let (mut file, len, kind, validators) = self.root.open_as(&r.path, r.dir)?;
        if len > self.root.stream_above {
            return Ok(Loaded { body: Body::Stream(OpenFile::new(file, len)), kind, validators });
        }
        let mut bytes = vec![0; len as usize];
        file.read_exact(&mut bytes).map_err(status_of)?;
        let body: Arc<[u8]> = bytes.into();
        if self.root.cache {
            self.cache.insert(key, (body.clone(), kind, validators.clone()));
        }
        Ok(Loaded { body: Body::Bytes(body), kind, validators })
    }
}
