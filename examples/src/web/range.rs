//! Range requests (RFC 9110 §14): one byte range of a file, `206 Partial
//! Content`, or `416 Range Not Satisfiable`. A request for several ranges
//! gets the whole file (a server may ignore `Range`, §14.2), as does one
//! whose `Range` is not understood.

use std::fmt;

/// What to send of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Selected {
    /// All of it (200).
    Full,
    /// Nothing: the client's copy is current (304).
    NotModified,
    /// Bytes `first..=last` (206).
    Part(u64, u64),
    /// No byte the range names exists (416).
    Unsatisfiable,
}

/// The `Content-Range` of a 206 or 416 response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentRange {
    /// `bytes first-last/len`.
    Part {
        /// The first byte sent.
        first: u64,
        /// The last byte sent.
        last: u64,
        /// The file's length.
        len: u64,
    },
    /// `bytes */len`.
    Unsatisfiable {
        /// The file's length.
        len: u64,
    },
}

impl fmt::Display for ContentRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ContentRange::Part { first, last, len } => write!(f, "bytes {first}-{last}/{len}"),
            ContentRange::Unsatisfiable { len } => write!(f, "bytes */{len}"),
        }
    }
}

/// The part of a file of `len` bytes that `Range: <value>` asks for:
/// `bytes=a-b` (`b` past the end is the end), `bytes=a-`, `bytes=-n` (the
/// last `n` bytes; all of a shorter file).
pub(crate) fn select(value: &str, len: u64) -> Selected {
    let Some((unit, spec)) = value.split_once('=') else { return Selected::Full };
    if !unit.trim().eq_ignore_ascii_case("bytes") || spec.contains(',') {
        return Selected::Full;
    }
    let Some((first, last)) = spec.trim().split_once('-') else { return Selected::Full };
    if first.is_empty() {
        // `-n`: a suffix; of an empty file, nothing to send a part of.
        return match number(last) {
            None => Selected::Full,
            Some(0) => Selected::Unsatisfiable,
            Some(_) if len == 0 => Selected::Full,
            Some(n) => Selected::Part(len - n.min(len), len - 1),
        };
    }
    let Some(a) = number(first) else { return Selected::Full };
    let b = match number(last) {
        None if last.is_empty() => None,
        Some(b) if b >= a => Some(b),
        _ => return Selected::Full, // not understood: ignored
    };
    if a >= len {
        return Selected::Unsatisfiable;
    }
    Selected::Part(a, b.map_or(len - 1, |b| b.min(len - 1)))
}

/// A decimal number of digits only (no sign, no space).
fn number(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::{select, Selected::*};

    #[test]
    fn one_range_in_each_form_and_the_unsatisfiable_ones() {
        assert_eq!(select("bytes=0-9", 100), Part(0, 9));
        assert_eq!(select("bytes=90-200", 100), Part(90, 99));
        assert_eq!(select("bytes=10-", 100), Part(10, 99));
        assert_eq!(select("bytes=-10", 100), Part(90, 99));
        assert_eq!(select("bytes=-500", 100), Part(0, 99));
        assert_eq!(select("bytes=100-", 100), Unsatisfiable);
        assert_eq!(select("bytes=100-200", 100), Unsatisfiable);
        assert_eq!(select("bytes=-0", 100), Unsatisfiable);
        assert_eq!(select("bytes=0-", 0), Unsatisfiable);
        for ignored in [
            "bytes=0-1,5-6",
            "bytes=5-1",
            "bytes=200-100",
            "items=0-1",
            "bytes=x-1",
            "bytes=-",
            "bytes=+1-2",
            "bytes 0-1",
        ] {
            assert_eq!(select(ignored, 100), Full, "{ignored}");
        }
    }
}
