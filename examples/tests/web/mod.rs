//! Shared by the web server tests: a server on a generated document root.

#![allow(dead_code)] // each test file uses a part

pub mod client;

use std::path::{Path, PathBuf};

use ohua::Deployment;
use ohua_examples::web::{self, Limits, Root, Run, ServeStats, Server, Variant};

/// A server on a fresh generated document root, stopped on drop.
pub struct TestServer {
    pub server: Option<Server>,
    pub addr: std::net::SocketAddr,
    pub dir: tempfile::TempDir,
}

impl TestServer {
    pub fn start(limits: Limits, variant: Variant, run: Run) -> TestServer {
        TestServer::start_with_cache(limits, variant, run, false)
    }

    /// As [`TestServer::start`]; `cache`: keep files in memory once read.
    pub fn start_with_cache(limits: Limits, variant: Variant, run: Run, cache: bool) -> TestServer {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root_dir = dir.path().join("root");
        web::generate_root(&root_dir).expect("the document root");
        let root = Root::new(&root_dir, cache).expect("the root");
        let server = web::start("127.0.0.1:0".parse().unwrap(), root, limits, variant, run).expect("the server starts");
        let addr = server.addr;
        TestServer { server: Some(server), addr, dir }
    }

    pub fn default() -> TestServer {
        TestServer::start(Limits::default(), Variant::Plain, Run::Configured)
    }

    pub fn root(&self) -> PathBuf {
        self.dir.path().join("root")
    }

    /// Stop the server and return its statistics (within 20 s, or fail).
    pub fn stop(mut self) -> ServeStats {
        let server = self.server.take().expect("running");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(server.stop());
        });
        rx.recv_timeout(std::time::Duration::from_secs(20)).expect("the server stops within 20 s")
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(s) = &self.server {
            s.shutdown_handle().stop();
        }
    }
}

/// The deployment files of `examples/web_server/`, by file name.
pub fn strategy_files() -> Vec<(String, Deployment)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("web_server");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("examples/web_server")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let d = Deployment::from_toml_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p.file_name().unwrap().to_string_lossy().into_owned(), d)
        })
        .collect()
}

/// `len` bytes that differ at every offset and from seed to seed, so a body
/// that is shifted, cut short or another file's shows.
pub fn pattern(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}
