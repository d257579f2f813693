//! Property tests of the token decoder, run in every `cargo test`: arbitrary strings, arbitrary
//! bytes behind a valid header, and mutations of valid tokens (plain, signed and encrypted) never panic and
//! always end in a typed [`CursorError`] or a cursor that round-trips; tokens of another model,
//! sort order, direction or format version are always refused. (The cargo-fuzz target in
//! `fuzz/` searches the same decoder with coverage guidance; this runs every time.)

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use chrono::{DateTime, NaiveDateTime};
use keyset_runtime::__testing::token::{self, ENCRYPTED, MAX_TOKEN_LEN, SIGNED, VERSION};
use keyset_runtime::{CursorError, Direction, Keyset, TokenKeys};
use keyset_tests::models::{
    ByUniqueTitle, ByUniqueTitleCursor, Newest, NewestCursor, RankDue, RankDueCursor, TopScore,
};
use proptest::prelude::*;
use proptest::test_runner::Config;

fn config() -> Config {
    let mut config = Config::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = 2_000;
    }
    config.failure_persistence = None;
    config
}

fn keys() -> TokenKeys {
    TokenKeys::new(*b"props test key, 32 bytes, unreal").unwrap()
}

fn encrypting() -> TokenKeys {
    TokenKeys::encrypting(*b"props test key, 32 bytes, unreal").unwrap()
}

/// Decodes `token` as three cursor types, plain, signed and encrypted, both directions: none may
/// panic.
fn decode_everything(token: &str) {
    for direction in [Direction::After, Direction::Before] {
        let _ = token::decode::<NewestCursor>(Newest::FINGERPRINT, direction, token);
        let _ = token::decode::<RankDueCursor>(RankDue::FINGERPRINT, direction, token);
        let _ = token::decode::<ByUniqueTitleCursor>(ByUniqueTitle::FINGERPRINT, direction, token);
        let _ = keys().decode::<NewestCursor>(Newest::FINGERPRINT, direction, token);
        let _ = keys().decode::<RankDueCursor>(RankDue::FINGERPRINT, direction, token);
        let _ = encrypting().decode::<NewestCursor>(Newest::FINGERPRINT, direction, token);
        let _ = encrypting().decode::<RankDueCursor>(RankDue::FINGERPRINT, direction, token);
    }
}

fn timestamp() -> impl Strategy<Value = NaiveDateTime> {
    // Any microsecond from year 1 to 9999.
    (-62_135_596_800_000_000i64..253_402_300_799_999_999)
        .prop_map(|us| DateTime::from_timestamp_micros(us).expect("in range").naive_utc())
}

fn rank_due() -> impl Strategy<Value = RankDueCursor> {
    (any::<Option<i32>>(), prop::option::of(timestamp()), any::<i64>())
        .prop_map(|(rank, due, id)| RankDueCursor { rank, due, id })
}

fn newest() -> impl Strategy<Value = NewestCursor> {
    (timestamp(), any::<i64>()).prop_map(|(created_at, id)| NewestCursor { created_at, id })
}

/// One edit of a token's bytes: flip a bit, set a byte, insert, delete, truncate or extend.
fn mutate(bytes: &mut Vec<u8>, (kind, at, value): (u8, usize, u8)) {
    let at = at % (bytes.len() + 1);
    match kind % 6 {
        0 if at < bytes.len() => bytes[at] ^= 1 << (value % 8),
        1 if at < bytes.len() => bytes[at] = value,
        2 => bytes.insert(at, value),
        3 if at < bytes.len() => {
            bytes.remove(at);
        }
        4 => bytes.truncate(at),
        _ => bytes.extend(std::iter::repeat_n(value, at % 9 + 1)),
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arbitrary_strings_never_panic(text in any::<String>()) {
        decode_everything(&text);
    }

    #[test]
    fn arbitrary_base64_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..800)) {
        decode_everything(&URL_SAFE_NO_PAD.encode(&bytes));
    }

    /// Past the header checks, straight into the value decoder.
    #[test]
    fn arbitrary_values_behind_a_valid_header_are_refused_or_round_trip(
        values in prop::collection::vec(any::<u8>(), 0..200),
        signed in any::<bool>(),
    ) {
        let mut bytes = vec![if signed { VERSION | SIGNED } else { VERSION }];
        bytes.extend_from_slice(&Newest::FINGERPRINT.to_le_bytes());
        bytes.push(0);
        bytes.extend_from_slice(&values);
        let text = URL_SAFE_NO_PAD.encode(&bytes);
        decode_everything(&text);
        if let Ok(cursor) = token::decode::<NewestCursor>(Newest::FINGERPRINT, Direction::After, &text) {
            let again = token::encode(Newest::FINGERPRINT, Direction::After, &cursor).unwrap();
            prop_assert_eq!(token::decode::<NewestCursor>(Newest::FINGERPRINT, Direction::After, &again).unwrap(), cursor);
        }
    }

    /// Edits of a valid token: a typed error or a cursor; and a signed or encrypted token
    /// survives no edit.
    #[test]
    fn mutated_tokens_are_refused_or_decode(
        cursor in rank_due(),
        edits in prop::collection::vec((any::<u8>(), any::<usize>(), any::<u8>()), 1..4),
    ) {
        for protected in [None, Some(keys()), Some(encrypting())] {
            let valid = match &protected {
                Some(keys) => keys.encode(RankDue::FINGERPRINT, Direction::After, &cursor).unwrap(),
                None => token::encode(RankDue::FINGERPRINT, Direction::After, &cursor).unwrap(),
            };
            let original = URL_SAFE_NO_PAD.decode(&valid).unwrap();
            let mut bytes = original.clone();
            for &edit in &edits {
                mutate(&mut bytes, edit);
            }
            let text = URL_SAFE_NO_PAD.encode(&bytes);
            decode_everything(&text);
            if let (Some(keys), true) = (&protected, bytes != original) {
                let result = keys.decode::<RankDueCursor>(RankDue::FINGERPRINT, Direction::After, &text);
                prop_assert!(result.is_err(), "an edited {keys:?} token was accepted: {:?}", result);
            }
        }
    }

    /// Every value round-trips, plain and signed, and decodes only as what it was issued for.
    #[test]
    fn tokens_decode_only_as_their_model_order_direction_and_version(
        cursor in newest(),
        version in any::<u8>(),
    ) {
        for direction in [Direction::After, Direction::Before] {
            let plain = token::encode(Newest::FINGERPRINT, direction, &cursor).unwrap();
            let signed = keys().encode(Newest::FINGERPRINT, direction, &cursor).unwrap();
            prop_assert!(plain.len() <= MAX_TOKEN_LEN && signed.len() <= MAX_TOKEN_LEN);
            prop_assert_eq!(&token::decode::<NewestCursor>(Newest::FINGERPRINT, direction, &plain).unwrap(), &cursor);
            prop_assert_eq!(&keys().decode::<NewestCursor>(Newest::FINGERPRINT, direction, &signed).unwrap(), &cursor);

            // Another model with the same key types, another sort order of the same table.
            for fingerprint in [TopScore::FINGERPRINT, token::fingerprint("posts: created_at DESC, id ASC")] {
                prop_assert_eq!(token::decode::<NewestCursor>(fingerprint, direction, &plain), Err(CursorError::ForeignSortOrder));
                prop_assert_eq!(keys().decode::<NewestCursor>(fingerprint, direction, &signed), Err(CursorError::ForeignSortOrder));
            }
            // The other direction.
            let other = match direction { Direction::After => Direction::Before, Direction::Before => Direction::After };
            prop_assert_eq!(
                token::decode::<NewestCursor>(Newest::FINGERPRINT, other, &plain),
                Err(CursorError::WrongDirection { expected: other, found: direction })
            );
            // Any other format version (older or newer), with the signed or encrypted flag or not.
            let mut bytes = URL_SAFE_NO_PAD.decode(&plain).unwrap();
            bytes[0] = version;
            let text = URL_SAFE_NO_PAD.encode(&bytes);
            let result = token::decode::<NewestCursor>(Newest::FINGERPRINT, direction, &text);
            match version {
                VERSION => prop_assert!(result.is_ok()),
                v if v == VERSION | SIGNED => prop_assert_eq!(result, Err(CursorError::UnexpectedSignature)),
                v if v == VERSION | ENCRYPTED => prop_assert_eq!(result, Err(CursorError::UnexpectedEncryption)),
                v => prop_assert_eq!(result, Err(CursorError::UnsupportedVersion { found: v & !(SIGNED | ENCRYPTED), supported: VERSION })),
            }
        }
    }
}
