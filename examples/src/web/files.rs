//! `load`: the document root and the files in it.

use std::collections::HashMap;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::answer::{answer, Loaded};
use super::exchange::{Body, Exchange, OpenFile, Request};
use super::Validators;

/// The directory the server serves, resolved once (symlinks and all), so
/// every file can be checked to lie below it.
#[derive(Debug, Clone)]
pub struct Root {
    dir: PathBuf,
    /// The directory, open: files are opened below it ([`Root::read`]).
    handle: Arc<std::fs::File>,
    /// Keep files in memory once read ([`Files`]' cache).
    pub cache: bool,
    /// The largest file served; larger ones get 500 (a file is read into
    /// memory to be sent).
    pub max_file: u64,
}

impl Root {
    /// The document root at `dir`.
    ///
    /// # Errors
    ///
    /// If `dir` does not exist or is not a directory.
    pub fn new(dir: &Path, cache: bool) -> io::Result<Root> {
        let max_file = super::Limits::default().max_file;
        let dir = dir.canonicalize()?;
        if !dir.is_dir() {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{} is not a directory", dir.display())));
        }
        let handle = Arc::new(std::fs::File::open(&dir)?);
        Ok(Root { dir, handle, cache, max_file })
    }

    /// The directory, resolved.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file a request path names: `index.html` for a directory. The
    /// path is resolved (symlinks) and must stay below the root.
    ///
    /// # Errors
    ///
    /// 404 for no such file, 403 for a file outside the root or one the
    /// server may not read.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, u16> {
        let mut file = self.dir.join(path);
        if file.is_dir() {
            file.push("index.html");
        }
        let resolved = file.canonicalize().map_err(status_of)?;
        if !resolved.starts_with(&self.dir) {
            return Err(403);
        }
        if !resolved.is_file() {
            return Err(404);
        }
        Ok(resolved)
    }
}

impl Root {
    /// The bytes and the `Content-Type` of the file a request path names
    /// (`index.html` for a directory), opened so that it cannot lie
    /// outside the root (`beneath.rs`).
    ///
    /// # Errors
    ///
    /// 404 for no such file, 403 for one outside the root or not readable,
    /// 500 for one over [`Root::max_file`] or a failed read.
    pub fn read(&self, path: &str) -> Result<(Vec<u8>, &'static str), u16> {
        self.read_as(path, false).map(|(bytes, kind, _)| (bytes, kind))
    }

    /// [`Root::read`] as [`Root::open_as`] opens, with the file's
    /// validators.
    pub(crate) fn read_as(&self, path: &str, dir: bool) -> Result<(Vec<u8>, &'static str, Option<Validators>), u16> {
        let (mut file, len, kind, validators) = self.open_as(path, dir)?;
        let mut bytes = vec![0; len as usize];
        file.read_exact(&mut bytes).map_err(status_of)?;
        Ok((bytes, kind, validators))
    }

    /// The file a request path names, open, with its length and
    /// `Content-Type`: [`Root::read`] without reading it (the zero-copy
    /// `load`, [`Files::load_zero_copy`]). Same statuses as `read`.
    ///
    /// # Errors
    ///
    /// As [`Root::read`] (no read, so no read error).
    pub fn open(&self, path: &str) -> Result<(std::fs::File, u64, &'static str), u16> {
        self.open_as(path, false).map(|(file, len, kind, _)| (file, len, kind))
    }

    /// [`Root::open`] with the file's validators (`Last-Modified`, `ETag`);
    /// `dir`: the request's target ended in `/`, so a file (not a
    /// directory) by that name is 404 ([`super::Target::dir`]).
    pub(crate) fn open_as(&self, path: &str, dir: bool) -> Result<Opened, u16> {
        let (mut file, name) = match super::beneath::open_beneath(&self.handle, path) {
            Err(e) if e.raw_os_error() == Some(libc::ENOSYS) => {
                // `resolve` has already gone from a directory to its index.
                if dir && !self.dir.join(path).is_dir() {
                    return Err(404);
                }
                let resolved = self.resolve(path)?;
                let name = resolved.to_string_lossy().into_owned();
                (std::fs::File::open(resolved).map_err(status_of)?, name)
            }
            opened => (opened.map_err(beneath_status)?, path.to_string()),
        };
        let mut meta = file.metadata().map_err(status_of)?;
        let mut name = name;
        if meta.is_dir() {
            name = if path.is_empty() { "index.html".to_string() } else { format!("{path}/index.html") };
            file = super::beneath::open_beneath(&self.handle, &name).map_err(beneath_status)?;
            meta = file.metadata().map_err(status_of)?;
        } else if dir {
            return Err(404);
        }
        if !meta.is_file() {
            return Err(404);
        }
        if meta.len() > self.max_file {
            return Err(500);
        }
        let validators = meta.modified().ok().and_then(|m| Validators::of(m, meta.len()));
        Ok((file, meta.len(), content_type(&name), validators))
    }
}

/// An open file: its length, `Content-Type` and validators.
pub(crate) type Opened = (std::fs::File, u64, &'static str, Option<Validators>);

/// The status for an `openat2` error: leaving the root is forbidden.
fn beneath_status(e: io::Error) -> u16 {
    match e.raw_os_error() {
        Some(libc::EXDEV | libc::ELOOP | libc::EACCES | libc::EPERM) => 403,
        Some(libc::ENOENT | libc::ENOTDIR | libc::ENAMETOOLONG) => 404,
        _ => 500,
    }
}

fn status_of(e: io::Error) -> u16 {
    match e.kind() {
        io::ErrorKind::NotFound => 404,
        io::ErrorKind::PermissionDenied => 403,
        _ => 500,
    }
}

/// The `Content-Type` for a file name's extension.
///
/// # Example
///
/// ```
/// assert_eq!(ohua_examples::web::content_type("a/b.html"), "text/html; charset=utf-8");
/// assert_eq!(ohua_examples::web::content_type("x"), "application/octet-stream");
/// ```
pub fn content_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, ext)| ext.to_ascii_lowercase()).as_deref() {
        Some("html" | "htm") => "text/html; charset=utf-8",
        Some("txt") => "text/plain; charset=utf-8",
        Some("css") => "text/css",
        Some("js") => "text/javascript",
        Some("json") => "application/json",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("svg") => "image/svg+xml",
        Some("ico") => "image/x-icon",
        _ => "application/octet-stream",
    }
}

/// `load` from disk, with an optional cache: a state object of the
/// server's algorithm (the cache is its state; off by default, as the
/// dissertation's server, which reads each file per request).
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
        Files { root: Root { cache: true, ..self.root.clone() }, cache: self.cache.clone() }
    }

    /// The same files without a cache: what was kept in memory is dropped
    /// (the zero-copy switch's transform: a file sent from the kernel needs
    /// no copy in memory).
    pub fn without_cache(&self) -> Files {
        Files { root: Root { cache: false, ..self.root.clone() }, cache: HashMap::new() }
    }

    /// `load`: the file the request names, read into memory (or from the
    /// cache), or the error status.
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
        let (bytes, kind, validators) = self.root.read_as(&r.path, r.dir)?;
        let body: Arc<[u8]> = bytes.into();
        if self.root.cache {
            self.cache.insert(key, (body.clone(), kind, validators.clone()));
        }
        Ok(Loaded { body: Body::Bytes(body), kind, validators })
    }
}
