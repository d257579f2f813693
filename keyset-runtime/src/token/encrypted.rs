//! Encrypted tokens (feature `encrypted`, [`TokenKeys::encrypting`]): XChaCha20-Poly1305 under a
//! key derived from the server's, so that a client can neither read a token's key values nor
//! edit them.
//!
//! The version byte and the fingerprint stay in the clear, authenticated as associated data: a
//! token of another listing is refused as a plain one is, and only one of this listing is told
//! about its encryption. Everything after them (the direction byte and the values) is encrypted,
//! under a nonce of 24 random bytes, drawn from the operating system for each token: with
//! XChaCha20's 192-bit nonces, random nonces are safe for any number of tokens a server will
//! ever issue under one key (a repeat is expected only after about 2^96 of them), where the
//! 96-bit nonces of ChaCha20-Poly1305 or AES-GCM would need a counter kept across every server
//! of the listing, since a repeated nonce reveals both tokens' plaintexts and lets tags be forged.
//!
//! [`TokenKeys::encrypting`]: super::keys::TokenKeys::encrypting

use chacha20poly1305::aead::Generate;
use chacha20poly1305::{AeadInOut, KeyInit, Tag, XChaCha20Poly1305, XNonce};

use super::direction::Direction;
use super::error::CursorError;
use super::format::{ENCRYPTED, SIGNED, VERSION};
use super::signed::prf;
use super::value::CursorValue;
use super::{
    finish, fits, foreign_or, open, read, unsupported, with_payload, Anchor, Binding, TooLong,
};

/// Bytes of an encrypted token's nonce.
pub const NONCE_LEN: usize = 24;

/// Bytes of an encrypted token's Poly1305 tag.
pub const TAG_LEN: usize = 16;

/// The bytes in the clear, authenticated: the version byte and the fingerprint.
const CLEAR_LEN: usize = 5;

/// The cipher of a server key (whose length the caller checked): its key is derived under a
/// label of its own, so that a secret used both to sign and to encrypt gives unrelated keys.
pub(super) fn cipher(key: &[u8]) -> XChaCha20Poly1305 {
    XChaCha20Poly1305::new(&prf(key, b"keyset-runtime token encryption key").into())
}

/// The token of `anchor`, encrypted with `cipher` under a fresh random nonce.
pub(super) fn encode<C: CursorValue>(
    cipher: &XChaCha20Poly1305,
    binding: Binding,
    max_len: usize,
    direction: Direction,
    anchor: Anchor<&C>,
) -> Result<String, TooLong> {
    with_payload(VERSION | ENCRYPTED, binding, direction, anchor, |bytes| {
        // Refused before encrypting, so what is encrypted is at most a token's length, far
        // below the cipher's limit of 256 GiB.
        fits(bytes.len() + NONCE_LEN + TAG_LEN, max_len)?;
        let nonce = XNonce::generate();
        let (clear, secret) = bytes.split_at_mut(CLEAR_LEN);
        let tag = cipher
            .encrypt_inout_detached(&nonce, clear, secret.into())
            .expect("a token is far shorter than XChaCha20-Poly1305's limit");
        bytes.splice(CLEAR_LEN..CLEAR_LEN, nonce);
        bytes.extend_from_slice(&tag);
        finish(bytes, max_len)
    })
}

/// Reads a token encrypted with one of `ciphers`: its tag is checked, and its bytes decrypted
/// (in place), before anything else after the fingerprint is read.
pub(super) fn decode<C: CursorValue>(
    ciphers: &[XChaCha20Poly1305],
    binding: Binding,
    max_len: usize,
    direction: Direction,
    token: &str,
) -> Result<Anchor<C>, CursorError> {
    let fingerprint = binding.fingerprint;
    open(token, max_len, |bytes| {
        match bytes[0] {
            byte if byte == VERSION | ENCRYPTED => {}
            byte if byte == VERSION || byte == VERSION | SIGNED => {
                return Err(foreign_or(bytes, fingerprint, CursorError::NotEncrypted))
            }
            byte => return Err(foreign_or(bytes, fingerprint, unsupported(byte))),
        }
        // At least the direction byte is encrypted.
        let sealed_len = match bytes.len().checked_sub(CLEAR_LEN + NONCE_LEN + TAG_LEN) {
            Some(len @ 1..) => len,
            _ => return Err(foreign_or(bytes, fingerprint, CursorError::Truncated)),
        };
        let (clear, rest) = bytes.split_at_mut(CLEAR_LEN);
        let (nonce, rest) = rest.split_at_mut(NONCE_LEN);
        let (sealed, tag) = rest.split_at_mut(sealed_len);
        let (nonce, tag) = (XNonce::try_from(&*nonce), Tag::try_from(&*tag));
        let (Ok(nonce), Ok(tag)) = (nonce, tag) else {
            unreachable!("the slices were cut to the nonce's and the tag's lengths")
        };
        // The tag is verified before the bytes are decrypted: a key that fails leaves them as
        // they were, for the next key to try (the rotation tests would fail otherwise).
        let opens = |cipher: &XChaCha20Poly1305| {
            cipher.decrypt_inout_detached(&nonce, clear, (&mut *sealed).into(), &tag).is_ok()
        };
        if !ciphers.iter().any(opens) {
            return Err(foreign_or(bytes, fingerprint, CursorError::BadSignature));
        }
        // The header, then the decrypted bytes: a plain token's, for the plain reader.
        bytes.copy_within(..CLEAR_LEN, NONCE_LEN);
        read(&bytes[NONCE_LEN..CLEAR_LEN + NONCE_LEN + sealed_len], binding, direction)
    })
}

#[cfg(test)]
mod tests;
