//! Scoped requests against hand-written tokens: the scope's flag and hash in the format the token
//! module documents, tokens issued before scopes (unscoped) still read by unscoped requests, and a
//! token read only in its own scope, through `paginate` and `paginate_by` alike.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use diesel::prelude::*;
use diesel::sqlite::Sqlite;
use keyset_runtime::__testing::token::{self, scope_hash, SCOPED};
use keyset_runtime::{CursorError, Direction, Error, Keyset, PageRequest, Paginate};
use keyset_tests::models::{Newest, NewestCursor};
use keyset_tests::schema::posts;
use keyset_tests::seed::timestamp;

type Query = diesel::dsl::Select<posts::table, diesel::dsl::AsSelect<Newest, Sqlite>>;

fn query() -> Query {
    posts::table.select(Newest::as_select())
}

/// What the listing says of `request`: `None` when it is accepted (the page is only prepared).
fn refusal(request: &PageRequest) -> Option<CursorError> {
    match query().paginate(request) {
        Ok(_) => None,
        Err(Error::Cursor(error)) => Some(error),
        Err(other) => panic!("expected a cursor error, got {other}"),
    }
}

/// A token of today's format, unscoped: what every token issued before scopes is.
fn unscoped() -> String {
    let cursor = NewestCursor { created_at: timestamp(3), id: 17 };
    token::encode(Newest::FINGERPRINT, Direction::After, &cursor).unwrap()
}

/// The same token scoped to `scope`, written by hand: the flag in the direction byte, then the
/// hash, little-endian.
fn scoped_to(scope: i64) -> String {
    let mut bytes = URL_SAFE_NO_PAD.decode(unscoped()).unwrap();
    bytes[5] |= SCOPED;
    bytes.splice(6..6, scope_hash(&scope).to_le_bytes());
    URL_SAFE_NO_PAD.encode(bytes)
}

#[test]
fn tokens_read_only_in_their_own_scope() {
    let after = |token: String| PageRequest::after(token, 5);
    assert_eq!(refusal(&after(unscoped())), None, "tokens issued before scopes still page");
    assert_eq!(refusal(&after(scoped_to(7)).scoped(&7i64)), None);
    for (token, scope) in [(scoped_to(7), Some(8i64)), (scoped_to(7), None), (unscoped(), Some(7))]
    {
        let request = match scope {
            Some(scope) => after(token).scoped(&scope),
            None => after(token),
        };
        assert_eq!(refusal(&request), Some(CursorError::OtherScope), "{scope:?}");
    }
}

#[test]
fn a_scope_changes_the_request_and_the_last_one_given_counts() {
    assert_ne!(PageRequest::first(5).scoped(&7i64), PageRequest::first(5));
    assert_eq!(
        PageRequest::first(5).scoped(&8i64).scoped(&7i64),
        PageRequest::first(5).scoped(&7i64)
    );
    let request = PageRequest::after(scoped_to(7), 5).scoped(&8i64).scoped(&7i64);
    assert_eq!(refusal(&request), None);
}

#[test]
fn the_other_checks_come_first_and_still_apply() {
    // Another sort order: told as such, whatever the scope.
    let other = token::encode(token::fingerprint("posts: id DESC"), Direction::After, &(1i64,));
    let request = PageRequest::after(other.unwrap(), 5).scoped(&7i64);
    assert_eq!(refusal(&request), Some(CursorError::ForeignSortOrder));
    // The wrong direction, in the right scope.
    let request = PageRequest::before(scoped_to(7), 5).scoped(&7i64);
    assert!(matches!(refusal(&request), Some(CursorError::WrongDirection { .. })));
    // A scope cut short.
    let bytes = URL_SAFE_NO_PAD.decode(scoped_to(7)).unwrap();
    let request = PageRequest::after(URL_SAFE_NO_PAD.encode(&bytes[..8]), 5).scoped(&7i64);
    assert_eq!(refusal(&request), Some(CursorError::Truncated));
}
