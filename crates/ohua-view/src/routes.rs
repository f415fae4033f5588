//! What the view answers, as a pure function of the request: the server
//! (`server.rs`) only moves bytes. Everything is read-only; nothing a
//! request carries reaches the running algorithm.

use crate::page;
use crate::View;

/// Longest request target answered; longer ones get `414`.
pub const MAX_TARGET: usize = 2048;

/// An answer: status, content type, body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// HTTP status code.
    pub status: u16,
    /// `Content-Type` header.
    pub content_type: &'static str,
    /// Body bytes.
    pub body: Vec<u8>,
}

impl Reply {
    fn ok(content_type: &'static str, body: impl Into<Vec<u8>>) -> Reply {
        Reply { status: 200, content_type, body: body.into() }
    }

    fn error(status: u16, text: &str) -> Reply {
        Reply { status, content_type: "text/plain; charset=utf-8", body: format!("{text}\n").into_bytes() }
    }
}

/// Answer `method target` (the target as sent: path and query), reading
/// the current data from `view` only when the data endpoint is asked for.
///
/// # Example
///
/// ```
/// use ohua_view::{routes::answer, View};
/// let view = || View::new(false, vec![]);
/// assert_eq!(answer("GET", "/", view).status, 200);
/// assert_eq!(answer("GET", "/api/view", view).content_type, "application/json");
/// assert_eq!(answer("GET", "/nothing-here", view).status, 404);
/// assert_eq!(answer("POST", "/api/view", view).status, 405);
/// assert_eq!(answer("GET", "/api/view?run=1", view).status, 400, "no such parameter");
/// ```
pub fn answer(method: &str, target: &str, view: impl FnOnce() -> View) -> Reply {
    if target.len() > MAX_TARGET {
        return Reply::error(414, &format!("request target longer than {MAX_TARGET} bytes"));
    }
    if method != "GET" && method != "HEAD" {
        return Reply::error(405, "the view is read-only: GET only");
    }
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let pretty = match parse_query(query) {
        Ok(pretty) => pretty,
        Err(why) => return Reply::error(400, &why),
    };
    match path {
        "/" | "/index.html" => Reply::ok("text/html; charset=utf-8", page::INDEX),
        "/view.js" => Reply::ok("text/javascript; charset=utf-8", page::SCRIPT),
        "/view.css" => Reply::ok("text/css; charset=utf-8", page::STYLE),
        "/vendor/dagre.min.js" => Reply::ok("text/javascript; charset=utf-8", page::DAGRE),
        "/api/view" => {
            let v = view();
            let body = if pretty { serde_json::to_vec_pretty(&v) } else { serde_json::to_vec(&v) };
            Reply::ok("application/json", body.expect("the view's data is plain data"))
        }
        _ => Reply::error(404, &format!("no page `{}` here: the view is at `/`, its data at `/api/view`", clip(path))),
    }
}

/// The one parameter the data endpoint takes, `pretty` (indented JSON).
fn parse_query(query: &str) -> Result<bool, String> {
    let mut pretty = false;
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        match pair {
            "pretty" | "pretty=1" | "pretty=true" => pretty = true,
            "pretty=0" | "pretty=false" => pretty = false,
            other => return Err(format!("unknown query parameter `{}`: the only one is `pretty`", clip(other))),
        }
    }
    Ok(pretty)
}

/// At most 80 characters of what a client sent, for an error message.
fn clip(s: &str) -> String {
    let mut out: String = s.chars().take(80).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn empty() -> View {
        View::new(false, vec![])
    }

    #[test]
    fn the_page_and_its_parts_are_served() {
        for path in ["/", "/index.html", "/view.js", "/view.css", "/vendor/dagre.min.js"] {
            let r = answer("GET", path, empty);
            assert_eq!(r.status, 200, "{path}");
            assert!(!r.body.is_empty(), "{path}");
        }
        let page = String::from_utf8(answer("GET", "/", empty).body).unwrap();
        assert!(page.contains("view.js") && page.contains("dagre.min.js"), "the page loads its script and the layout");
        assert!(!page.contains("http://") && !page.contains("https://"), "no CDN: the page works offline");
    }

    #[test]
    fn the_data_endpoint_is_the_view_as_json() {
        let r = answer("GET", "/api/view?pretty", empty);
        let back = View::from_json(std::str::from_utf8(&r.body).unwrap()).unwrap();
        assert_eq!(back, empty());
        assert!(String::from_utf8(r.body).unwrap().contains("\n  "), "pretty asks for indentation");
    }

    #[test]
    fn the_data_is_not_computed_for_a_bad_request() {
        for (method, target) in [("GET", "/api/view?x=%zz"), ("DELETE", "/api/view"), ("GET", "/api/../etc/passwd")] {
            let r = answer(method, target, || panic!("{method} {target} read the data"));
            assert!(r.status >= 400, "{method} {target}: {}", r.status);
        }
    }

    #[test]
    fn huge_targets_and_parameters_are_refused_briefly() {
        let long = format!("/api/view?{}", "a".repeat(MAX_TARGET));
        assert_eq!(answer("GET", &long, empty).status, 414);
        let r = answer("GET", &format!("/api/view?{}", "b".repeat(1000)), empty);
        assert_eq!(r.status, 400);
        assert!(r.body.len() < 200, "the error does not echo the whole parameter: {} bytes", r.body.len());
    }
}
