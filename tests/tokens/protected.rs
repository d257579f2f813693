//! Signed and encrypted tokens, through the front door: what each hides (signing nothing,
//! encryption the key values), which keys are refused, and that a listing reads only tokens
//! protected as it protects its own, each refusal a typed error before any query runs.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use diesel::prelude::*;
use diesel::sqlite::Sqlite;
use keyset_runtime::__testing::token::{self, NONCE_LEN, SIGNATURE_LEN, TAG_LEN};
use keyset_runtime::{
    CursorError, Direction, Error, KeyError, Keyset, PageRequest, Paginate, TokenKeys,
};
use keyset_tests::models::{ByUniqueTitle, ByUniqueTitleCursor};
use keyset_tests::schema::posts;
use proptest::prelude::*;

const KEY: [u8; 32] = *b"protected tests' key of 32 bytes";
const OTHER: [u8; 32] = *b"another test key, 32 bytes: fake";

type Query = diesel::dsl::Select<posts::table, diesel::dsl::AsSelect<ByUniqueTitle, Sqlite>>;

fn query() -> Query {
    posts::table.select(ByUniqueTitle::as_select())
}

/// What the listing says of `token` sent as `after`, protected by `keys` (or plain): `None` when
/// it is accepted (no query runs: the page is only prepared).
fn refusal(keys: Option<&TokenKeys>, token: &str) -> Option<CursorError> {
    let request = PageRequest::after(token, 5);
    let prepared = match keys {
        Some(keys) => query().paginate_signed(&request, keys),
        None => query().paginate(&request),
    };
    match prepared {
        Ok(_) => None,
        Err(Error::Cursor(error)) => Some(error),
        Err(other) => panic!("expected a cursor error, got {other}"),
    }
}

fn secret_title() -> ByUniqueTitleCursor {
    ByUniqueTitleCursor { title: "secret-title-107".to_owned() }
}

fn decoded(token: &str) -> Vec<u8> {
    URL_SAFE_NO_PAD.decode(token).unwrap()
}

fn holds(bytes: &[u8], text: &str) -> bool {
    bytes.windows(text.len()).any(|window| window == text.as_bytes())
}

/// The finding, both ways: a signed token's key values read as plain bytes; an encrypted
/// one's do not.
#[test]
fn signing_hides_nothing_and_encryption_hides_the_values() {
    let (signing, encrypting) = (TokenKeys::new(KEY).unwrap(), TokenKeys::encrypting(KEY).unwrap());
    let signed = signing.encode(ByUniqueTitle::FINGERPRINT, Direction::After, &secret_title());
    let encrypted =
        encrypting.encode(ByUniqueTitle::FINGERPRINT, Direction::After, &secret_title());
    let (signed, encrypted) = (signed.unwrap(), encrypted.unwrap());
    assert!(holds(&decoded(&signed), "secret-title-107"));
    assert!(!holds(&decoded(&encrypted), "secret"), "{:?}", decoded(&encrypted));
    assert_eq!(
        decoded(&encrypted).len(),
        decoded(&signed).len() - SIGNATURE_LEN + NONCE_LEN + TAG_LEN
    );

    assert_eq!(refusal(Some(&signing), &signed), None);
    assert_eq!(refusal(Some(&encrypting), &encrypted), None);
    let read = encrypting.decode(ByUniqueTitle::FINGERPRINT, Direction::After, &encrypted);
    assert_eq!(read, Ok(secret_title()));
}

#[test]
fn a_listing_reads_only_tokens_protected_as_its_own() {
    let (signing, encrypting) = (TokenKeys::new(KEY).unwrap(), TokenKeys::encrypting(KEY).unwrap());
    let cursor = secret_title();
    let plain = token::encode(ByUniqueTitle::FINGERPRINT, Direction::After, &cursor).unwrap();
    let signed = signing.encode(ByUniqueTitle::FINGERPRINT, Direction::After, &cursor).unwrap();
    let encrypted =
        encrypting.encode(ByUniqueTitle::FINGERPRINT, Direction::After, &cursor).unwrap();

    assert_eq!(refusal(None, &signed), Some(CursorError::UnexpectedSignature));
    assert_eq!(refusal(None, &encrypted), Some(CursorError::UnexpectedEncryption));
    assert_eq!(refusal(Some(&signing), &plain), Some(CursorError::MissingSignature));
    assert_eq!(refusal(Some(&signing), &encrypted), Some(CursorError::UnexpectedEncryption));
    assert_eq!(refusal(Some(&encrypting), &plain), Some(CursorError::NotEncrypted));
    assert_eq!(refusal(Some(&encrypting), &signed), Some(CursorError::NotEncrypted));

    // Another key, and a rotation that lists it.
    let other = TokenKeys::encrypting(OTHER).unwrap();
    assert_eq!(refusal(Some(&other), &encrypted), Some(CursorError::BadSignature));
    let rotated = other.with_previous(KEY).unwrap();
    assert_eq!(refusal(Some(&rotated), &encrypted), None);

    // A junk string is junk, whatever the listing's protection; every refusal is a 400.
    for keys in [None, Some(&signing), Some(&encrypting)] {
        assert_eq!(refusal(keys, "oops"), Some(CursorError::Malformed));
        let error = Error::from(refusal(keys, &encrypted[..encrypted.len() - 2]).unwrap());
        assert!(error.is_client_error(), "{error}");
    }
}

#[test]
fn weak_keys_are_refused_with_what_to_do() {
    for refused in [
        TokenKeys::new([0u8; 32]).unwrap_err(),
        TokenKeys::encrypting([0u8; 32]).unwrap_err(),
        TokenKeys::encrypting([9u8; 64]).unwrap_err(),
    ] {
        assert!(matches!(refused, KeyError::Uniform { .. }), "{refused:?}");
        assert!(refused.to_string().contains("`openssl rand -base64 32`"), "{refused}");
    }
    assert_eq!(TokenKeys::encrypting(&KEY[..16]).unwrap_err(), KeyError::TooShort { len: 16 });
    let repeated = TokenKeys::encrypting(KEY).unwrap().with_previous(KEY).unwrap_err();
    assert_eq!(repeated, KeyError::Repeated { previous: 1 });
    let twice = TokenKeys::new(KEY).unwrap().with_previous(OTHER).unwrap().with_previous(OTHER);
    assert_eq!(twice.unwrap_err(), KeyError::Repeated { previous: 2 });
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    /// An encrypted token of any title round-trips, and survives no edit of any of its bytes.
    #[test]
    fn encrypted_tokens_round_trip_and_survive_no_edit(
        title in ".{0,60}",
        at in any::<prop::sample::Index>(),
        flip in 1..=255u8,
    ) {
        let keys = TokenKeys::encrypting(KEY).unwrap();
        let cursor = ByUniqueTitleCursor { title };
        let issued = keys.encode(ByUniqueTitle::FINGERPRINT, Direction::Before, &cursor).unwrap();
        let read = keys.decode(ByUniqueTitle::FINGERPRINT, Direction::Before, &issued);
        prop_assert_eq!(read, Ok(cursor));
        let mut bytes = decoded(&issued);
        let at = at.index(bytes.len());
        bytes[at] ^= flip;
        let edited = URL_SAFE_NO_PAD.encode(&bytes);
        let read = keys.decode::<ByUniqueTitleCursor>(ByUniqueTitle::FINGERPRINT, Direction::Before, &edited);
        prop_assert!(read.is_err(), "byte {} edited was accepted", at);
    }
}
