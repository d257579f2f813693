//! Signed tokens (feature `signed`): HMAC-SHA256 under a server key, so that a client cannot
//! edit a token's key values or write one of its own.

use std::fmt;

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use super::direction::Direction;
use super::error::CursorError;
use super::format::{MAX_TOKEN_LEN, SIGNED, VERSION};
use super::value::CursorValue;
use super::{finish, foreign_or, open, read, unsupported, with_payload, Anchor, TooLong};

/// Bytes of the HMAC-SHA256 tag a signed token carries: the leftmost 128 bits, as RFC 2104
/// allows (forging one takes 2^128 guesses), so tokens stay short.
pub const SIGNATURE_LEN: usize = 16;

type HmacSha256 = Hmac<Sha256>;

/// The server's keys for signed tokens: the current key, which signs every token issued, and the
/// previous keys, still accepted while tokens signed with them are in circulation (key rotation).
///
/// Configure it once, at startup, from secrets the clients never see, and pass it to
/// [`Paginate::paginate_signed`](crate::Paginate::paginate_signed) for each page. A token that was
/// modified, forged, signed with an unknown key, or not signed at all is refused with a
/// [`CursorError`], before any query runs.
///
/// To rotate: make the new key current and the old one previous; once the longest-lived token
/// signed with the old key has expired in practice (e.g. a day later), drop it.
///
/// ```
/// use keyset_runtime::{CursorError, Direction, TokenKeys};
///
/// let old = TokenKeys::new([7u8; 32])?;
/// let issued = old.encode(0xfeed, Direction::After, &(42i64,))?;
///
/// // Rotation: a new current key, the old one still accepted.
/// let keys = TokenKeys::new([9u8; 32])?.with_previous([7u8; 32])?;
/// assert_eq!(keys.decode::<(i64,)>(0xfeed, Direction::After, &issued)?, (42,));
/// // Once the old key is dropped, its tokens are refused.
/// let later = TokenKeys::new([9u8; 32])?;
/// assert_eq!(later.decode::<(i64,)>(0xfeed, Direction::After, &issued), Err(CursorError::BadSignature));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct TokenKeys {
    current: HmacSha256,
    previous: Vec<HmacSha256>,
}

/// A token key shorter than [`TokenKeys::MIN_KEY_LEN`] bytes was given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a token key must be at least {min} bytes of random data; this one has {len}", min = TokenKeys::MIN_KEY_LEN)]
pub struct KeyTooShort {
    /// The length of the key that was given, in bytes.
    pub len: usize,
}

impl TokenKeys {
    /// The shortest key accepted: 32 bytes (256 bits), e.g. from `openssl rand -base64 32`.
    pub const MIN_KEY_LEN: usize = 32;

    /// Keys with `current` as the only key: it signs new tokens and verifies them.
    pub fn new(current: impl AsRef<[u8]>) -> Result<Self, KeyTooShort> {
        Ok(TokenKeys { current: mac(current.as_ref())?, previous: Vec::new() })
    }

    /// Also accepts tokens signed with `previous` (a key being rotated out). New tokens are
    /// always signed with the current key.
    pub fn with_previous(mut self, previous: impl AsRef<[u8]>) -> Result<Self, KeyTooShort> {
        self.previous.push(mac(previous.as_ref())?);
        Ok(self)
    }

    /// Writes a signed token for `cursor`, signed with the current key, of at most
    /// 1024 characters (the default
    /// [`Keyset::MAX_TOKEN_LEN`](crate::Keyset::MAX_TOKEN_LEN)).
    pub fn encode<C: CursorValue>(
        &self,
        fingerprint: u32,
        direction: Direction,
        cursor: &C,
    ) -> Result<String, CursorError> {
        Ok(self.encode_anchor(fingerprint, MAX_TOKEN_LEN, direction, Anchor::Row(cursor))?)
    }

    /// Reads a signed token issued with one of these keys for the same `fingerprint` and
    /// `direction`, of at most 1024 characters (the default
    /// [`Keyset::MAX_TOKEN_LEN`](crate::Keyset::MAX_TOKEN_LEN)). The signature is checked (in
    /// constant time) before anything else is read. A token that marks an end of the listing
    /// (issued by an empty page) names no row, and is refused here.
    pub fn decode<C: CursorValue>(
        &self,
        fingerprint: u32,
        direction: Direction,
        token: &str,
    ) -> Result<C, CursorError> {
        match self.decode_anchor(fingerprint, MAX_TOKEN_LEN, direction, token)? {
            Anchor::Row(cursor) => Ok(cursor),
            Anchor::End => Err(CursorError::InvalidValues(
                "the token marks an end of the listing, not a row".to_owned(),
            )),
        }
    }

    pub(crate) fn encode_anchor<C: CursorValue>(
        &self,
        fingerprint: u32,
        max_len: usize,
        direction: Direction,
        anchor: Anchor<&C>,
    ) -> Result<String, TooLong> {
        with_payload(VERSION | SIGNED, fingerprint, direction, anchor, |bytes| {
            let tag = sign(&self.current, bytes);
            bytes.extend_from_slice(&tag);
            finish(bytes, max_len)
        })
    }

    pub(crate) fn decode_anchor<C: CursorValue>(
        &self,
        fingerprint: u32,
        max_len: usize,
        direction: Direction,
        token: &str,
    ) -> Result<Anchor<C>, CursorError> {
        open(token, max_len, |bytes| {
            match bytes[0] {
                byte if byte == VERSION | SIGNED => {}
                VERSION => {
                    return Err(foreign_or(bytes, fingerprint, CursorError::MissingSignature))
                }
                byte => return Err(foreign_or(bytes, fingerprint, unsupported(byte))),
            }
            let Some(signed_len) = bytes.len().checked_sub(SIGNATURE_LEN) else {
                return Err(foreign_or(bytes, fingerprint, CursorError::Truncated));
            };
            let (signed, tag) = bytes.split_at(signed_len);
            let verifies = |key: &HmacSha256| {
                let mut mac = key.clone();
                mac.update(signed);
                mac.verify_truncated_left(tag).is_ok()
            };
            if !std::iter::once(&self.current).chain(&self.previous).any(verifies) {
                return Err(foreign_or(bytes, fingerprint, CursorError::BadSignature));
            }
            read(signed, fingerprint, direction)
        })
    }
}

impl fmt::Debug for TokenKeys {
    /// Never shows the keys.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenKeys")
            .field("previous_keys", &self.previous.len())
            .finish_non_exhaustive()
    }
}

fn mac(key: &[u8]) -> Result<HmacSha256, KeyTooShort> {
    if key.len() < TokenKeys::MIN_KEY_LEN {
        return Err(KeyTooShort { len: key.len() });
    }
    // HMAC takes keys of any length; only the minimum above is ours.
    Ok(HmacSha256::new_from_slice(key).expect("HMAC accepts keys of any length"))
}

fn sign(key: &HmacSha256, bytes: &[u8]) -> [u8; SIGNATURE_LEN] {
    let mut mac = key.clone();
    mac.update(bytes);
    let full = mac.finalize().into_bytes();
    let mut tag = [0; SIGNATURE_LEN];
    tag.copy_from_slice(&full[..SIGNATURE_LEN]);
    tag
}

#[cfg(test)]
mod tests {
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine;

    use super::*;

    fn keys() -> TokenKeys {
        TokenKeys::new([1u8; 32]).unwrap()
    }

    #[test]
    fn layout_is_the_unsigned_one_flagged_then_a_tag() {
        let signed = URL_SAFE_NO_PAD
            .decode(keys().encode(0x0403_0201, Direction::Before, &(5u8,)).unwrap())
            .unwrap();
        assert_eq!(signed[..7], [VERSION | SIGNED, 1, 2, 3, 4, 1, 5]);
        assert_eq!(signed.len(), 7 + SIGNATURE_LEN);
    }

    #[test]
    fn every_single_bit_flip_is_refused() {
        let token = keys().encode(9, Direction::After, &(String::from("abc"), 7i64)).unwrap();
        let bytes = URL_SAFE_NO_PAD.decode(&token).unwrap();
        for at in 0..bytes.len() {
            for bit in 0..8 {
                let mut flipped = bytes.clone();
                flipped[at] ^= 1 << bit;
                let result = keys().decode::<(String, i64)>(
                    9,
                    Direction::After,
                    &URL_SAFE_NO_PAD.encode(&flipped),
                );
                assert!(result.is_err(), "byte {at} bit {bit} was accepted");
            }
        }
    }

    #[test]
    fn short_keys_are_refused() {
        assert_eq!(TokenKeys::new([0u8; 31]).unwrap_err(), KeyTooShort { len: 31 });
        assert!(keys().with_previous(b"short").is_err());
    }

    #[test]
    fn debug_shows_no_key() {
        let shown = format!("{:?}", keys().with_previous([2u8; 32]).unwrap());
        assert_eq!(shown, "TokenKeys { previous_keys: 1, .. }");
    }
}
