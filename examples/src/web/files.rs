//! The document root and the files in it: opened so that none lies
//! outside it, with their length, type and validators.

use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::Validators;

/// The directory the server serves, resolved once (symlinks and all), so
/// every file can be checked to lie below it.
#[derive(Debug, Clone)]
pub struct Root {
    dir: PathBuf,
    /// The directory, open: files are opened below it ([`Root::read`]).
    handle: Arc<std::fs::File>,
    /// Keep files in memory once read ([`super::Files`]' cache).
    pub cache: bool,
    /// The largest file `load` reads into memory (and caches); a larger one
    /// is left open and streamed to the client from the file
    /// ([`super::Body::Stream`]; [`super::Limits::stream_above`]).
    pub stream_above: u64,
    /// The largest file [`Root::read`] reads into memory; larger ones get
    /// 500 there. `load` streams large files and serves them at any size.
    pub max_file: u64,
}

impl Root {
    /// The document root at `dir`.
    ///
    /// # Errors
    ///
    /// If `dir` does not exist or is not a directory.
    pub fn new(dir: &Path, cache: bool) -> io::Result<Root> {
        let super::Limits { stream_above, max_file, .. } = super::Limits::default();
        let dir = dir.canonicalize()?;
        if !dir.is_dir() {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{} is not a directory", dir.display())));
        }
        let handle = Arc::new(std::fs::File::open(&dir)?);
        Ok(Root { dir, handle, cache, stream_above, max_file })
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
        if len > self.max_file {
            return Err(500);
        }
        let mut bytes = vec![0; len as usize];
        file.read_exact(&mut bytes).map_err(status_of)?;
        Ok((bytes, kind, validators))
    }

    /// The file a request path names, open, with its length and
    /// `Content-Type`: [`Root::read`] without reading it (the zero-copy
    /// `load`, [`super::Files::load_zero_copy`], and large files of the default
    /// `load`).
    ///
    /// # Errors
    ///
    /// As [`Root::read`], but a file of any size is opened (nothing is
    /// read, so neither [`Root::max_file`] nor a read error applies).
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

pub(crate) fn status_of(e: io::Error) -> u16 {
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
