//! Large files are streamed from the open file, not read into memory
//! (issue 21 part 2, item 7): clients that do not read hold no copy of
//! the file in the server, a file of any size is served (there was a
//! 64 MiB limit), and HEAD, ranges, 304 and keep-alive work on a streamed
//! file as on a small one.
//!
//! The heap is measured by a counting allocator: the tests of this file
//! take one lock, so no other test allocates while one measures.

mod web;

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use ohua_examples::web::{self as server, Limits, Root, Run, Variant};
use web::client::{connect, get_on, read_response};
use web::TestServer;

/// Counts the bytes allocated and not yet freed, by every thread.
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call is passed to `System` unchanged; only counted.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = System.alloc(l);
        if !p.is_null() {
            LIVE.fetch_add(l.size() as isize, Ordering::Relaxed);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(l);
        if !p.is_null() {
            LIVE.fetch_add(l.size() as isize, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l);
        LIVE.fetch_sub(l.size() as isize, Ordering::Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = System.realloc(p, l, new);
        if !q.is_null() {
            LIVE.fetch_add(new as isize - l.size() as isize, Ordering::Relaxed);
        }
        q
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// One test at a time: the heap count is the whole process's.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

const MIB: usize = 1024 * 1024;

/// The resident set of this process (`VmRSS`), in KiB; for the log.
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap_or("VmRSS: 0 kB");
    line.split_whitespace().nth(1).and_then(|v| v.parse().ok()).unwrap_or(0)
}

/// Read a response head (nothing of its body).
fn read_head(s: &mut TcpStream) -> Vec<u8> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        assert_eq!(s.read(&mut byte).expect("a response head"), 1, "closed before the head ended");
        head.push(byte[0]);
    }
    head
}

#[test]
fn twenty_clients_that_do_not_read_a_large_file_hold_no_copy_of_it() {
    let _one = serial();
    let srv = TestServer::default();
    let body = web::pattern(1, 2 * MIB);
    std::fs::write(srv.root().join("big.bin"), &body).unwrap();
    // Once through, so the server's threads and buffers exist.
    let mut warm = connect(srv.addr);
    assert_eq!(get_on(&mut warm, "/big.bin").body, body);
    let (heap, rss) = (LIVE.load(Ordering::Relaxed), rss_kib());

    // Each asks for the file and reads only the head: the server has
    // started the body and waits for room.
    let mut clients: Vec<TcpStream> = (0..20).map(|_| connect(srv.addr)).collect();
    for c in &mut clients {
        c.write_all(b"GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        assert!(read_head(c).starts_with(b"HTTP/1.1 200 "));
    }
    // Others are still served meanwhile.
    assert_eq!(get_on(&mut warm, "/small.html").status, 200);
    let grown = LIVE.load(Ordering::Relaxed) - heap;
    eprintln!("20 clients not reading 2 MiB: heap {:+} KiB, VmRSS {} -> {} KiB", grown / 1024, rss, rss_kib());
    // In memory, each waiting response held its whole file: 40 MiB.
    assert!(grown < (2 * MIB) as isize, "the server holds {grown} more bytes for 20 clients of a 2 MiB file");

    // Each still gets the whole file once it reads.
    for c in clients.iter_mut().take(3) {
        let mut got = vec![0; body.len()];
        c.read_exact(&mut got).expect("the body");
        assert!(got == body, "a body that differs from the file");
    }
    drop((clients, warm));
    let stats = srv.stop();
    assert!(stats.streamed >= 4, "the responses read whole were streamed: {stats}");
}

/// A file over the old 64 MiB limit, sparse (cheap to make), with marks
/// at its start, middle and end.
fn huge_file(path: &std::path::Path) -> (u64, Vec<(u64, &'static [u8])>) {
    let len = 65 * MIB as u64 + 7;
    let marks: Vec<(u64, &'static [u8])> = vec![(0, b"start"), (len / 2, b"middle"), (len - 3, b"end")];
    let f = std::fs::File::create(path).unwrap();
    f.set_len(len).unwrap();
    for (at, mark) in &marks {
        std::os::unix::fs::FileExt::write_all_at(&f, mark, *at).unwrap();
    }
    (len, marks)
}

#[test]
fn a_file_over_the_old_64_mib_limit_is_served_whole_in_parts_and_conditionally() {
    let _one = serial();
    let srv = TestServer::default();
    let (len, marks) = huge_file(&srv.root().join("huge.bin"));
    let mut s = connect(srv.addr);
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();

    s.write_all(b"HEAD /huge.bin HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    let head = read_response(&mut s, true).expect("a response");
    assert_eq!(head.status, 200, "HEAD of a {len}-byte file");
    assert_eq!(head.header("content-length"), Some(len.to_string().as_str()));
    assert_eq!(head.header("accept-ranges"), Some("bytes"));

    let whole = get_on(&mut s, "/huge.bin");
    assert_eq!((whole.status, whole.body.len() as u64), (200, len));
    let mut expected = vec![0u8; len as usize];
    for (at, mark) in &marks {
        expected[*at as usize..*at as usize + mark.len()].copy_from_slice(mark);
    }
    assert!(whole.body == expected, "the body differs from the file");
    drop((whole, expected));

    // The last bytes, as a range; then the middle mark.
    s.write_all(b"GET /huge.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=-3\r\n\r\n").unwrap();
    let tail = read_response(&mut s, false).expect("a response");
    assert_eq!((tail.status, &tail.body[..]), (206, &b"end"[..]));
    assert_eq!(tail.header("content-range"), Some(format!("bytes {}-{}/{len}", len - 3, len - 1).as_str()));
    let mid = len / 2;
    s.write_all(format!("GET /huge.bin HTTP/1.1\r\nHost: x\r\nRange: bytes={mid}-{}\r\n\r\n", mid + 5).as_bytes())
        .unwrap();
    assert_eq!(read_response(&mut s, false).expect("a response").body, b"middle");

    // The client's copy is current: 304, no body.
    let etag = head.header("etag").expect("an ETag").to_string();
    s.write_all(format!("GET /huge.bin HTTP/1.1\r\nHost: x\r\nIf-None-Match: {etag}\r\n\r\n").as_bytes()).unwrap();
    let not_modified = read_response(&mut s, false).expect("a response");
    assert_eq!((not_modified.status, not_modified.body.len()), (304, 0));

    // The connection is still kept after all of it.
    assert_eq!(get_on(&mut s, "/small.html").body, std::fs::read(srv.root().join("small.html")).unwrap());
    let stats = srv.stop();
    assert_eq!(stats.by_status.get(&500), None, "{stats}");
    // The whole file and the two ranges; HEAD and 304 send no body.
    assert_eq!(stats.streamed, 3, "{stats}");
}

/// Bound the socket's receive buffer to 64 KiB (no autotuning: it may
/// grow to `tcp_rmem`'s maximum, 32 MiB on some machines, and hold a whole
/// file).
fn small_receive_buffer(s: &TcpStream) {
    use std::os::fd::AsRawFd;
    let size: libc::c_int = 64 * 1024;
    let len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: a valid socket, and a pointer to an int of `len` bytes.
    let r = unsafe {
        libc::setsockopt(s.as_raw_fd(), libc::SOL_SOCKET, libc::SO_RCVBUF, (&size as *const libc::c_int).cast(), len)
    };
    assert_eq!(r, 0, "SO_RCVBUF: {}", std::io::Error::last_os_error());
}

/// The write deadline counts from the last progress, not from the start of
/// the response: this client keeps reading, but the file outlasts the
/// socket buffers (the server's 4 MiB at most by default, the client's
/// bounded to 64 KiB) by more than the deadline.
#[test]
fn a_slow_reader_gets_a_large_file_whole_past_the_write_timeout_then_its_next_response() {
    let _one = serial();
    let limits = Limits::default().write_timeout(Duration::from_millis(600));
    for (name, run) in [("auto", Run::Configured), ("sequential", Run::Sequential)] {
        let srv = TestServer::start(limits, Variant::Plain, run);
        let body = web::pattern(1, 16 * MIB);
        std::fs::write(srv.root().join("big.bin"), &body).unwrap();
        let mut s = connect(srv.addr);
        small_receive_buffer(&s);
        // Two requests at once: the second waits behind the streamed body.
        s.write_all(b"GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\nGET /small.html HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        // The socket fills and the server waits for room, more than once.
        std::thread::sleep(Duration::from_millis(100));
        let head = read_head(&mut s);
        assert!(head.starts_with(b"HTTP/1.1 200 "), "{name}");
        let mut got = Vec::with_capacity(body.len());
        let mut chunk = vec![0u8; 256 * 1024];
        while got.len() < body.len() {
            let want = chunk.len().min(body.len() - got.len());
            s.read_exact(&mut chunk[..want]).expect("the body");
            got.extend_from_slice(&chunk[..want]);
            // 32 pauses of 40 ms: the server sends for about a second.
            if got.len() % (MIB / 2) == 0 {
                std::thread::sleep(Duration::from_millis(40));
            }
        }
        assert!(got == body, "{name}: the body differs from the file");
        let next = read_response(&mut s, false).expect("the pipelined response");
        assert_eq!((next.status, next.body.len()), (200, 512), "{name}");
        assert_eq!(get_on(&mut s, "/small.html").status, 200, "{name}: kept alive");
        let stats = srv.stop();
        assert!(stats.waits > 0, "{name}: the server never waited for room: {stats:?}");
        assert_eq!((stats.streamed, stats.responses()), (1, 3), "{name}: {stats}");
    }
}

#[test]
fn the_cache_keeps_small_files_and_large_ones_are_read_from_disk_each_time() {
    let _one = serial();
    let srv = TestServer::start_with_cache(Limits::default(), Variant::Plain, Run::Configured, true);
    let (big, small) = (srv.root().join("big.bin"), srv.root().join("small.html"));
    std::fs::write(&big, web::pattern(1, 2 * MIB)).unwrap();
    let small_before = std::fs::read(&small).unwrap();
    let mut s = connect(srv.addr);
    assert_eq!(get_on(&mut s, "/big.bin").body.len(), 2 * MIB);
    assert_eq!(get_on(&mut s, "/small.html").body, small_before);
    std::fs::write(&big, vec![7u8; 2 * MIB]).unwrap();
    std::fs::write(&small, b"changed").unwrap();
    assert_eq!(get_on(&mut s, "/small.html").body, small_before, "a small file is served from the cache");
    assert!(get_on(&mut s, "/big.bin").body == vec![7u8; 2 * MIB], "a large file was cached");
}

#[test]
fn the_size_above_which_files_are_streamed_is_the_roots_setting() {
    let _one = serial();
    let dir = tempfile::tempdir().unwrap();
    server::generate_root(dir.path()).unwrap();
    // 512-byte snippets in memory, 20 KiB articles streamed.
    let mut root = Root::new(dir.path(), true).unwrap();
    root.stream_above = 4096;
    let srv = server::start("127.0.0.1:0".parse().unwrap(), root, Limits::default(), Variant::Plain, Run::Configured)
        .expect("the server starts");
    let mut s = connect(srv.addr);
    for path in ["/small.html", "/large.html", "/small.html", "/large.html"] {
        let r = get_on(&mut s, path);
        assert_eq!(r.body, std::fs::read(dir.path().join(&path[1..])).unwrap(), "{path}");
    }
    drop(s);
    let stats = srv.stop();
    assert_eq!((stats.responses(), stats.streamed), (4, 2), "{stats}");
}
