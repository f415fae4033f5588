//! Values as bytes: what a lane of a replicated operator carries when its
//! replicas run in other processes (issue 25, `crates/ohua-cluster`).
//!
//! An algorithm marked `#[ohua::algorithm(cluster)]` promises that every
//! value its replicable calls take and give is `Serialize` and
//! `Deserialize` (the macro checks it at the user's `let`,
//! `exec/checks.rs`). Its replicable calls then carry a [`Codec`] for their
//! arguments and one for their results. With the deployment's
//! [`Lanes::Serialized`](crate::deploy::Lanes) every item a replica takes
//! and every result it gives goes through bytes, in this process: the same
//! encoding a remote lane sends, checked against sequential execution by
//! the conformance suite, and its size per item counted for the report.
//!
//! The format is bincode 1 with variable-length integers (what timely
//! already brings): no schema, every process runs the same program.

use std::marker::PhantomData;

use bincode::Options;
use serde::{de::DeserializeOwned, Serialize};

use crate::sync::process::{AtomicU64, Ordering};

/// Encoding and decoding of one type, as two functions (compiled once per
/// type, whatever the number of lanes that carry it).
///
/// # Example
///
/// ```
/// use ohua_runtime::codec::Codec;
/// let codec = Codec::<(u64, String)>::serde();
/// let mut bytes = Vec::new();
/// codec.encode(&(7, "seven".to_string()), &mut bytes).unwrap();
/// assert_eq!(bytes.len(), 7); // 1 byte for 7, 1 for the length, 5 for the text
/// assert_eq!(codec.decode(&bytes).unwrap(), (7, "seven".to_string()));
/// ```
pub struct Codec<T> {
    encode: fn(&T, &mut Vec<u8>) -> Result<(), CodecError>,
    decode: fn(&[u8]) -> Result<T, CodecError>,
    _type: PhantomData<fn() -> T>,
}

impl<T> Clone for Codec<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Codec<T> {}

impl<T> std::fmt::Debug for Codec<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Codec<{}>", std::any::type_name::<T>())
    }
}

/// The options every lane uses: little-endian, variable-length integers,
/// no trailing bytes (an item is exactly its bytes).
fn options() -> impl Options {
    bincode::DefaultOptions::new().reject_trailing_bytes()
}

fn encode_serde<T: Serialize>(value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
    options().serialize_into(out, value).map_err(|e| CodecError::new::<T>("encoded", &e))
}

fn decode_serde<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, CodecError> {
    options().deserialize(bytes).map_err(|e| CodecError::new::<T>("decoded", &e))
}

impl<T: Serialize + DeserializeOwned> Codec<T> {
    /// The codec of a type that is `Serialize` and `Deserialize`.
    pub fn serde() -> Self {
        Codec { encode: encode_serde::<T>, decode: decode_serde::<T>, _type: PhantomData }
    }
}

impl<T> Codec<T> {
    /// Append the bytes of `value` to `out`.
    ///
    /// # Errors
    ///
    /// If the value's `Serialize` fails (a map whose keys are not strings
    /// is fine here; a custom `Serialize` may refuse).
    pub fn encode(&self, value: &T, out: &mut Vec<u8>) -> Result<(), CodecError> {
        (self.encode)(value, out)
    }

    /// The value whose bytes are `bytes` (all of them).
    ///
    /// # Errors
    ///
    /// If `bytes` are not exactly one value of `T`: a `Deserialize` that
    /// does not read what its `Serialize` wrote (`#[serde(skip_serializing)]`
    /// without `skip_deserializing`, say).
    pub fn decode(&self, bytes: &[u8]) -> Result<T, CodecError> {
        (self.decode)(bytes)
    }

    /// `value` through bytes and back, with the bytes it took, for a lane
    /// in this process that does what a lane across processes does.
    ///
    /// # Errors
    ///
    /// As [`Codec::encode`] and [`Codec::decode`].
    pub fn round_trip(&self, value: T, buffer: &mut Vec<u8>) -> Result<(T, usize), CodecError> {
        buffer.clear();
        self.encode(&value, buffer)?;
        drop(value);
        Ok((self.decode(buffer)?, buffer.len()))
    }
}

/// A value that could not become bytes or come back from them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("ohua: a value of type `{type_name}` could not be {what}: {message}")]
pub struct CodecError {
    /// The value's type.
    pub type_name: &'static str,
    /// `encoded` or `decoded`.
    pub what: &'static str,
    /// The format's own message.
    pub message: String,
}

impl CodecError {
    fn new<T>(what: &'static str, error: &bincode::Error) -> Self {
        CodecError { type_name: std::any::type_name::<T>(), what, message: error.to_string() }
    }
}

/// What one operator's serialized lanes carried: items (an argument tuple
/// in, a result tuple out) and their bytes, both ways.
#[derive(Debug, Default)]
pub struct LaneBytes {
    items: AtomicU64,
    bytes: AtomicU64,
}

impl LaneBytes {
    /// Count one item of `bytes` bytes.
    #[inline]
    pub fn add(&self, bytes: usize) {
        self.items.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(bytes as u64, Ordering::Relaxed);
    }

    /// Count `items` items that took `bytes` bytes together (a batch).
    #[inline]
    pub fn add_many(&self, items: usize, bytes: usize) {
        self.items.fetch_add(items as u64, Ordering::Relaxed);
        self.bytes.fetch_add(bytes as u64, Ordering::Relaxed);
    }

    /// Items and bytes so far.
    pub fn get(&self) -> crate::stats::EncodedStats {
        crate::stats::EncodedStats {
            items: self.items.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Codec, LaneBytes};

    #[test]
    fn a_value_comes_back_from_its_bytes() {
        let codec = Codec::<Vec<(u32, Option<String>)>>::serde();
        let value = vec![(1, None), (300, Some("x".to_string()))];
        let mut buffer = Vec::new();
        let (back, bytes) = codec.round_trip(value.clone(), &mut buffer).unwrap();
        assert_eq!(back, value);
        // length 2; 1; None; 300 as 3 bytes (varint marker + u16); Some; length 1; "x"
        assert_eq!(bytes, 1 + 1 + 1 + 3 + 1 + 1 + 1);
    }

    /// A type whose `Deserialize` does not read what its `Serialize`
    /// wrote: the error names the type.
    #[test]
    fn bytes_left_over_are_an_error_naming_the_type() {
        let mut bytes = Vec::new();
        Codec::<(u8, u8)>::serde().encode(&(1, 2), &mut bytes).unwrap();
        let err = Codec::<u8>::serde().decode(&bytes).unwrap_err();
        assert_eq!((err.type_name, err.what), ("u8", "decoded"));
        assert!(err.to_string().contains("`u8` could not be decoded"), "{err}");
    }

    #[test]
    fn lane_bytes_count_items_and_bytes() {
        let counts = LaneBytes::default();
        counts.add(3);
        counts.add(5);
        let got = counts.get();
        assert_eq!((got.items, got.bytes), (2, 8));
    }
}
