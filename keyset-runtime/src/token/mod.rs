//! The cursor token: what clients hold between page requests.
//!
//! A token is URL-safe base64 (no padding) of:
//!
//! | bytes | what |
//! |---|---|
//! | 1 | format version ([`VERSION`]) |
//! | 4 | fingerprint of the model and its sort order ([`Keyset::FINGERPRINT`](crate::Keyset::FINGERPRINT)), little-endian |
//! | 1 | the [`Direction`] the token was issued for |
//! | rest | the cursor's key values, in [postcard](https://docs.rs/postcard) |
//!
//! The values are postcard because it is compact (varint integers, no field names, length-prefixed
//! strings), fast, and serde-native, so any key type with `Serialize` round-trips exactly (chrono
//! timestamps keep their nanoseconds, `i64::MIN` stays `i64::MIN`); and its decoder reads from the
//! token's own bytes, so a hostile length prefix cannot make it allocate more than the token holds.
//!
//! Tokens are opaque, not secret: a client can decode the key values of a row it has already seen.
//! Decoding never panics; every way a token can be wrong is a [`CursorError`], which a web handler
//! answers with 400.

use std::fmt;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// The token format this version writes and reads.
pub const VERSION: u8 = 1;

/// The longest token accepted, in characters. Tokens whose keys would need more are refused when
/// issued, with [`CursorError::TooLong`], so a token this library issues is always accepted.
pub const MAX_TOKEN_LEN: usize = 1024;

const HEADER_LEN: usize = 6;

/// Which side of its row a token points to: it asks for the rows after that row, or before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Issued as `next_cursor`: the rows after the cursor row.
    After,
    /// Issued as `prev_cursor`: the rows before the cursor row.
    Before,
}

impl Direction {
    fn byte(self) -> u8 {
        match self {
            Direction::After => 0,
            Direction::Before => 1,
        }
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Direction::After => "after",
            Direction::Before => "before",
        })
    }
}

/// Why a cursor token was refused. Every variant is the client's mistake (HTTP 400), except
/// [`CursorError::TooLong`] when returned while issuing a token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CursorError {
    /// The token is the empty string.
    #[error("the cursor is empty")]
    Empty,
    /// The token is longer than [`MAX_TOKEN_LEN`].
    #[error("the cursor is {len} characters long; at most {max} are accepted")]
    TooLong { len: usize, max: usize },
    /// The token is not URL-safe base64 without padding.
    #[error("the cursor is not a token this server issued (not URL-safe base64)")]
    NotBase64,
    /// The token ends before its header or its values are complete.
    #[error("the cursor is truncated")]
    Truncated,
    /// The token was written in a format version this server does not read.
    #[error("the cursor has format version {found}; this server reads version {supported}")]
    UnsupportedVersion { found: u8, supported: u8 },
    /// The token was issued for another model or another sort order.
    #[error("the cursor was issued for another listing or sort order")]
    ForeignSortOrder,
    /// A `prev_cursor` was sent as `after`, or a `next_cursor` as `before`.
    #[error("the cursor points {found} its row but was sent as `{expected}`")]
    WrongDirection { expected: Direction, found: Direction },
    /// The key values do not decode as this model's cursor (wrong types, trailing bytes).
    #[error("the cursor's values are invalid: {0}")]
    InvalidValues(String),
}

/// FNV-1a over the sort order's description, folded to 32 bits. Not a security measure (see the
/// signed tokens feature for that); it catches tokens sent to the wrong listing.
pub const fn fingerprint(sort_order: &str) -> u32 {
    let bytes = sort_order.as_bytes();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        hash ^= bytes[i] as u64;
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        i += 1;
    }
    (hash ^ (hash >> 32)) as u32
}

/// Writes the token for `cursor`.
pub fn encode<C: Serialize>(
    fingerprint: u32,
    direction: Direction,
    cursor: &C,
) -> Result<String, CursorError> {
    let mut bytes = Vec::with_capacity(32);
    bytes.push(VERSION);
    bytes.extend_from_slice(&fingerprint.to_le_bytes());
    bytes.push(direction.byte());
    let bytes = postcard::to_extend(cursor, bytes)
        .map_err(|err| CursorError::InvalidValues(err.to_string()))?;
    let token = URL_SAFE_NO_PAD.encode(bytes);
    if token.len() > MAX_TOKEN_LEN {
        return Err(CursorError::TooLong { len: token.len(), max: MAX_TOKEN_LEN });
    }
    Ok(token)
}

/// Reads a token issued by [`encode`] with the same `fingerprint` and `direction`.
pub fn decode<C: DeserializeOwned>(
    fingerprint: u32,
    direction: Direction,
    token: &str,
) -> Result<C, CursorError> {
    if token.is_empty() {
        return Err(CursorError::Empty);
    }
    if token.len() > MAX_TOKEN_LEN {
        return Err(CursorError::TooLong { len: token.len(), max: MAX_TOKEN_LEN });
    }
    let bytes = URL_SAFE_NO_PAD.decode(token).map_err(|_| CursorError::NotBase64)?;
    let Some((header, values)) = bytes.split_first_chunk::<HEADER_LEN>() else {
        return Err(CursorError::Truncated);
    };
    let [version, f0, f1, f2, f3, dir] = *header;
    if version != VERSION {
        return Err(CursorError::UnsupportedVersion { found: version, supported: VERSION });
    }
    if u32::from_le_bytes([f0, f1, f2, f3]) != fingerprint {
        return Err(CursorError::ForeignSortOrder);
    }
    let found = match dir {
        0 => Direction::After,
        1 => Direction::Before,
        other => return Err(CursorError::InvalidValues(format!("unknown direction byte {other}"))),
    };
    if found != direction {
        return Err(CursorError::WrongDirection { expected: direction, found });
    }
    match postcard::take_from_bytes::<C>(values) {
        Ok((cursor, [])) => Ok(cursor),
        Ok((_, rest)) => {
            Err(CursorError::InvalidValues(format!("{} unexpected trailing bytes", rest.len())))
        }
        Err(postcard::Error::DeserializeUnexpectedEnd) => Err(CursorError::Truncated),
        Err(err) => Err(CursorError::InvalidValues(err.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issued tokens carry this hash: changing the function would reject every token in the wild.
    #[test]
    fn fingerprint_is_stable() {
        // FNV-1a 64 of "" is its offset basis; folded: 0x8422_2325 ^ 0xcbf2_9ce4.
        assert_eq!(fingerprint(""), 0x4fd0_bfc1);
        assert_eq!(fingerprint("Post(posts: created_at DESC, id DESC)"), 0x19fc_5681);
        assert_ne!(
            fingerprint("Post(posts: created_at DESC, id DESC)"),
            fingerprint("Post(posts: created_at DESC, id ASC)")
        );
    }

    #[test]
    fn header_is_version_fingerprint_direction() {
        let token = encode(0x0403_0201, Direction::Before, &(5u8,)).unwrap();
        let bytes = URL_SAFE_NO_PAD.decode(token).unwrap();
        assert_eq!(bytes, [VERSION, 1, 2, 3, 4, 1, 5]);
    }

    #[test]
    fn a_token_too_long_to_accept_is_not_issued() {
        let long = "x".repeat(MAX_TOKEN_LEN);
        assert!(matches!(encode(1, Direction::After, &long), Err(CursorError::TooLong { .. })));
    }
}
