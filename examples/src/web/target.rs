//! The request target: from the bytes on the wire to a path below the
//! document root, or the reason there is none.
//!
//! Traversal is refused here, before the file system is touched: the target
//! is percent-decoded once, and a decoded `..` segment, a backslash, a NUL
//! or a segment that is not UTF-8 ends the request. [`super::Root`] then
//! resolves symlinks and checks that the file is still below the root.

use percent_encoding::percent_decode_str;

/// The path of an origin-form target (`/a/b?q`), relative to the document
/// root: its segments, without empty and `.` ones.
///
/// # Errors
///
/// The status to answer: 400 for a target that is not origin-form or does
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
/// assert_eq!(target_path("http://x/"), Err(400));
/// ```
pub fn target_path(target: &str) -> Result<String, u16> {
    if !target.starts_with('/') {
        return Err(400);
    }
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
    Ok(segments.join("/"))
}
