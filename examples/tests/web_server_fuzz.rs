//! Property tests of the request parsing path (`parse_request`,
//! `target_path`, `Root::resolve`) on arbitrary bytes and on mutated
//! requests: never a panic, never an unbounded wait for more input, never a
//! path that leaves the document root.

use ohua_examples::web::{parse_request, target_path, Limits, Root};
use proptest::prelude::*;

const STATUSES: [u16; 9] = [400, 403, 405, 413, 414, 431, 501, 505, 404];

/// Pieces requests are made of, hostile ones included.
fn target() -> impl Strategy<Value = String> {
    let segment = prop_oneof![
        Just("..".to_string()),
        Just(".".to_string()),
        Just("%2e%2e".to_string()),
        Just("%2E.".to_string()),
        Just("%2f".to_string()),
        Just("%5c".to_string()),
        Just("%00".to_string()),
        Just("%ff".to_string()),
        Just("\\".to_string()),
        Just("news".to_string()),
        Just("link".to_string()),
        Just("small.html".to_string()),
        "[a-z0-9%._-]{0,8}",
    ];
    (prop::collection::vec(segment, 0..6), any::<bool>(), "[?#]?[a-z=&]{0,4}")
        .prop_map(|(segs, lead, tail)| format!("{}{}{tail}", if lead { "/" } else { "" }, segs.join("/")))
}

fn request() -> impl Strategy<Value = Vec<u8>> {
    let method = prop_oneof![Just("GET"), Just("HEAD"), Just("POST"), Just("BREW"), Just("G\u{e9}T"), Just("")];
    let version = prop_oneof![Just("HTTP/1.1"), Just("HTTP/1.0"), Just("HTTP/2.0"), Just("HTTP/1.1 x"), Just("")];
    let header = prop_oneof![
        Just("Host: x".to_string()),
        Just("Connection: close".to_string()),
        Just("Content-Length: 3".to_string()),
        Just("Transfer-Encoding: chunked".to_string()),
        Just("Bad header".to_string()),
        "[A-Za-z-]{1,10}: [ -~]{0,20}",
    ];
    let eol = prop_oneof![Just("\r\n"), Just("\n"), Just("\r")];
    (method, target(), version, prop::collection::vec(header, 0..6), eol, prop::collection::vec(any::<u8>(), 0..8))
        .prop_map(|(m, t, v, hs, eol, junk)| {
            let mut r = format!("{m} {t} {v}{eol}").into_bytes();
            for h in hs {
                r.extend_from_slice(format!("{h}{eol}").as_bytes());
            }
            r.extend_from_slice(eol.as_bytes());
            r.extend_from_slice(&junk);
            r
        })
}

/// What every answer must satisfy.
fn check(input: &[u8], limits: &Limits, root: &Root) -> Result<(), TestCaseError> {
    match parse_request(input, limits) {
        Ok(Some((req, len))) => {
            prop_assert!(len <= input.len() && len <= limits.max_head);
            prop_assert!(!req.path.starts_with('/'));
            prop_assert!(!req.path.contains(['\\', '\0']));
            // Empty: the root itself.
            let segments_ok = req.path.split('/').all(|s| !s.is_empty() && s != "." && s != "..");
            prop_assert!(req.path.is_empty() || segments_ok, "{:?}", req.path);
            below_root(&req.path, root)?;
        }
        Ok(None) => prop_assert!(input.len() <= limits.max_head, "waits for more after {} bytes", input.len()),
        Err(status) => prop_assert!(STATUSES.contains(&status), "status {status}"),
    }
    Ok(())
}

/// Both ways of finding a file (`openat2` and `realpath`) agree, and find
/// only files below the root.
fn below_root(path: &str, root: &Root) -> Result<(), TestCaseError> {
    let resolved = root.resolve(path);
    if let Ok(file) = &resolved {
        prop_assert!(file.starts_with(root.dir()), "{} escapes the root", file.display());
    }
    let read = root.read(path);
    prop_assert_eq!(read.is_ok(), resolved.is_ok(), "{:?}: read {:?}, resolve {:?}", path, read.map(|r| r.1), resolved);
    Ok(())
}

fn root() -> (tempfile::TempDir, Root) {
    let dir = tempfile::tempdir().unwrap();
    ohua_examples::web::generate_root(&dir.path().join("root")).unwrap();
    std::fs::write(dir.path().join("secret"), "s").unwrap();
    std::os::unix::fs::symlink(dir.path().join("secret"), dir.path().join("root/news/link")).unwrap();
    let root = Root::new(&dir.path().join("root"), false).unwrap();
    (dir, root)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic_nor_wait_without_bound(input in prop::collection::vec(any::<u8>(), 0..400)) {
        let (_d, root) = root_once();
        let small = Limits::default().max_request_line(64).max_head(200).max_headers(4);
        check(&input, &small, root)?;
        check(&input, &Limits::default(), root)?;
    }

    #[test]
    fn mutated_requests_are_answered_within_the_root(input in request()) {
        let (_d, root) = root_once();
        let small = Limits::default().max_request_line(48).max_head(160).max_headers(3);
        check(&input, &small, root)?;
        check(&input, &Limits::default(), root)?;
    }

    #[test]
    fn targets_decode_to_paths_below_the_root(t in target()) {
        let (_d, root) = root_once();
        if let Ok(path) = target_path(&t) {
            prop_assert!(path.split('/').all(|s| s != ".."));
            below_root(&path, root)?;
        }
    }
}

/// One document root for all cases (leaked: the process ends with the test).
fn root_once() -> (&'static tempfile::TempDir, &'static Root) {
    static ROOT: std::sync::OnceLock<(tempfile::TempDir, Root)> = std::sync::OnceLock::new();
    let (d, r) = ROOT.get_or_init(root);
    (d, r)
}
