//! A raw HTTP/1.1 client for the tests: exact bytes out, responses parsed
//! by hand, timeouts on everything so a broken server fails a test instead
//! of hanging it.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// A response as received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The response without its `Date`, `Last-Modified` and `ETag` headers
    /// (which differ between runs: each run generates its files anew).
    pub fn without_date(mut self) -> Response {
        self.headers.retain(|(n, _)| !["date", "last-modified", "etag"].iter().any(|d| n.eq_ignore_ascii_case(d)));
        self
    }
}

pub fn connect(addr: SocketAddr) -> TcpStream {
    let s = TcpStream::connect(addr).expect("connect to the server");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.set_write_timeout(Some(Duration::from_secs(10))).unwrap();
    s.set_nodelay(true).unwrap();
    s
}

/// Read one response (the body by `Content-Length`; a `HEAD` response and
/// a 304 have none). `None` if the server closed the connection first.
pub fn read_response(s: &mut TcpStream, head_only: bool) -> Option<Response> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match s.read(&mut byte) {
            Ok(0) => return None,
            Ok(_) => head.push(byte[0]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return None,
            Err(e) => panic!("reading a response head: {e} (after {:?})", String::from_utf8_lossy(&head)),
        }
    }
    let mut headers = [httparse::EMPTY_HEADER; 32];
    let mut r = httparse::Response::new(&mut headers);
    assert!(r.parse(&head).expect("a well-formed response head").is_complete());
    let status = r.code.expect("a status");
    let headers: Vec<(String, String)> = r
        .headers
        .iter()
        .map(|h| (h.name.to_string(), String::from_utf8(h.value.to_vec()).expect("ASCII header")))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .map(|(_, v)| v.parse().expect("a numeric Content-Length"))
        .or((status == 304).then_some(0))
        .expect("every response but a 304 has a Content-Length");
    let mut body = vec![0u8; if head_only { 0 } else { len }];
    s.read_exact(&mut body).expect("the whole body");
    Some(Response { status, headers, body })
}

/// Send `raw` on a new connection and read one response.
pub fn exchange(addr: SocketAddr, raw: &[u8]) -> Option<Response> {
    let mut s = connect(addr);
    s.write_all(raw).expect("send the request");
    read_response(&mut s, raw.starts_with(b"HEAD"))
}

/// `GET path` on an open connection.
pub fn get_on(s: &mut TcpStream, path: &str) -> Response {
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: test\r\n\r\n").as_bytes()).expect("send");
    read_response(s, false).expect("a response")
}

/// Whether the server closed the connection (reads end of stream or a
/// reset within the read timeout).
pub fn is_closed(s: &mut TcpStream) -> bool {
    let mut buf = [0u8; 1024];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return true,
            Err(_) => return false,
        }
    }
}
