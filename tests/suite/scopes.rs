//! Tokens scoped per call (`PageRequest::scoped`): `/authors/:id/posts` shares its model with
//! every other listing of posts, and its tokens carry the author's id, so that a token of one
//! author's listing is refused by another author's and by the unscoped listing (and the other
//! way round), signed or not, while it pages on its own listing as before.

use diesel::prelude::*;
use keyset_runtime::{CursorError, Error, Page, PageRequest, Paginate, TokenKeys};
use keyset_tests::models::Newest;
use keyset_tests::schema::posts;

use super::db;
use crate::Conn;

/// `GET /authors/:author/posts`, its tokens scoped to the author.
fn posts_of(conn: &mut Conn, author: i64, request: PageRequest) -> Result<Page<Newest>, Error> {
    posts::table
        .filter(posts::author_id.eq(author))
        .select(Newest::as_select())
        .paginate(&request.scoped(&author))?
        .load_page(conn)
}

/// `GET /posts`, unscoped.
fn all_posts(conn: &mut Conn, request: PageRequest) -> Result<Page<Newest>, Error> {
    posts::table.select(Newest::as_select()).paginate(&request)?.load_page(conn)
}

fn cursor_error(result: Result<Page<Newest>, Error>) -> CursorError {
    match result {
        Err(Error::Cursor(error)) => error,
        other => panic!("expected a cursor error, got {:?}", other.map(|page| page.items)),
    }
}

#[test]
fn a_token_pages_only_the_listing_it_was_issued_for() {
    let mut conn = db::seeded(60);
    let expected: Vec<Newest> = posts::table
        .filter(posts::author_id.eq(2))
        .order((posts::created_at.desc(), posts::id.desc()))
        .select(Newest::as_select())
        .load(&mut conn)
        .unwrap();
    let first = posts_of(&mut conn, 2, PageRequest::first(4)).unwrap();
    let token = first.next_cursor.clone().unwrap();

    // Author 2's own listing pages on from it.
    let next = posts_of(&mut conn, 2, PageRequest::after(token.clone(), 4)).unwrap();
    assert_eq!([first.items, next.items].concat(), expected[..8]);
    let back = posts_of(&mut conn, 2, PageRequest::before(next.prev_cursor.unwrap(), 4));
    assert_eq!(back.unwrap().items, expected[..4]);

    // Author 3's listing and the unscoped one refuse it, before any query: 400.
    let refused = cursor_error(posts_of(&mut conn, 3, PageRequest::after(token.clone(), 4)));
    assert_eq!(refused, CursorError::OtherScope);
    assert!(refused.to_string().contains("start again from the first page"), "{refused}");
    assert!(Error::from(refused).is_client_error());
    let unscoped = cursor_error(all_posts(&mut conn, PageRequest::after(token, 4)));
    assert_eq!(unscoped, CursorError::OtherScope);

    // And the other way round: the unscoped listing's tokens page it alone.
    let everyone = all_posts(&mut conn, PageRequest::first(4)).unwrap().next_cursor.unwrap();
    assert!(all_posts(&mut conn, PageRequest::after(everyone.clone(), 4)).is_ok());
    let refused = cursor_error(posts_of(&mut conn, 2, PageRequest::after(everyone, 4)));
    assert_eq!(refused, CursorError::OtherScope);
}

#[test]
fn a_signed_token_keeps_its_scope() {
    let mut conn = db::seeded(60);
    let keys = TokenKeys::new(*b"scope suite's key, 32 bytes long").unwrap();
    let mut signed = |author: i64, request: PageRequest| {
        posts::table
            .filter(posts::author_id.eq(author))
            .select(Newest::as_select())
            .paginate_signed(&request.scoped(&author), &keys)?
            .load_page(&mut conn)
    };
    let token = signed(2, PageRequest::first(4)).unwrap().next_cursor.unwrap();
    assert_eq!(signed(2, PageRequest::after(token.clone(), 4)).unwrap().items.len(), 4);
    assert_eq!(cursor_error(signed(3, PageRequest::after(token, 4))), CursorError::OtherScope);
}
