//! Tokens: lossless round trips of every key type, and a typed error (never a panic, never a
//! silent first page) for every way a token can be wrong.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use chrono::{DateTime, NaiveDate, NaiveDateTime};
use diesel::prelude::*;
use diesel::sqlite::Sqlite;
use keyset_runtime::__testing::token::{self, MAX_TOKEN_LEN, VERSION};
use keyset_runtime::{CursorError, Direction, Error, Keyset, PageRequest, Paginate};
use keyset_tests::models::{Newest, NewestCursor, TopScore};
use keyset_tests::schema::posts;
use keyset_tests::seed;

/// Every value type a sort key commonly has, at its extremes.
type AllTypes =
    ((i16, i32, i64, i64), (u64, f64, bool), (String, NaiveDate, NaiveDateTime, Vec<u8>));

#[test]
fn every_value_type_round_trips_exactly() {
    let value: AllTypes = (
        (i16::MIN, i32::MAX, i64::MAX, i64::MIN),
        (u64::MAX, -0.1, true),
        (
            "日本語 é ß \u{1F600} \0 ' \" ;--".into(),
            NaiveDate::from_ymd_opt(-4000, 2, 29).unwrap(),
            DateTime::from_timestamp(1_700_000_000, 123_456_789).unwrap().naive_utc(),
            vec![0, 255, 128],
        ),
    );
    for direction in [Direction::After, Direction::Before] {
        let encoded = token::encode(7, direction, &value).unwrap();
        assert!(
            encoded.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
            "URL-safe: {encoded}"
        );
        assert_eq!(token::decode::<AllTypes>(7, direction, &encoded).unwrap(), value);
    }
}

/// The error `paginate` refuses `request` with, before any query: no connection is needed.
fn paginate_error(request: PageRequest) -> Error {
    let query = posts::table.select(<Newest as SelectableHelper<Sqlite>>::as_select());
    match query.paginate(&request) {
        Ok(_) => panic!("expected an error for {request:?}, got a query to load"),
        Err(err) => err,
    }
}

fn cursor_error(token: &str) -> CursorError {
    match paginate_error(PageRequest::after(token, 5)) {
        Error::Cursor(err) => err,
        other => panic!("expected a cursor error, got {other:?}"),
    }
}

fn valid_token() -> String {
    let cursor = NewestCursor { created_at: seed::timestamp(3), id: 12 };
    token::encode(Newest::FINGERPRINT, Direction::After, &cursor).unwrap()
}

fn raw(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

#[test]
fn malformed_tokens_give_typed_errors() {
    assert_eq!(cursor_error(""), CursorError::Empty);
    assert_eq!(cursor_error("not base64!"), CursorError::NotBase64);
    assert_eq!(
        cursor_error(&format!("{}==", valid_token())),
        CursorError::NotBase64,
        "padding is not ours"
    );
    let long = "A".repeat(MAX_TOKEN_LEN + 1);
    assert_eq!(
        cursor_error(&long),
        CursorError::TooLong { len: MAX_TOKEN_LEN + 1, max: MAX_TOKEN_LEN }
    );
    // Too short for a header: nothing says it is a token of ours.
    assert_eq!(cursor_error(&raw(&[VERSION, 1, 2])), CursorError::Malformed);

    let valid = URL_SAFE_NO_PAD.decode(valid_token()).unwrap();
    assert_eq!(cursor_error(&raw(&valid[..valid.len() - 1])), CursorError::Truncated);
    let mut trailing = valid.clone();
    trailing.push(0);
    assert!(matches!(cursor_error(&raw(&trailing)), CursorError::InvalidValues(_)));
    let mut version = valid.clone();
    version[0] = 0;
    assert_eq!(
        cursor_error(&raw(&version)),
        CursorError::UnsupportedVersion { found: 0, supported: VERSION }
    );
}

/// What clients send by mistake (`?after=oops`, a stringified `null`, a page number) is a
/// malformed cursor. Only a string that carries this listing's header is told about versions or
/// signatures; `oops` used to read as "format version 34".
#[test]
fn junk_is_a_malformed_cursor_and_never_a_version() {
    for junk in ["oops", "null", "None", "abc", "AAAA", "1", "42", "test1234", "page-2", "x_y-z0"] {
        let error = cursor_error(junk);
        assert!(
            matches!(error, CursorError::Malformed | CursorError::NotBase64),
            "{junk:?}: {error}"
        );
        assert!(!error.to_string().contains("version"), "{junk:?}: {error}");
    }
    // A token of this listing in another format version is told so.
    let mut bytes = URL_SAFE_NO_PAD.decode(valid_token()).unwrap();
    bytes[0] = VERSION + 1;
    assert_eq!(
        cursor_error(&raw(&bytes)),
        CursorError::UnsupportedVersion { found: VERSION + 1, supported: VERSION }
    );
    // Any version byte before another listing's fingerprint is no version at all.
    bytes[1] ^= 0xff;
    assert_eq!(cursor_error(&raw(&bytes)), CursorError::Malformed);
}

#[test]
fn tokens_of_another_sort_order_or_direction_are_refused() {
    // Same table, same first key, different order: the fingerprint differs.
    let other = token::encode(
        TopScore::FINGERPRINT,
        Direction::After,
        &NewestCursor { created_at: seed::timestamp(1), id: 1 },
    )
    .unwrap();
    assert_eq!(cursor_error(&other), CursorError::ForeignSortOrder);
    let prev = token::encode(
        Newest::FINGERPRINT,
        Direction::Before,
        &NewestCursor { created_at: seed::timestamp(1), id: 1 },
    )
    .unwrap();
    assert_eq!(
        cursor_error(&prev),
        CursorError::WrongDirection { expected: Direction::After, found: Direction::Before }
    );
    assert!(paginate_error(PageRequest::before(valid_token(), 5)).is_client_error());
}

#[test]
fn values_of_the_wrong_type_are_refused() {
    // Right header, but the values are a string where a timestamp and an id should be.
    let wrong = token::encode(
        Newest::FINGERPRINT,
        Direction::After,
        &(String::from("2020-13-45"), String::from("x")),
    )
    .unwrap();
    assert!(matches!(cursor_error(&wrong), CursorError::InvalidValues(_)));
}

#[test]
fn zero_limit_is_a_request_error() {
    let err = paginate_error(PageRequest::first(0));
    assert!(matches!(err, Error::Request(keyset_runtime::RequestError::ZeroLimit)), "{err:?}");
    assert!(err.is_client_error());
}

/// A small deterministic generator, so that the no-panic sweep is reproducible.
fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// Arbitrary strings and single-byte mutations of a valid token: every one decodes to a typed
/// error or to a cursor, and none panics. (The fuzz target goes further; this runs every time.)
#[test]
fn arbitrary_and_mutated_tokens_never_panic() {
    let mut state = 0x2545_f491_4f6c_dd1d;
    let valid = URL_SAFE_NO_PAD.decode(valid_token()).unwrap();
    let mut refused = 0;
    for _ in 0..20_000 {
        let len = (xorshift(&mut state) % 64) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| xorshift(&mut state) as u8).collect();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        refused += token::decode::<NewestCursor>(Newest::FINGERPRINT, Direction::After, &text)
            .is_err() as usize;

        let mut mutated = valid.clone();
        let at = (xorshift(&mut state) as usize) % mutated.len();
        mutated[at] ^= 1 << (xorshift(&mut state) % 8);
        let _ =
            token::decode::<NewestCursor>(Newest::FINGERPRINT, Direction::After, &raw(&mutated));
    }
    assert!(refused > 19_000, "random strings are refused ({refused} of 20000)");
}
