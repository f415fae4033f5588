//! InContext's directory synchronisation (§7.4) with a snapshot state: the
//! receiving end of a sync service keeps a compressed mirror of a directory
//! tree. The sender announces each change (a file's new content with its
//! length and SHA-256, a delete, a rename) and stages the new content as a
//! file of its own; all of it is real files in temporary directories. Per
//! announcement, the expensive `&self` step on the index (path → length,
//! SHA-256, version) decides what to do: a content the index already holds
//! (a touch) is skipped unread; otherwise the staged file is read, its
//! SHA-256 checked against the announcement and the file gzip-compressed
//! (`sha2`, `flate2`). Then the cheap `&mut self` metadata update of the
//! index, and the mirror applies the work in announcement order: it writes,
//! deletes or renames `.gz` files in the destination directory. The index
//! is declared `ohua::snapshot(Index::new())`: the reads run on snapshots,
//! on replicas, beside the updates after them, and the destination
//! directory equals the sequential run's byte for byte.
//!
//! ```text
//! cargo run --release -p ohua-examples --bin dirsync [-- --files N --events N]
//! ```

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use flate2::write::GzEncoder;
use flate2::Compression;
use ohua::algorithm;
use ohua_examples::{arg_usize, best_of, print_case_study, Rng};
use sha2::{Digest, Sha256};

/// What the sender announces, in the order its directory changed.
#[derive(Debug, Clone)]
pub enum Change {
    /// `path` now holds the content staged in the file `staged`.
    Update { path: String, staged: PathBuf, len: u64, sha256: [u8; 32] },
    /// `path` is gone.
    Delete { path: String },
    /// `from` is now called `to` (replacing what `to` held).
    Rename { from: String, to: String },
}

/// What the sender says each path holds: the synchronised metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    len: u64,
    sha256: [u8; 32],
    version: u32,
}

/// The index: path → what the sender last announced for it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Index {
    entries: BTreeMap<String, Entry>,
}

impl Index {
    fn new() -> Self {
        Index::default()
    }

    /// `&self`: the expensive part, on a snapshot of the index as it was
    /// before this announcement.
    fn prepare(&self, change: &Change) -> Work {
        match change {
            Change::Update { path, staged, len, sha256 } => {
                let held = self.entries.get(path);
                if held.is_some_and(|e| e.len == *len && e.sha256 == *sha256) {
                    return Work::Unchanged { path: path.clone() };
                }
                let data = std::fs::read(staged).expect("reading a staged file");
                // A transfer damaged on the way must not reach the mirror.
                if data.len() as u64 != *len || Sha256::digest(&data).as_slice() != sha256 {
                    return Work::Rejected { path: path.clone() };
                }
                let mut gz = GzEncoder::new(Vec::with_capacity(data.len() / 4), Compression::default());
                gz.write_all(&data).expect("compressing into memory");
                Work::Store { path: path.clone(), len: *len, gz: gz.finish().expect("compressing into memory") }
            }
            Change::Delete { path } => Work::Delete { path: path.clone() },
            Change::Rename { from, to } => Work::Rename { from: from.clone(), to: to.clone() },
        }
    }

    /// `&mut self`: cheap, in announcement order on the live index. It
    /// records what was announced, not what `prepare` found, so that no
    /// read waits for the one before it: a rejected transfer stays out of
    /// the mirror until its path's next change.
    fn record(&mut self, change: &Change) {
        match change {
            Change::Update { path, len, sha256, .. } => {
                let version = self.entries.get(path).map_or(0, |e| e.version + 1);
                self.entries.insert(path.clone(), Entry { len: *len, sha256: *sha256, version });
            }
            Change::Delete { path } => {
                self.entries.remove(path);
            }
            Change::Rename { from, to } => {
                if let Some(e) = self.entries.remove(from) {
                    self.entries.insert(to.clone(), e);
                }
            }
        }
    }

    /// The index as text, one line per path, for the mirror's `MANIFEST`.
    fn manifest(&self) -> String {
        let mut out = String::new();
        for (path, e) in &self.entries {
            let hex: String = e.sha256.iter().map(|b| format!("{b:02x}")).collect();
            writeln!(out, "{path} {} {hex} v{}", e.len, e.version).unwrap();
        }
        out
    }
}

/// What the mirror is to do for one announcement.
#[derive(Debug, Clone)]
pub enum Work {
    /// Write the verified content, compressed.
    Store {
        path: String,
        len: u64,
        gz: Vec<u8>,
    },
    /// The index already holds this content: nothing to copy.
    Unchanged {
        path: String,
    },
    /// The staged content does not match its announcement.
    Rejected {
        path: String,
    },
    Delete {
        path: String,
    },
    Rename {
        from: String,
        to: String,
    },
}

/// What the mirror did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    stored: u64,
    unchanged: u64,
    rejected: u64,
    deleted: u64,
    renamed: u64,
    bytes_in: u64,
    bytes_out: u64,
}

/// The compressed mirror in the destination directory: `path` is kept as
/// `path.gz`. Plain state: its writes happen in announcement order.
#[derive(Debug)]
pub struct Mirror {
    dest: PathBuf,
    tally: Tally,
}

impl Mirror {
    fn new(dest: PathBuf) -> Self {
        Mirror { dest, tally: Tally::default() }
    }

    fn file(&self, path: &str) -> PathBuf {
        self.dest.join(format!("{path}.gz"))
    }

    fn apply(&mut self, work: Work) {
        match work {
            Work::Store { path, len, gz } => {
                let file = self.file(&path);
                std::fs::create_dir_all(file.parent().unwrap()).expect("creating a mirror directory");
                std::fs::write(&file, &gz).expect("writing a mirror file");
                self.tally.stored += 1;
                self.tally.bytes_in += len;
                self.tally.bytes_out += gz.len() as u64;
            }
            Work::Unchanged { .. } => self.tally.unchanged += 1,
            Work::Rejected { path } => {
                // The mirror never keeps a content the index no longer lists.
                remove_if_there(&self.file(&path));
                self.tally.rejected += 1;
            }
            Work::Delete { path } => {
                remove_if_there(&self.file(&path));
                self.tally.deleted += 1;
            }
            Work::Rename { from, to } => {
                let (from, to) = (self.file(&from), self.file(&to));
                if from.exists() {
                    std::fs::create_dir_all(to.parent().unwrap()).expect("creating a mirror directory");
                    std::fs::rename(&from, &to).expect("renaming a mirror file");
                } else {
                    // `from` was rejected: `to` holds nothing verified either.
                    remove_if_there(&to);
                }
                self.tally.renamed += 1;
            }
        }
    }

    fn finish(&mut self, manifest: String) -> Tally {
        std::fs::write(self.dest.join("MANIFEST"), manifest).expect("writing the manifest");
        self.tally
    }
}

fn remove_if_there(file: &Path) {
    match std::fs::remove_file(file) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => panic!("removing {}: {e}", file.display()),
        _ => {}
    }
}

#[algorithm]
fn dirsync(changes: Vec<Change>, dest: PathBuf) -> Tally {
    let mut index = ohua::snapshot(Index::new());
    let mut mirror = Mirror::new(dest);
    for c in changes {
        let work = index.prepare(&c);
        index.record(&c);
        mirror.apply(work);
    }
    let manifest = index.manifest();
    mirror.finish(manifest)
}

fn sequential(changes: Vec<Change>, dest: PathBuf) -> Tally {
    let mut index = Index::new();
    let mut mirror = Mirror::new(dest);
    for c in changes {
        let work = index.prepare(&c);
        index.record(&c);
        mirror.apply(work);
    }
    mirror.finish(index.manifest())
}

/// Log lines, as the services whose logs are synchronised write them:
/// compressible, not trivially.
fn log_lines(rng: &mut Rng, out: &mut Vec<u8>, bytes: usize) {
    const LEVELS: [&str; 4] = ["INFO ", "INFO ", "DEBUG", "WARN "];
    const ROUTES: [&str; 6] =
        ["/api/v1/items", "/api/v1/users", "/login", "/static/app.js", "/search", "/api/v2/orders"];
    let mut line = String::new();
    let end = out.len() + bytes;
    while out.len() < end {
        line.clear();
        let t = rng.below(86_400_000);
        write!(
            line,
            "2024-05-{:02}T{:02}:{:02}:{:02}.{:03}Z {} ",
            1 + rng.below(28),
            t / 3_600_000,
            t / 60_000 % 60,
            t / 1000 % 60,
            t % 1000,
            rng.pick(&LEVELS)
        )
        .unwrap();
        match rng.below(4) {
            0 => write!(
                line,
                "worker[{}]: job {:08x} done in {} ms",
                rng.below(64),
                rng.next_u64() as u32,
                rng.below(5000)
            ),
            1 => write!(line, "db: query returned {} rows in {} us", rng.below(1000), rng.below(100_000)),
            _ => write!(
                line,
                "http: {} {}/{} from 10.{}.{}.{} status {} {} bytes",
                if rng.below(3) == 0 { "POST" } else { "GET" },
                rng.pick(&ROUTES),
                rng.below(100_000),
                rng.below(256),
                rng.below(256),
                rng.below(256),
                [200, 200, 200, 304, 404, 500][rng.below(6) as usize],
                rng.below(50_000)
            ),
        }
        .unwrap();
        line.push('\n');
        out.extend_from_slice(line.as_bytes());
    }
}

/// The sender's side: its directory (in memory) and the staging directory
/// the new contents land in.
struct Sender {
    rng: Rng,
    staging: PathBuf,
    files: BTreeMap<String, (Vec<u8>, PathBuf)>,
    staged: usize,
    changes: Vec<Change>,
}

impl Sender {
    /// `path` now holds `content`: staged as a file of its own, one in 100
    /// with a byte flipped on the way.
    fn update(&mut self, path: String, content: Vec<u8>) {
        let staged = self.staging.join(format!("{:05}-{}", self.staged, path.replace('/', "-")));
        self.staged += 1;
        let sha256 = Sha256::digest(&content).into();
        let mut sent = content.clone();
        if self.rng.below(100) == 0 {
            let at = self.rng.below(sent.len() as u64) as usize;
            sent[at] ^= 0x20;
        }
        std::fs::write(&staged, &sent).expect("staging a file");
        self.changes.push(Change::Update {
            path: path.clone(),
            staged: staged.clone(),
            len: content.len() as u64,
            sha256,
        });
        self.files.insert(path, (content, staged));
    }

    fn pick(&mut self) -> String {
        let at = self.rng.below(self.files.len() as u64) as usize;
        self.files.keys().nth(at).unwrap().clone()
    }

    fn new_content(&mut self) -> Vec<u8> {
        let mut content = Vec::new();
        let bytes = 20_000 + self.rng.below(180_000) as usize;
        log_lines(&mut self.rng, &mut content, bytes);
        content
    }
}

/// `files` files of 20-200 KB in 8 directories, all announced, then
/// `events` changes: 55 % new lines in a log (or, past 256 KB, a rotated
/// log), 20 % touches (the same content announced again), 8 % deletes,
/// 10 % renames (one in 4 onto an existing name), 7 % new files.
fn changes(files: usize, events: usize, staging: &Path, seed: u64) -> Vec<Change> {
    const DIRS: [&str; 8] = ["app", "auth", "cache", "db", "jobs", "mail", "search", "web"];
    let mut s = Sender {
        rng: Rng::new(seed),
        staging: staging.to_path_buf(),
        files: BTreeMap::new(),
        staged: 0,
        changes: Vec::new(),
    };
    let mut named = 0;
    let mut name = |rng: &mut Rng| {
        named += 1;
        format!("{}/{}-{named:04}.log", rng.pick(&DIRS), rng.pick(&DIRS))
    };
    for _ in 0..files {
        let path = name(&mut s.rng);
        let content = s.new_content();
        s.update(path, content);
    }
    for _ in 0..events {
        let roll = s.rng.below(100);
        if s.files.len() < 2 || roll >= 93 {
            let path = name(&mut s.rng);
            let content = s.new_content();
            s.update(path, content);
        } else if roll < 55 {
            let path = s.pick();
            let mut content = s.files[&path].0.clone();
            if content.len() > 256_000 {
                content = s.new_content();
            } else {
                let more = 2_000 + s.rng.below(30_000) as usize;
                log_lines(&mut s.rng, &mut content, more);
            }
            s.update(path, content);
        } else if roll < 75 {
            let path = s.pick();
            let (content, staged) = s.files[&path].clone();
            let (len, sha256) = (content.len() as u64, Sha256::digest(&content).into());
            s.changes.push(Change::Update { path, staged, len, sha256 });
        } else if roll < 83 {
            let path = s.pick();
            s.files.remove(&path);
            s.changes.push(Change::Delete { path });
        } else {
            let from = s.pick();
            let to = if s.rng.below(4) == 0 { s.pick() } else { name(&mut s.rng) };
            if from != to {
                let file = s.files.remove(&from).unwrap();
                s.files.insert(to.clone(), file);
                s.changes.push(Change::Rename { from, to });
            }
        }
    }
    s.changes
}

/// Every file under `dir`, sorted: (path relative to `dir`, bytes).
fn contents(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
        for entry in std::fs::read_dir(dir).expect("listing a mirror directory") {
            let path = entry.expect("listing a mirror directory").path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                out.push((path.strip_prefix(root).unwrap().to_path_buf(), std::fs::read(&path).expect("reading")));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

fn main() {
    let files = arg_usize("--files", "DIRSYNC_FILES", 100);
    let events = arg_usize("--events", "DIRSYNC_EVENTS", 300);
    let runs = 3;
    let staging = tempfile::tempdir().expect("creating a temporary directory");
    let input = changes(files, events, staging.path(), 11);
    let count = |f: fn(&Change) -> bool| input.iter().filter(|c| f(c)).count();
    println!(
        "dirsync: {} announcements ({} updates, {} deletes, {} renames): {files} log files, then {events} changes",
        input.len(),
        count(|c| matches!(c, Change::Update { .. })),
        count(|c| matches!(c, Change::Delete { .. })),
        count(|c| matches!(c, Change::Rename { .. }))
    );

    // Each run writes its own destination directory; all are kept until
    // they are compared, and made (and removed) outside the clock.
    let mut dests: Vec<tempfile::TempDir> = Vec::new();
    let fresh = |dests: &mut Vec<tempfile::TempDir>| {
        let dir = tempfile::tempdir().expect("creating a temporary directory");
        let path = dir.path().to_path_buf();
        dests.push(dir);
        (input.clone(), path)
    };
    let (seq, t_seq) = best_of(runs, || fresh(&mut dests), |(c, d)| sequential(c, d));
    let seq_dir = dests.last().unwrap().path().to_path_buf();
    let (c, d) = fresh(&mut dests);
    let start = std::time::Instant::now();
    let first = dirsync(c, d);
    let t_first = start.elapsed();
    let (got, t_def) = best_of(runs, || fresh(&mut dests), |(c, d)| dirsync(c, d));
    let (c, d) = fresh(&mut dests);
    let (profiled, reports) = ohua::profile(|| dirsync(c, d));
    assert_eq!(first, seq, "the first run's tally differs from sequential execution");
    assert_eq!(got, seq, "the default deployment's tally differs from sequential execution");
    assert_eq!(profiled, seq, "the profiled run's tally differs from sequential execution");
    let expected = contents(&seq_dir);
    for dest in &dests {
        assert!(
            contents(dest.path()) == expected,
            "{} differs from the sequential run's mirror",
            dest.path().display()
        );
    }
    println!(
        "stored {} ({:.1} MB compressed to {:.1} MB), unchanged {}, rejected {}, deleted {}, renamed {}; \
         {} mirrors equal sequential byte for byte: yes ({} files)",
        seq.stored,
        seq.bytes_in as f64 / 1e6,
        seq.bytes_out as f64 / 1e6,
        seq.unchanged,
        seq.rejected,
        seq.deleted,
        seq.renamed,
        dests.len(),
        expected.len()
    );
    print_case_study(runs, t_seq, t_first, t_def, &reports[0]);
}
