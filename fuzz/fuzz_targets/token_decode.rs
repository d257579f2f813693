//! Decodes arbitrary input as a cursor token, with the token codec the pages use (its raw
//! functions reached through `keyset_runtime::__testing::token`, as the test suite does), for
//! cursor types of the shapes sort keys have (integers, timestamps, text, NULLs, bytes), plain
//! and signed. Any panic, any out-of-bounds access, any allocation over libFuzzer's limit is a
//! finding; every refusal must be a `CursorError`.
//!
//! The first byte chooses how the rest is read: as the token text itself, or as the values
//! behind a valid header (so that the fuzzer reaches the value decoder without first having to
//! guess a fingerprint).
//!
//! Every token also pages a derived model on an in-memory SQLite database, after and before:
//! a token that decodes must also bind, so the only outcomes are a page or a client error
//! (`Error::is_client_error`), never a database error.

#![no_main]

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use chrono::NaiveDateTime;
use keyset_runtime::__testing::token::{self, SIGNED, VERSION};
use keyset_runtime::token::CursorValue;
use keyset_runtime::{CursorError, Direction, TokenKeys};
use diesel::prelude::*;
use keyset_runtime::{Keyset, PageRequest, Paginate};
use libfuzzer_sys::fuzz_target;

diesel::table! {
    posts (id) {
        id -> BigInt,
        created_at -> Timestamp,
        title -> Text,
    }
}

/// Newest first, ties by title, then id.
#[derive(Queryable, Selectable, Keyset)]
struct Post {
    #[sort(desc)]
    created_at: NaiveDateTime,
    #[sort(asc)]
    title: String,
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
}

thread_local! {
    static CONN: std::cell::RefCell<SqliteConnection> = std::cell::RefCell::new({
        let mut conn = SqliteConnection::establish(":memory:").expect("in-memory SQLite");
        diesel::sql_query(
            "CREATE TABLE posts (id BIGINT PRIMARY KEY NOT NULL, created_at TIMESTAMP NOT NULL, \
             title TEXT NOT NULL)",
        )
        .execute(&mut conn)
        .expect("create posts");
        diesel::sql_query(
            "INSERT INTO posts VALUES (1, '2024-01-01 00:00:00', 'a'), \
             (2, '2024-01-01 00:00:00', 'b'), (3, '2024-01-02 00:00:00', 'a')",
        )
        .execute(&mut conn)
        .expect("seed posts");
        conn
    });
}

/// Pages `text` after and before: a page, or the client's error.
fn page(text: &str) {
    CONN.with_borrow_mut(|conn| {
        for request in [PageRequest::after(text, 2), PageRequest::before(text, 2)] {
            let page = posts::table
                .select(Post::as_select())
                .paginate(&request)
                .and_then(|paginated| paginated.load_page(conn));
            if let Err(error) = page {
                assert!(error.is_client_error(), "a token made a server error: {error}");
            }
        }
    });
}

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
    let text = match mode % 4 {
        0 => String::from_utf8_lossy(rest).into_owned(),
        mode => {
            // The model's own header, so that its values reach the binds.
            let fingerprint = if mode == 3 { Post::FINGERPRINT } else { FINGERPRINT };
            let mut bytes = vec![if mode == 2 { VERSION | SIGNED } else { VERSION }];
            bytes.extend_from_slice(&fingerprint.to_le_bytes());
            bytes.push(0);
            bytes.extend_from_slice(rest);
            URL_SAFE_NO_PAD.encode(&bytes)
        }
    };
    decode_all(&text);
    page(&text);
});
