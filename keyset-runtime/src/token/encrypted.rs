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
use super::keys::prf;
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
mod tests {
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine;

    use super::*;
    use crate::token::format::MAX_TOKEN_LEN;
    use crate::token::keys::TokenKeys;
    use crate::token::raw;

    fn key(seed: u8) -> [u8; 32] {
        std::array::from_fn(|i| (i as u8).wrapping_mul(29).wrapping_add(seed))
    }

    fn keys() -> TokenKeys {
        TokenKeys::encrypting(key(1)).unwrap()
    }

    type Cursor = (String, i64);

    fn cursor() -> Cursor {
        (String::from("secret-title-107"), 107)
    }

    #[test]
    fn round_trips_and_hides_the_values() {
        let token = keys().encode(9, Direction::Before, &cursor()).unwrap();
        assert_eq!(keys().decode::<Cursor>(9, Direction::Before, &token), Ok(cursor()));
        let bytes = URL_SAFE_NO_PAD.decode(&token).unwrap();
        assert_eq!(bytes[..CLEAR_LEN], [VERSION | ENCRYPTED, 9, 0, 0, 0]);
        let plain = URL_SAFE_NO_PAD.decode(raw::encode(9, Direction::Before, &cursor()).unwrap());
        assert_eq!(bytes.len(), plain.unwrap().len() + NONCE_LEN + TAG_LEN);
        assert!(!bytes.windows(6).any(|window| window == b"secret"), "{bytes:?}");
        // URL-safe, and a fresh nonce each time: the same cursor never gives the same token.
        assert!(token.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
        assert_ne!(keys().encode(9, Direction::Before, &cursor()).unwrap(), token);
    }

    #[test]
    fn every_byte_tampered_is_refused() {
        let token = keys().encode(9, Direction::After, &cursor()).unwrap();
        let bytes = URL_SAFE_NO_PAD.decode(&token).unwrap();
        for at in 0..bytes.len() {
            for bit in 0..8 {
                let mut flipped = bytes.clone();
                flipped[at] ^= 1 << bit;
                let flipped = URL_SAFE_NO_PAD.encode(&flipped);
                let result = keys().decode::<Cursor>(9, Direction::After, &flipped);
                assert!(result.is_err(), "byte {at} bit {bit} was accepted");
            }
        }
        // Past the fingerprint, every edit fails the tag.
        let mut edited = bytes.clone();
        edited[CLEAR_LEN + NONCE_LEN] ^= 1;
        let edited = URL_SAFE_NO_PAD.encode(&edited);
        assert_eq!(
            keys().decode::<Cursor>(9, Direction::After, &edited),
            Err(CursorError::BadSignature)
        );
        for len in 0..bytes.len() {
            let cut = URL_SAFE_NO_PAD.encode(&bytes[..len]);
            assert!(keys().decode::<Cursor>(9, Direction::After, &cut).is_err(), "{len}");
        }
    }

    #[test]
    fn another_key_or_protection_is_refused() {
        let token = keys().encode(9, Direction::After, &cursor()).unwrap();
        let other = TokenKeys::encrypting(key(2)).unwrap();
        let refused = other.decode::<Cursor>(9, Direction::After, &token);
        assert_eq!(refused, Err(CursorError::BadSignature));
        // The same secret signing: another primitive, and another key (derived under a label).
        let signing = TokenKeys::new(key(1)).unwrap();
        let refused = signing.decode::<Cursor>(9, Direction::After, &token);
        assert_eq!(refused, Err(CursorError::UnexpectedEncryption));
        let signed = signing.encode(9, Direction::After, &cursor()).unwrap();
        let plain = raw::encode(9, Direction::After, &cursor()).unwrap();
        for token in [signed, plain] {
            let refused = keys().decode::<Cursor>(9, Direction::After, &token);
            assert_eq!(refused, Err(CursorError::NotEncrypted));
        }
        assert_eq!(
            raw::decode::<Cursor>(9, Direction::After, &token),
            Err(CursorError::UnexpectedEncryption)
        );
    }

    #[test]
    fn the_header_is_checked_as_a_plain_one_is() {
        let token = keys().encode(9, Direction::After, &cursor()).unwrap();
        // Another listing's fingerprint, with the same keys: its own, authenticated, error.
        let refused = keys().decode::<Cursor>(10, Direction::After, &token);
        assert_eq!(refused, Err(CursorError::ForeignSortOrder));
        assert!(matches!(
            keys().decode::<Cursor>(9, Direction::Before, &token),
            Err(CursorError::WrongDirection { .. })
        ));
        // A foreign string of another key is junk, not a bad signature.
        let foreign =
            TokenKeys::encrypting(key(2)).unwrap().encode(10, Direction::After, &cursor());
        let refused = keys().decode::<Cursor>(9, Direction::After, &foreign.unwrap());
        assert_eq!(refused, Err(CursorError::Malformed));
        // The fingerprint is authenticated: rewritten, it fails the tag.
        let mut bytes = URL_SAFE_NO_PAD.decode(&token).unwrap();
        bytes[1] = 10;
        let rewritten = URL_SAFE_NO_PAD.encode(&bytes);
        let refused = keys().decode::<Cursor>(10, Direction::After, &rewritten);
        assert_eq!(refused, Err(CursorError::BadSignature));
    }

    #[test]
    fn rotation_reads_every_listed_key_and_encrypts_with_the_current() {
        let old = TokenKeys::encrypting(key(1)).unwrap();
        let issued = old.encode(9, Direction::After, &cursor()).unwrap();
        // The old key last: the keys before it fail on the token's bytes, which stay intact.
        let rotated = TokenKeys::encrypting(key(2)).unwrap().with_previous(key(3)).unwrap();
        let rotated = rotated.with_previous(key(1)).unwrap();
        assert_eq!(rotated.decode::<Cursor>(9, Direction::After, &issued), Ok(cursor()));
        let fresh = rotated.encode(9, Direction::After, &cursor()).unwrap();
        let refused = old.decode::<Cursor>(9, Direction::After, &fresh);
        assert_eq!(refused, Err(CursorError::BadSignature));
        let current = TokenKeys::encrypting(key(2)).unwrap();
        assert_eq!(current.decode::<Cursor>(9, Direction::After, &fresh), Ok(cursor()));
        assert!(TokenKeys::encrypting([3u8; 32]).is_err());
        assert!(current.with_previous(key(2)).is_err());
    }

    /// Signed or encrypted, a scoped token reads only in its scope.
    #[test]
    fn the_scope_is_bound_under_either_protection() {
        use crate::token::Binding;
        let (seven, eight) = (
            Binding { fingerprint: 9, scope: Some(7) },
            Binding { fingerprint: 9, scope: Some(8) },
        );
        for keys in [keys(), TokenKeys::new(key(1)).unwrap()] {
            let row = Anchor::Row(&cursor());
            let token = keys.encode_anchor(seven, MAX_TOKEN_LEN, Direction::After, row).unwrap();
            let read = |binding| {
                keys.decode_anchor::<Cursor>(binding, MAX_TOKEN_LEN, Direction::After, &token)
            };
            assert_eq!(read(seven), Ok(Anchor::Row(cursor())));
            for other in [eight, Binding::unscoped(9)] {
                assert_eq!(read(other), Err(CursorError::OtherScope), "{keys:?}");
            }
        }
    }

    #[test]
    fn the_length_limit_counts_the_nonce_and_the_tag() {
        // A key whose plain token just fits is too long encrypted: refused when issued.
        let plain_fits = "x".repeat(MAX_TOKEN_LEN * 3 / 4 - 8);
        assert!(raw::encode(9, Direction::After, &plain_fits).is_ok());
        assert!(matches!(
            keys().encode(9, Direction::After, &plain_fits),
            Err(CursorError::TooLong { max: MAX_TOKEN_LEN, .. })
        ));
        let fits = "x".repeat(MAX_TOKEN_LEN * 3 / 4 - 8 - NONCE_LEN - TAG_LEN);
        let token = keys().encode(9, Direction::After, &fits).unwrap();
        assert!(token.len() <= MAX_TOKEN_LEN);
        assert_eq!(keys().decode::<String>(9, Direction::After, &token), Ok(fits));
    }
}
