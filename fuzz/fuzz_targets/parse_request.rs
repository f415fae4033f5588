//! The web server's request parsing path on arbitrary bytes: `parse_request`
//! (httparse, the limits, the target) and, for a parsed request, opening
//! its file below a document root. Must never panic, never wait for more
//! input beyond the head limit, never find a file outside the root.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use ohua_examples::web::{generate_root, parse_request, Limits, Root};

fn root() -> &'static Root {
    static ROOT: OnceLock<Root> = OnceLock::new();
    ROOT.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("ohua-fuzz-root-{}", std::process::id()));
        generate_root(&dir.join("root")).expect("a document root");
        std::fs::write(dir.join("secret"), "outside").expect("a file outside the root");
        let _ = std::os::unix::fs::symlink(dir.join("secret"), dir.join("root/news/link"));
        Root::new(&dir.join("root"), false).expect("the root")
    })
}

fuzz_target!(|input: &[u8]| {
    for limits in [Limits::default(), Limits::default().max_request_line(64).max_head(256).max_headers(4)] {
        match parse_request(input, &limits) {
            Ok(Some((req, len))) => {
                assert!(len <= input.len() && len <= limits.max_head);
                assert!(!req.path.split('/').any(|s| s == ".."), "{:?}", req.path);
                if let Ok(file) = root().resolve(&req.path) {
                    assert!(file.starts_with(root().dir()));
                }
                if let Ok((bytes, _)) = root().read(&req.path) {
                    assert!(!bytes.starts_with(b"outside"), "{:?} read a file outside the root", req.path);
                }
            }
            Ok(None) => assert!(input.len() <= limits.max_head),
            Err(status) => assert!((400..600).contains(&status)),
        }
    }
});
