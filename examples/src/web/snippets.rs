//! `load-ram` and `route` of the data-sensitive server (Fig. 2.25): the
//! small resources under `news/`, kept in memory.

use std::collections::HashMap;
use std::sync::Arc;

use super::answer::{answer, Loaded};
use super::exchange::{Body, Exchange};
use super::{content_type, Root, Validators};

/// `load-ram` of Fig. 2.25: the small resources under `news/`, read into
/// memory once at start, so answering them never touches the disk.
pub struct Snippets {
    /// By request path, with the validators the file had when read.
    files: HashMap<String, (Arc<[u8]>, Option<Validators>)>,
}

/// The prefix of the resources [`Snippets`] holds.
pub const SNIPPETS: &str = "news/";

impl Snippets {
    /// The files directly in `root/news/` (not in its subdirectories).
    pub fn new(root: &Root) -> Self {
        let mut files = HashMap::new();
        let dir = root.dir().join(SNIPPETS);
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let name = format!("{SNIPPETS}{}", entry.file_name().to_string_lossy());
            // Only regular files below the root: a symlink out is skipped.
            if let Ok((bytes, _, validators)) = root.read_as(&name, false) {
                files.insert(name, (bytes.into(), validators));
            }
        }
        Snippets { files }
    }

    /// `load-ram`: the snippet the request names, or 404.
    pub fn load(&mut self, ex: Exchange) -> Exchange {
        // Every snippet is a file: `news/1.html/` is 404.
        answer(ex, |r| {
            let (bytes, validators) = self.files.get(&r.path).filter(|_| !r.dir).ok_or(404u16)?;
            Ok(Loaded { body: Body::Bytes(bytes.clone()), kind: content_type(&r.path), validators: validators.clone() })
        })
    }
}

/// `route` of Fig. 2.25: whether the request is for a snippet (kept in
/// memory) rather than a file on disk. Errors and other steps go the disk
/// way (they do not touch it).
pub fn route(ex: Exchange) -> (Exchange, bool) {
    let in_ram = ex.path().is_some_and(|p| p.starts_with(SNIPPETS));
    (ex, in_ram)
}
