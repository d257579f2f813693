//! Signed tokens (feature `signed`): HMAC-SHA256 under a server key ([`TokenKeys::new`]), so
//! that a client cannot edit a token's key values or write one of its own. It can still read
//! them: signing is not encryption (that is `encrypted.rs`).
//!
//! [`TokenKeys::new`]: super::keys::TokenKeys::new

use hmac::{KeyInit, Mac};

use super::direction::Direction;
use super::error::CursorError;
use super::format::{ENCRYPTED, SIGNED, VERSION};
use super::keys::HmacSha256;
use super::value::CursorValue;
use super::{finish, foreign_or, open, read, unsupported, with_payload, Anchor, Binding, TooLong};

/// Bytes of the HMAC-SHA256 tag a signed token carries: the leftmost 128 bits, as RFC 2104
/// allows (forging one takes 2^128 guesses), so tokens stay short.
pub const SIGNATURE_LEN: usize = 16;

/// The HMAC of `key` (whose length the caller checked).
pub(super) fn mac(key: &[u8]) -> HmacSha256 {
    // HMAC takes keys of any length; only the minimum is ours.
    HmacSha256::new_from_slice(key).expect("HMAC accepts keys of any length")
}

/// The token of `anchor`, signed with `key`.
pub(super) fn encode<C: CursorValue>(
    key: &HmacSha256,
    binding: Binding,
    max_len: usize,
    direction: Direction,
    anchor: Anchor<&C>,
) -> Result<String, TooLong> {
    with_payload(VERSION | SIGNED, binding, direction, anchor, |bytes| {
        let tag = sign(key, bytes);
        bytes.extend_from_slice(&tag);
        finish(bytes, max_len)
    })
}

/// Reads a token signed with one of `keys`, its signature checked before anything else.
pub(super) fn decode<C: CursorValue>(
    keys: &[HmacSha256],
    binding: Binding,
    max_len: usize,
    direction: Direction,
    token: &str,
) -> Result<Anchor<C>, CursorError> {
    let fingerprint = binding.fingerprint;
    open(token, max_len, |bytes| {
        match bytes[0] {
            byte if byte == VERSION | SIGNED => {}
            VERSION => return Err(foreign_or(bytes, fingerprint, CursorError::MissingSignature)),
            byte if byte == VERSION | ENCRYPTED => {
                return Err(foreign_or(bytes, fingerprint, CursorError::UnexpectedEncryption))
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
        if !keys.iter().any(verifies) {
            return Err(foreign_or(bytes, fingerprint, CursorError::BadSignature));
        }
        read(signed, binding, direction)
    })
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
    use crate::token::keys::TokenKeys;

    fn key(seed: u8) -> [u8; 32] {
        std::array::from_fn(|i| (i as u8).wrapping_mul(29).wrapping_add(seed))
    }

    fn keys() -> TokenKeys {
        TokenKeys::new(key(1)).unwrap()
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
    fn rotation_reads_every_listed_key_and_signs_with_the_current() {
        let old = TokenKeys::new(key(1)).unwrap();
        let issued = old.encode(9, Direction::After, &(3i64,)).unwrap();
        let rotated = TokenKeys::new(key(2)).unwrap().with_previous(key(3)).unwrap();
        let rotated = rotated.with_previous(key(1)).unwrap();
        assert_eq!(rotated.decode::<(i64,)>(9, Direction::After, &issued), Ok((3,)));
        let fresh = rotated.encode(9, Direction::After, &(3i64,)).unwrap();
        assert_eq!(
            old.decode::<(i64,)>(9, Direction::After, &fresh),
            Err(CursorError::BadSignature)
        );
        let current = TokenKeys::new(key(2)).unwrap();
        assert_eq!(current.decode::<(i64,)>(9, Direction::After, &fresh), Ok((3,)));
    }
}
