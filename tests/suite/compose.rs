//! The keyset filter composes with the query it is given: user filters (ANDed, never replaced),
//! joins, and boxed queries.

use diesel::prelude::*;
use keyset_runtime::{Keyset, PageRequest, Paginate};
use keyset_tests::models::{Newest, TopScore};
use keyset_tests::schema::{authors, posts};
use keyset_tests::walk::{self, cursors};

use super::db;
use crate::Conn;

fn seeded() -> Conn {
    db::seeded(300)
}

#[test]
fn user_filter_is_kept_on_every_page() {
    let mut conn = seeded();
    let expected = posts::table
        .filter(posts::author_id.eq(3))
        .order((posts::created_at.desc(), posts::id.desc()))
        .select(Newest::as_select())
        .load(&mut conn)
        .unwrap();
    assert!(expected.len() > 20 && expected.len() < 300);
    let query = || posts::table.filter(posts::author_id.eq(3)).select(Newest::as_select());
    assert_eq!(cursors(&walk::forward(&mut conn, 7, query)), cursors(&expected));
    assert_eq!(cursors(&walk::backward(&mut conn, 7, query)), cursors(&expected));
}

/// A token taken from one tenant's listing, replayed against another's, still only returns the
/// other tenant's rows: the keyset filter narrows the user's filter, it never replaces it.
#[test]
fn cursor_from_another_tenant_cannot_widen_the_filter() {
    let mut conn = seeded();
    let query = |author: i64| {
        posts::table.filter(posts::author_id.eq(author)).select(TopScore::as_select())
    };
    let tenant_one = walk::page(&mut conn, &|| query(1), &PageRequest::first(5));
    let token = tenant_one.next_cursor.unwrap();
    let replayed = walk::page(&mut conn, &|| query(2), &PageRequest::after(token, 50));
    assert!(!replayed.items.is_empty());
    let authors: Vec<i64> = replayed
        .items
        .iter()
        .map(|row| posts::table.find(row.id).select(posts::author_id).first(&mut conn).unwrap())
        .collect();
    assert!(authors.iter().all(|&author| author == 2), "rows of another tenant: {authors:?}");
}

#[test]
fn existing_order_by_is_replaced_by_the_keyset_order() {
    let mut conn = seeded();
    let expected = posts::table
        .order((posts::created_at.desc(), posts::id.desc()))
        .select(Newest::as_select())
        .load(&mut conn)
        .unwrap();
    let query = || posts::table.order(posts::title.asc()).select(Newest::as_select());
    assert_eq!(cursors(&walk::forward(&mut conn, 11, query)), cursors(&expected));
}

#[test]
fn joined_query_pages_the_model_and_keeps_the_join_filter() {
    let mut conn = seeded();
    let expected = posts::table
        .inner_join(authors::table)
        .filter(authors::name.ne("author 2"))
        .order((posts::created_at.desc(), posts::id.desc()))
        .select(Newest::as_select())
        .load(&mut conn)
        .unwrap();
    assert!(expected.len() > 100 && expected.len() < 300);
    let query = || {
        posts::table
            .inner_join(authors::table)
            .filter(authors::name.ne("author 2"))
            .select(Newest::as_select())
    };
    assert_eq!(cursors(&walk::forward(&mut conn, 9, query)), cursors(&expected));
    assert_eq!(cursors(&walk::backward(&mut conn, 9, query)), cursors(&expected));
}

#[test]
fn boxed_query_pages_like_the_unboxed_one() {
    let mut conn = seeded();
    let expected = posts::table
        .filter(posts::score.gt(0))
        .order((posts::score.asc(), posts::created_at.desc(), posts::id.asc()))
        .select(TopScore::as_select())
        .load(&mut conn)
        .unwrap();
    let query =
        || posts::table.filter(posts::score.gt(0)).select(TopScore::as_select()).into_boxed();
    assert_eq!(cursors(&walk::forward(&mut conn, 8, query)), cursors(&expected));
    assert_eq!(cursors(&walk::backward(&mut conn, 8, query)), cursors(&expected));
}

/// The building blocks are plain Diesel expressions: usable in a hand-built boxed, joined query.
#[test]
fn building_blocks_work_in_a_boxed_join() {
    let mut conn = seeded();
    let all = posts::table
        .order((posts::created_at.desc(), posts::id.desc()))
        .select(Newest::as_select())
        .load(&mut conn)
        .unwrap();
    let cursor = all[40].cursor();
    let rows = posts::table
        .inner_join(authors::table)
        .select(Newest::as_select())
        .filter(Newest::after(&cursor))
        .order(Newest::order_by())
        .limit(10)
        .into_boxed()
        .load(&mut conn)
        .unwrap();
    assert_eq!(rows, all[41..51]);
    let before = posts::table
        .select(Newest::as_select())
        .into_boxed()
        .filter(Newest::before(&cursor))
        .order(Newest::reverse_order_by())
        .limit(3)
        .load(&mut conn)
        .unwrap();
    assert_eq!(before, [all[39].clone(), all[38].clone(), all[37].clone()]);
}

#[test]
fn max_limit_clamps_large_requests() {
    let mut conn = seeded();
    let page = posts::table
        .select(Newest::as_select())
        .paginate(&PageRequest::first(10_000))
        .unwrap()
        .load_page(&mut conn)
        .unwrap();
    assert_eq!(page.items.len(), PageRequest::DEFAULT_MAX_LIMIT as usize);
    let page = posts::table
        .select(Newest::as_select())
        .paginate(&PageRequest::first(10_000))
        .unwrap()
        .max_limit(25)
        .load_page(&mut conn)
        .unwrap();
    assert_eq!(page.items.len(), 25);
    assert!(page.has_next());
}

/// A boxed query's own LIMIT is not in its type, so the page cannot refuse it at compile time (as
/// it does a plain query's): the page with a second LIMIT fails at the database, the server's
/// error, never a page of the query's own size passed off as this one.
#[test]
fn a_boxed_query_with_its_own_limit_fails_as_the_servers_error() {
    let mut conn = seeded();
    let query = posts::table.select(Newest::as_select()).limit(5).into_boxed();
    let error = query.paginate(&PageRequest::first(20)).unwrap().load_page(&mut conn).unwrap_err();
    assert!(matches!(error, keyset_runtime::Error::Database(_)), "{error:?}");
    assert!(!error.is_client_error());
}
