//! The request target: from the bytes on the wire to a path below the
//! document root, or the reason there is none.
//!
//! Traversal is refused here, before the file system is touched: the target
//! is percent-decoded once, and a decoded `..` segment, a backslash, a NUL
//! or a segment that is not UTF-8 ends the request. [`super::Root`] then
//! resolves symlinks and checks that the file is still below the root.

use percent_encoding::percent_decode_str;

/// The path of an origin-form target (`/a/b?q`) or of an absolute-form one
/// (`http://host/a/b?q`, RFC 9112 §3.2.2: a server must accept it; the
/// authority is ignored, as the server has one site), relative to the
/// document root: its segments, without empty and `.` ones
/// ([`parse_target`] without whether it ends in `/`).
///
/// # Errors
///
/// The status to answer: 400 for a target that is neither origin-form nor
/// an `http`/`https` absolute-form with a host and no user info, or does
/// not decode to UTF-8 without NUL or backslash, 403 for a `..` segment.
///
/// # Example
///
/// ```
/// use ohua_examples::web::target_path;
/// assert_eq!(target_path("/news/1.html?x=2"), Ok("news/1.html".to_string()));
/// assert_eq!(target_path("/a/./b//c"), Ok("a/b/c".to_string()));
/// assert_eq!(target_path("/%2e%2e/etc/passwd"), Err(403));
/// assert_eq!(target_path("/a%2f..%2fb"), Err(403));
/// assert_eq!(target_path("/a\\b"), Err(400));
/// assert_eq!(target_path("http://x:80/a?b"), Ok("a".to_string()));
/// assert_eq!(target_path("ftp://x/a"), Err(400));
/// ```
pub fn target_path(target: &str) -> Result<String, u16> {
    parse_target(target).map(|t| t.path)
}

/// A request target, decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// As [`target_path`] returns it.
    pub path: String,
    /// The target ends in `/` (or `/.`): it names a directory, and a file
    /// by that name is not found (as nginx, Apache and Python's server
    /// answer `/file.html/`).
    pub dir: bool,
}

/// The path of a target and whether it names a directory; see
/// [`target_path`].
///
/// # Errors
///
/// As [`target_path`].
///
/// # Example
///
/// ```
/// use ohua_examples::web::parse_target;
/// assert!(parse_target("/small.html/").unwrap().dir);
/// assert!(parse_target("/news/.?x").unwrap().dir);
/// assert!(!parse_target("/news").unwrap().dir);
/// ```
pub fn parse_target(target: &str) -> Result<Target, u16> {
    let target = origin_form(target)?;
    let path = target.split(['?', '#']).next().unwrap_or("");
    let decoded = percent_decode_str(path).decode_utf8().map_err(|_| 400u16)?;
    if decoded.contains(['\0', '\\']) {
        return Err(400);
    }
    let mut segments = Vec::new();
    for segment in decoded.split('/') {
        match segment {
            "" | "." => {}
            ".." => return Err(403),
            s => segments.push(s),
        }
    }
    let dir = matches!(decoded.rsplit('/').next(), Some("" | "."));
    Ok(Target { path: segments.join("/"), dir })
}

/// The origin-form part of a target: the target itself, or the path (and
/// query) of an absolute-form one, `/` where it has none (`http://host`,
/// `http://host?q`).
fn origin_form(target: &str) -> Result<&str, u16> {
    if target.starts_with('/') {
        return Ok(target);
    }
    let (scheme, rest) = target.split_once("://").ok_or(400u16)?;
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return Err(400);
    }
    let (authority, path) = rest.split_at(rest.find(['/', '?', '#']).unwrap_or(rest.len()));
    // No host, or user info (RFC 9110 §4.2.4: treat it as an error).
    if authority.is_empty() || authority.contains('@') {
        return Err(400);
    }
    Ok(if path.starts_with('/') { path } else { "/" })
}
