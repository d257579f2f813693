//! The edges of a listing, where a careless server or a hostile client would find the invariants
//! broken: a page emptied under its cursor still leads back, a row whose keys are too long for a
//! token is the server's error (not a 400 for a token the client never sent), and a page number
//! whose OFFSET does not fit is refused, never served as the first page.

use diesel::prelude::*;
use keyset_runtime::{CursorError, Error, Keyset, PageQuery, PageRequest, Paginate, RequestError};
use keyset_tests::models::{
    Newest, NewestIdAsc, RankDescNullsLast, TitleShortTokens, SHORT_TOKEN_TITLE_BYTES,
};
use keyset_tests::schema::posts;
use keyset_tests::walk::{self, cursors};

use super::db;
use crate::Conn;

/// Rows of 30 posts, walked in pages of 10: the second page is `all[10..20]`.
const ROWS: i64 = 30;

fn delete(conn: &mut Conn, ids: Vec<i64>) {
    diesel::delete(posts::table.filter(posts::id.eq_any(ids))).execute(conn).expect("delete");
}

/// Deletes every row after the second page, then loads the page after it: empty, with no
/// `next_cursor`, and a `prev_cursor` that leads back to the second page and on to the first.
/// The mirror image from the end: every row before the second page from the end deleted, the page
/// before it is empty, and its `next_cursor` leads forward over what is left.
fn emptied_pages_lead_back<Q>(query: impl Fn() -> Q, id: fn(&Q::Model) -> i64)
where
    Q: PageQuery<'static, Conn, Item = <Q as keyset_runtime::Paginate>::Model>,
    <Q::Model as Keyset>::Cursor: std::fmt::Debug + PartialEq,
{
    let mut conn = db::seeded(ROWS);
    let all = walk::forward(&mut conn, 100, &query);
    let first = walk::page(&mut conn, &query, &PageRequest::first(10));
    let second = walk::page(&mut conn, &query, &PageRequest::after(first.next_cursor.unwrap(), 10));
    delete(&mut conn, all[20..].iter().map(id).collect());
    let empty = walk::page(&mut conn, &query, &PageRequest::after(second.next_cursor.unwrap(), 10));
    assert!(empty.items.is_empty() && empty.next_cursor.is_none(), "nothing lies ahead");
    let back = empty.prev_cursor.expect("an empty page after a cursor leads back");
    let back = walk::page(&mut conn, &query, &PageRequest::before(back, 10));
    assert_eq!(cursors(&back.items), cursors(&all[10..20]), "the way back is the rows before");
    assert!(back.next_cursor.is_none(), "and nothing lies past them");
    let start = walk::page(&mut conn, &query, &PageRequest::before(back.prev_cursor.unwrap(), 10));
    assert_eq!(cursors(&start.items), cursors(&all[..10]));
    assert!(start.prev_cursor.is_none());

    let mut conn = db::seeded(ROWS);
    let last = walk::page(&mut conn, &query, &PageRequest::last(10));
    let second = walk::page(&mut conn, &query, &PageRequest::before(last.prev_cursor.unwrap(), 10));
    assert_eq!(cursors(&second.items), cursors(&all[10..20]));
    delete(&mut conn, all[..10].iter().map(id).collect());
    let empty =
        walk::page(&mut conn, &query, &PageRequest::before(second.prev_cursor.unwrap(), 10));
    assert!(empty.items.is_empty() && empty.prev_cursor.is_none(), "nothing lies behind");
    let on = empty.next_cursor.expect("an empty page before a cursor leads forward");
    let on = walk::page(&mut conn, &query, &PageRequest::after(on, 10));
    assert_eq!(cursors(&on.items), cursors(&all[10..20]), "the way on is the rows after");
    assert!(on.prev_cursor.is_none(), "and nothing lies before them");
}

/// One model per fetch strategy: one seek per tie level on SQLite (uniform), the OR expansion
/// (mixed directions), two seeks at the NULL boundary (a nullable leading key).
#[test]
fn an_emptied_page_leads_back_to_the_rows_behind_it() {
    emptied_pages_lead_back(|| posts::table.select(Newest::as_select()), |row| row.id);
    emptied_pages_lead_back(|| posts::table.select(NewestIdAsc::as_select()), |row| row.id);
    emptied_pages_lead_back(|| posts::table.select(RankDescNullsLast::as_select()), |row| row.id);
}

#[test]
fn a_page_number_past_the_end_is_empty_and_leads_back_to_the_last_page() {
    let mut conn = db::seeded(ROWS);
    let query = || posts::table.select(Newest::as_select());
    let all = walk::forward(&mut conn, 100, query);
    let past = walk::page(&mut conn, &query, &PageRequest::page_number(5, 10));
    assert!(past.items.is_empty() && past.next_cursor.is_none());
    let back = walk::page(&mut conn, &query, &PageRequest::before(past.prev_cursor.unwrap(), 10));
    assert_eq!(cursors(&back.items), cursors(&all[20..]));
}

#[test]
fn a_page_number_whose_offset_does_not_fit_is_refused_not_served_as_the_first_page() {
    let mut conn = db::seeded(ROWS);
    let query = || posts::table.select(Newest::as_select());
    let request = PageRequest::page_number(u32::MAX, u32::MAX);
    let refused = query().paginate(&request).unwrap().max_limit(u32::MAX).load_page(&mut conn);
    match refused {
        Err(error @ Error::Request(RequestError::PageNumberTooLarge { number, limit })) => {
            assert_eq!((number, limit), (u32::MAX, u32::MAX));
            assert!(error.is_client_error());
        }
        other => {
            panic!("expected PageNumberTooLarge, got {:?}", other.map(|page| page.items.len()))
        }
    }
    // Clamped to the default maximum of 100 rows, the same page number's OFFSET fits: it lies
    // past the end.
    let clamped = walk::page(&mut conn, &query, &PageRequest::page_number(u32::MAX, 100));
    assert!(clamped.items.is_empty() && clamped.next_cursor.is_none());
    let largest = query().paginate(&request).unwrap().load_page(&mut conn).unwrap();
    assert!(largest.items.is_empty(), "page 4294967295 of 100 rows lies past the end");
}

fn insert_titled(conn: &mut Conn, id: i64, title: &str) {
    let mut post = keyset_tests::seed::post(id);
    post.title = title.to_owned();
    diesel::insert_into(posts::table).values(&post).execute(conn).expect("insert post");
}

#[test]
fn a_key_too_long_for_a_token_is_the_servers_error_naming_the_key() {
    let mut conn = db::seeded(ROWS);
    // Sorts right after "post 00010", and is one byte too long for the listing's tokens.
    let long = format!("post 00010{}", "x".repeat(SHORT_TOKEN_TITLE_BYTES + 1 - 10));
    insert_titled(&mut conn, 1000, &long);
    let query = || posts::table.select(TitleShortTokens::as_select());
    let load = |conn: &mut Conn, request| query().paginate(&request).unwrap().load_page(conn);

    // The long title is the last row of the page, so its next_cursor cannot be issued.
    let error = load(&mut conn, PageRequest::first(11)).expect_err("no token holds the title");
    assert!(!error.is_client_error(), "the client sent nothing wrong: {error}");
    match &error {
        Error::KeysTooLong { model, key, key_len, len, max } => {
            assert_eq!((*model, *key, *max), (TitleShortTokens::SORT_ORDER, "title", 64));
            assert_eq!(*key_len, SHORT_TOKEN_TITLE_BYTES + 2, "its length prefix and its bytes");
            assert!(*len > 64);
        }
        other => panic!("expected KeysTooLong, got {other:?}"),
    }
    assert!(error.to_string().contains("`title`"), "{error}");
    // As the first row of a page after a cursor, its prev_cursor cannot be issued either.
    let page = load(&mut conn, PageRequest::first(10)).unwrap();
    let after = load(&mut conn, PageRequest::after(page.next_cursor.unwrap(), 5));
    assert!(matches!(after, Err(Error::KeysTooLong { .. })), "{:?}", after.map(|p| p.items));
    // Inside a page it needs no token, and the page loads.
    let around = load(&mut conn, PageRequest::first(12)).unwrap();
    assert_eq!(around.items[10].title, long);
    // A title that just fits travels, and pages on.
    diesel::delete(posts::table.filter(posts::id.eq(1000))).execute(&mut conn).unwrap();
    insert_titled(&mut conn, 1000, &long[..SHORT_TOKEN_TITLE_BYTES]);
    let fits = load(&mut conn, PageRequest::first(11)).unwrap();
    let token = fits.next_cursor.unwrap();
    assert!(token.len() <= TitleShortTokens::MAX_TOKEN_LEN, "{}", token.len());
    let next = load(&mut conn, PageRequest::after(token, 1)).unwrap();
    assert_eq!(next.items[0].title, "post 00011");
    // A token longer than the listing accepts is the client's: refused unread.
    let sent = query().paginate(&PageRequest::after("A".repeat(65), 5)).err().unwrap();
    assert!(matches!(sent, Error::Cursor(CursorError::TooLong { len: 65, max: 64 })), "{sent}");
    assert!(sent.is_client_error());
}
