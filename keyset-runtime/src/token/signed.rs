//! Signed tokens (feature `signed`): HMAC-SHA256 under a server key ([`TokenKeys::new`]), so
//! that a client cannot edit a token's key values or write one of its own. It can still read
//! them: signing is not encryption (that is `encrypted.rs`).
//!
//! [`TokenKeys::new`]: super::keys::TokenKeys::new

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use super::direction::Direction;
use super::error::CursorError;
use super::format::{ENCRYPTED, SIGNED, VERSION};
use super::value::CursorValue;
use super::{finish, foreign_or, open, read, unsupported, with_payload, Anchor, Binding, TooLong};

/// Bytes of the HMAC-SHA256 tag a signed token carries: the leftmost 128 bits, as RFC 2104
/// allows (forging one takes 2^128 guesses), so tokens stay short.
pub const SIGNATURE_LEN: usize = 16;

/// HMAC-SHA256, what signs tokens and derives the keys' identities and the cipher's key.
pub(crate) type HmacSha256 = Hmac<Sha256>;

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

/// HMAC-SHA256 of `label` under `key`: a key's identity, and the cipher's key derived from it.
pub(crate) fn prf(key: &[u8], label: &[u8]) -> [u8; 32] {
    let mut mac = mac(key);
    mac.update(label);
    let mut out = [0; 32];
    out.copy_from_slice(&mac.finalize().into_bytes());
    out
}

#[cfg(test)]
mod tests;
