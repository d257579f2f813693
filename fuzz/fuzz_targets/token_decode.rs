//! Decodes arbitrary input as a cursor token, with the token codec the pages use (its raw
//! functions reached through `keyset_runtime::__testing::token`, as the test suite does), for
//! cursor types of the shapes sort keys have (integers, timestamps, text, NULLs, bytes), plain
//! and signed. Any panic, any out-of-bounds access, any allocation over libFuzzer's limit is a
//! finding; every refusal must be a `CursorError`.
//!
//! The first byte chooses how the rest is read: as the token text itself, or as the values
//! behind a valid header (so that the fuzzer reaches the value decoder without first having to
//! guess a fingerprint).

#![no_main]

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use chrono::NaiveDateTime;
use keyset_runtime::__testing::token::{self, SIGNED, VERSION};
use keyset_runtime::token::CursorValue;
use keyset_runtime::{CursorError, Direction, TokenKeys};
use libfuzzer_sys::fuzz_target;

/// `created_at DESC, id DESC`, as the derive generates it (a cursor is its fields in order).
type Newest = (NaiveDateTime, i64);

/// Nullable keys, text and a composite tiebreaker.
type Mixed = (Option<i32>, Option<NaiveDateTime>, String, i16, u64);

/// Bytes and text: the shapes whose decoding allocates by a length prefix.
type Lengths = (Vec<u8>, Option<String>, bool, Option<Vec<u8>>);

const FINGERPRINT: u32 = 0x1234_5678;

fn keys() -> TokenKeys {
    TokenKeys::new(*b"fuzz target key, 32 bytes, false").expect("a 32-byte key")
}

fn decode_all(text: &str) {
    let keys = keys();
    for direction in [Direction::After, Direction::Before] {
        check::<Newest>(token::decode(FINGERPRINT, direction, text), direction);
        check::<Mixed>(token::decode(FINGERPRINT, direction, text), direction);
        check::<Lengths>(token::decode(FINGERPRINT, direction, text), direction);
        check::<Newest>(keys.decode(FINGERPRINT, direction, text), direction);
        check::<Mixed>(keys.decode(FINGERPRINT, direction, text), direction);
    }
}

/// A cursor that decodes must round-trip: encoding it again gives a token that decodes to it.
fn check<C: CursorValue + PartialEq + std::fmt::Debug>(
    result: Result<C, CursorError>,
    direction: Direction,
) {
    let Ok(cursor) = result else { return };
    // The canonical form is never longer than the input (an overlong varint is written short),
    // but should it be over the limit, that is refused, not a finding.
    match token::encode(FINGERPRINT, direction, &cursor) {
        Ok(again) => {
            let back: C = token::decode(FINGERPRINT, direction, &again).expect("decodes again");
            assert_eq!(back, cursor);
        }
        Err(CursorError::TooLong { .. }) => {}
        Err(err) => panic!("a decoded cursor does not encode: {err}"),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    match mode % 3 {
        0 => decode_all(&String::from_utf8_lossy(rest)),
        mode => {
            let mut bytes = vec![if mode == 1 { VERSION } else { VERSION | SIGNED }];
            bytes.extend_from_slice(&FINGERPRINT.to_le_bytes());
            bytes.push(0);
            bytes.extend_from_slice(rest);
            decode_all(&URL_SAFE_NO_PAD.encode(&bytes));
        }
    }
});
