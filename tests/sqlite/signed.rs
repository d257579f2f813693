//! Signed and encrypted tokens (features `signed`, `encrypted`): pages walk as with unsigned
//! tokens; a modified, forged or unsigned token is refused; a rotated-out key is accepted while it
//! is listed as previous.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use diesel::prelude::*;
use keyset_runtime::__testing::token::{self, ENCRYPTED, SIGNED, VERSION};
use keyset_runtime::{CursorError, Error, Keyset, Page, PageRequest, Paginate};
use keyset_runtime::{Direction, TokenKeys};
use keyset_tests::models::{Newest, NewestCursor, TopScore};
use keyset_tests::schema::posts;

use crate::{suite::db, Conn};

/// Test keys: 32 distinct bytes each (a key of one repeated byte is refused).
const OLD: [u8; 32] = *b"old test key, 32 bytes, not real";
const NEW: [u8; 32] = *b"new test key, 32 bytes, not real";

fn page(conn: &mut Conn, keys: &TokenKeys, request: &PageRequest) -> Result<Page<Newest>, Error> {
    posts::table.select(Newest::as_select()).paginate_signed(request, keys)?.load_page(conn)
}

fn refused(conn: &mut Conn, keys: &TokenKeys, request: &PageRequest) -> CursorError {
    match page(conn, keys, request) {
        Err(Error::Cursor(err)) => err,
        other => panic!("expected a cursor error, got {:?}", other.map(|page| page.items.len())),
    }
}

#[test]
fn signed_and_encrypted_walks_equal_the_order_and_carry_their_flag() {
    let mut conn = db::seeded(120);
    for (keys, flag) in
        [(TokenKeys::new(NEW).unwrap(), SIGNED), (TokenKeys::encrypting(NEW).unwrap(), ENCRYPTED)]
    {
        walk(&mut conn, &keys, VERSION | flag);
    }
}

fn walk(conn: &mut Conn, keys: &TokenKeys, version: u8) {
    let expected: Vec<Newest> = posts::table
        .order((posts::created_at.desc(), posts::id.desc()))
        .select(Newest::as_select())
        .load(conn)
        .unwrap();
    let (mut rows, mut request) = (Vec::new(), PageRequest::first(7));
    loop {
        let page = page(conn, keys, &request).unwrap();
        rows.extend(page.items);
        let Some(token) = page.next_cursor else { break };
        assert_eq!(URL_SAFE_NO_PAD.decode(&token).unwrap()[0], version);
        request = PageRequest::after(token, 7);
    }
    assert_eq!(rows, expected);
    let (mut pages, mut request) = (Vec::new(), PageRequest::last(9));
    loop {
        let page = page(conn, keys, &request).unwrap();
        let prev = page.prev_cursor.clone();
        pages.push(page.items);
        let Some(token) = prev else { break };
        request = PageRequest::before(token, 9);
    }
    assert_eq!(pages.into_iter().rev().flatten().collect::<Vec<_>>(), expected);
}

#[test]
fn modified_forged_and_unsigned_tokens_are_refused() {
    let mut conn = db::seeded(60);
    let keys = TokenKeys::new(NEW).unwrap();
    let first = page(&mut conn, &keys, &PageRequest::first(5)).unwrap();
    let token = first.next_cursor.unwrap();

    // The same token with the cursor's id changed: a client trying to jump elsewhere.
    let bytes = URL_SAFE_NO_PAD.decode(&token).unwrap();
    let mut edited = bytes.clone();
    let id_byte = edited.len() - 1 - token::SIGNATURE_LEN;
    edited[id_byte] ^= 0x01;
    let edited = URL_SAFE_NO_PAD.encode(edited);
    assert_eq!(
        refused(&mut conn, &keys, &PageRequest::after(edited, 5)),
        CursorError::BadSignature
    );

    // Signed under another key: forged.
    let cursor: NewestCursor = keys.decode(Newest::FINGERPRINT, Direction::After, &token).unwrap();
    let forged = TokenKeys::new(*b"a forger's key of 32 bytes, fake")
        .unwrap()
        .encode(Newest::FINGERPRINT, Direction::After, &cursor)
        .unwrap();
    assert_eq!(
        refused(&mut conn, &keys, &PageRequest::after(forged, 5)),
        CursorError::BadSignature
    );

    // Unsigned, where signatures are required; and signed, where they are not.
    let unsigned = token::encode(Newest::FINGERPRINT, Direction::After, &cursor).unwrap();
    assert_eq!(
        refused(&mut conn, &keys, &PageRequest::after(unsigned, 5)),
        CursorError::MissingSignature
    );
    let plain = posts::table
        .select(Newest::as_select())
        .paginate(&PageRequest::after(token.clone(), 5))
        .and_then(|paginated| paginated.load_page(&mut conn));
    assert!(matches!(plain, Err(Error::Cursor(CursorError::UnexpectedSignature))), "{plain:?}");

    // The signature does not replace the other checks: another order, another direction.
    let other = keys.encode(TopScore::FINGERPRINT, Direction::After, &cursor).unwrap();
    assert_eq!(
        refused(&mut conn, &keys, &PageRequest::after(other, 5)),
        CursorError::ForeignSortOrder
    );
    assert!(matches!(
        refused(&mut conn, &keys, &PageRequest::before(token, 5)),
        CursorError::WrongDirection { expected: Direction::Before, found: Direction::After }
    ));
}

#[test]
fn key_rotation_accepts_the_previous_key_until_it_is_dropped() {
    let mut conn = db::seeded(60);
    let before_rotation = TokenKeys::new(OLD).unwrap();
    let during = TokenKeys::new(NEW).unwrap().with_previous(OLD).unwrap();
    let after_rotation = TokenKeys::new(NEW).unwrap();

    let old_token =
        page(&mut conn, &before_rotation, &PageRequest::first(5)).unwrap().next_cursor.unwrap();
    let expected =
        page(&mut conn, &before_rotation, &PageRequest::after(old_token.clone(), 5)).unwrap();
    let rotated = page(&mut conn, &during, &PageRequest::after(old_token.clone(), 5)).unwrap();
    assert_eq!(rotated.items, expected.items);

    // Tokens issued during the rotation are signed with the new key alone.
    let new_token = rotated.next_cursor.unwrap();
    assert!(page(&mut conn, &after_rotation, &PageRequest::after(new_token.clone(), 5)).is_ok());
    assert_eq!(
        refused(&mut conn, &before_rotation, &PageRequest::after(new_token, 5)),
        CursorError::BadSignature
    );
    // Once the old key is dropped, its tokens are refused.
    assert_eq!(
        refused(&mut conn, &after_rotation, &PageRequest::after(old_token, 5)),
        CursorError::BadSignature
    );
}
