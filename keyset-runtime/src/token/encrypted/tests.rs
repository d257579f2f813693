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
    let foreign = TokenKeys::encrypting(key(2)).unwrap().encode(10, Direction::After, &cursor());
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
    let (seven, eight) =
        (Binding { fingerprint: 9, scope: Some(7) }, Binding { fingerprint: 9, scope: Some(8) });
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
