//! Conditional requests (RFC 9110 §13): a file's validators
//! (`Last-Modified`, `ETag`), and whether a request's preconditions let the
//! server answer 304 Not Modified instead of sending the file again, or
//! send a part of it (`Range`, [`super::range`]).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::range::{self, Selected};

/// The request headers that make it conditional, as sent; evaluated once
/// the file is found ([`select`]). A header sent twice is one list (RFC
/// 9110 §5.3): a second `Range` or date then makes it invalid, and it is
/// ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Conditions {
    /// `If-None-Match`: entity tags, or `*`.
    pub if_none_match: Option<String>,
    /// `If-Modified-Since`: an HTTP date.
    pub if_modified_since: Option<String>,
    /// `If-Range`: an entity tag or an HTTP date.
    pub if_range: Option<String>,
    /// `Range`.
    pub range: Option<String>,
}

impl Conditions {
    /// Keep the header `name: value` if it is one of these; whether it was
    /// (a value that is not UTF-8 is dropped: the header is ignored).
    pub(crate) fn take(&mut self, name: &str, value: &[u8]) -> bool {
        let slot = match name.to_ascii_lowercase().as_str() {
            "if-none-match" => &mut self.if_none_match,
            "if-modified-since" => &mut self.if_modified_since,
            "if-range" => &mut self.if_range,
            "range" => &mut self.range,
            _ => return false,
        };
        if let Ok(v) = std::str::from_utf8(value) {
            match slot {
                Some(list) => {
                    list.push_str(", ");
                    list.push_str(v.trim());
                }
                None => *slot = Some(v.trim().to_string()),
            }
        }
        true
    }
}

/// What identifies one version of a file: its modification time (whole
/// seconds, as `Last-Modified` has them) and an entity tag of its length
/// and modification time to the nanosecond.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Validators {
    /// The modification time, in whole seconds.
    pub modified: SystemTime,
    /// The `ETag`, quoted: `"<len>-<mtime ns>"` in hex.
    pub etag: String,
}

/// Dates after this (year 10000) have no HTTP date.
const LAST_DATE: u64 = 253_402_300_799;

impl Validators {
    /// The validators of a file of `len` bytes modified at `modified`;
    /// `None` for a time HTTP dates cannot say (before 1970, after 9999).
    pub fn of(modified: SystemTime, len: u64) -> Option<Validators> {
        let since = modified.duration_since(UNIX_EPOCH).ok().filter(|d| d.as_secs() <= LAST_DATE)?;
        let etag = format!("\"{len:x}-{:x}\"", since.as_nanos());
        Some(Validators { modified: UNIX_EPOCH + Duration::from_secs(since.as_secs()), etag })
    }

    /// Append `Last-Modified` and `ETag` to a response head.
    pub(crate) fn write(&self, head: &mut Vec<u8>) {
        use std::io::Write;
        let _ = write!(head, "Last-Modified: {}\r\nETag: {}\r\n", httpdate::fmt_http_date(self.modified), self.etag);
    }
}

/// What to send for a found file of `len` bytes with validators `v`, by the
/// request's preconditions (RFC 9110 §13.2.2's order; `If-Match` and
/// `If-Unmodified-Since` are not supported and are ignored) and its range
/// (only for `GET`, §14.2).
pub(crate) fn select(c: &Conditions, head_only: bool, v: &Validators, len: u64) -> Selected {
    if let Some(tags) = &c.if_none_match {
        if tags.split(',').map(str::trim).any(|t| t == "*" || weak(t) == weak(&v.etag)) {
            return Selected::NotModified;
        }
    } else if let Some(since) = c.if_modified_since.as_deref().and_then(|d| httpdate::parse_http_date(d).ok()) {
        if v.modified <= since {
            return Selected::NotModified;
        }
    }
    match &c.range {
        Some(r) if !head_only && c.if_range.as_deref().is_none_or(|t| if_range_holds(t, v)) => range::select(r, len),
        _ => Selected::Full,
    }
}

/// An entity tag without its weakness mark (the weak comparison of
/// `If-None-Match`, §8.8.3.2).
fn weak(tag: &str) -> &str {
    tag.strip_prefix("W/").unwrap_or(tag)
}

/// `If-Range`: the range is sent only if the file is still the version the
/// client has a part of: the same strong entity tag, or exactly its
/// modification date; otherwise the whole file is sent (§13.1.5).
fn if_range_holds(value: &str, v: &Validators) -> bool {
    if value.starts_with('"') {
        return value == v.etag;
    }
    httpdate::parse_http_date(value).is_ok_and(|d| d == v.modified)
}
