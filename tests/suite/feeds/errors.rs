//! The sets a feed refuses, and how: more values than the listing pages among is
//! [`RequestError::SetTooLarge`], and a value the database cannot bind (text with a NUL
//! character, on PostgreSQL) is [`RequestError::SetValue`]: the client's errors (400), before any
//! statement runs, not a database error. Where the engine binds the value, the feed pages it.

use diesel::prelude::*;
use keyset_runtime::migration::Backend;
use keyset_runtime::{Error, PageRequest, Paginate, RequestError};
use keyset_tests::models::Newest;
use keyset_tests::schema::posts;

use super::{feed, ids, naive, recorded};
use crate::suite::db;
use crate::suite::orders_plan::backend;

/// The refusal `refused` must be: `SetTooLarge { len, max }`, the client's.
fn assert_too_large(refused: &Error, len: usize, max: usize) {
    assert!(
        matches!(refused, Error::Request(RequestError::SetTooLarge { len: Some(l), max: m }) if *l == len && *m == max),
        "{refused:?}"
    );
    assert!(refused.is_client_error(), "{refused:?}");
    assert!(refused.to_string().contains(&format!("{len} values")), "{refused}");
}

#[test]
fn a_set_beyond_its_bound_is_the_clients_error_before_any_query() {
    let mut conn = db::seeded(60);
    let too_many: Vec<i64> = (0..1_001).collect();
    for request in [PageRequest::first(5), PageRequest::last(5), PageRequest::page_number(2, 5)] {
        let (refused, ran) = recorded(&mut conn, |conn| feed(conn, &too_many, &request));
        assert_too_large(&refused.unwrap_err(), 1_001, 1_000);
        assert_eq!(ran, Vec::<String>::new(), "no statement ran for {request:?}");
    }
    // Past a cursor too: the token is read first, then the set refused.
    let first = feed(&mut conn, &[1, 2], &PageRequest::first(2)).unwrap();
    let after = PageRequest::after(first.next_cursor.unwrap(), 2);
    let (refused, ran) = recorded(&mut conn, |conn| feed(conn, &too_many, &after));
    assert_too_large(&refused.unwrap_err(), 1_001, 1_000);
    assert_eq!(ran, Vec::<String>::new());
    // A bound of the listing's own, lowered or raised (up to `PageRequest::MAX_SET`).
    let page = |conn: &mut crate::Conn, authors: Vec<i64>, max: usize| {
        posts::table
            .select(Newest::as_select())
            .among(posts::author_id, authors)
            .max_set(max)
            .paginate(&PageRequest::first(5))
            .unwrap()
            .load_page(conn)
    };
    assert_too_large(&page(&mut conn, vec![1, 2, 3], 2).unwrap_err(), 3, 2);
    assert_eq!(ids(&page(&mut conn, vec![1, 2], 2).unwrap()), naive(&mut conn, &[1, 2])[..5]);
    assert_too_large(&page(&mut conn, vec![4], 0).unwrap_err(), 1, 0);
    assert!(page(&mut conn, Vec::new(), 0).unwrap().items.is_empty());
    let raised = page(&mut conn, too_many.clone(), 1_500).unwrap();
    assert_eq!(ids(&raised), naive(&mut conn, &[1, 2, 3, 4, 5])[..5]);
    let beyond: Vec<i64> = (0..=PageRequest::MAX_SET as i64).collect();
    let refused = page(&mut conn, beyond, usize::MAX).unwrap_err();
    assert_too_large(&refused, PageRequest::MAX_SET + 1, PageRequest::MAX_SET);
}

/// The count among a set runs the same `IN (..)` a page would fall back to, over as many values:
/// a set beyond the bound is refused there too, and (on PostgreSQL) a value the database cannot
/// bind, before any statement, as the client's errors.
#[test]
fn a_count_among_a_set_beyond_its_bound_is_refused_too() {
    let mut conn = db::seeded(10);
    let paginated = posts::table
        .select(Newest::as_select())
        .among(posts::author_id, [1, 2, 3])
        .max_set(2)
        .paginate(&PageRequest::first(5))
        .unwrap();
    let (counted, ran) = recorded(&mut conn, |conn| paginated.total_count(conn));
    assert_too_large(&counted.unwrap_err(), 3, 2);
    assert_eq!(ran, Vec::<String>::new(), "no statement ran");
    let tags = posts::table
        .select(Newest::as_select())
        .among(posts::tag, vec!["apple".to_owned(), "a\0b".to_owned()])
        .paginate(&PageRequest::first(5))
        .unwrap();
    let (counted, ran) = recorded(&mut conn, |conn| tags.total_count(conn));
    if backend() == Backend::Postgres {
        let refused = counted.unwrap_err();
        assert!(
            matches!(&refused, Error::Request(RequestError::SetValue { index: 1, .. })),
            "{refused:?}"
        );
        assert_eq!(ran, Vec::<String>::new(), "no statement ran");
    } else {
        let naive: i64 = posts::table
            .filter(posts::tag.eq_any(["apple", "a\0b"]))
            .count()
            .get_result(&mut conn)
            .unwrap();
        assert!(naive > 0);
        assert_eq!(counted.unwrap(), naive);
    }
}

/// Text with a NUL character: PostgreSQL's text cannot hold it, so the set is refused there,
/// naming the value, as the client's error (not the server's `invalid byte sequence`). SQLite and
/// MariaDB bind it, and the feed pages among the set as the naive listing does.
#[test]
fn a_text_value_the_database_cannot_bind_is_the_clients_error() {
    let mut conn = db::seeded(60);
    let tags = vec!["apple".to_owned(), "a\0b".to_owned(), "ß".to_owned()];
    let page = |conn: &mut crate::Conn, request: &PageRequest| {
        posts::table
            .select(Newest::as_select())
            .among(posts::tag, tags.clone())
            .paginate(request)
            .unwrap()
            .load_page(conn)
    };
    let (loaded, ran) = recorded(&mut conn, |conn| page(conn, &PageRequest::first(100)));
    if backend() == Backend::Postgres {
        let refused = loaded.unwrap_err();
        let Error::Request(RequestError::SetValue { index, reason }) = &refused else {
            panic!("{refused:?}");
        };
        assert_eq!(*index, 1, "{reason}");
        assert!(reason.contains("NUL"), "{reason}");
        assert!(refused.is_client_error());
        assert_eq!(ran, Vec::<String>::new(), "no statement ran");
        // Without the value, the set pages.
        let bindable = vec!["apple".to_owned(), "ß".to_owned()];
        let page = posts::table
            .select(Newest::as_select())
            .among(posts::tag, bindable.clone())
            .paginate(&PageRequest::first(100))
            .unwrap()
            .load_page(&mut conn)
            .unwrap();
        assert_eq!(ids(&page), by_tag(&mut conn, &bindable));
    } else {
        assert_eq!(ids(&loaded.unwrap()), by_tag(&mut conn, &tags));
    }
}

/// The naive listing among tags.
fn by_tag(conn: &mut crate::Conn, tags: &[String]) -> Vec<i64> {
    let ids: Vec<i64> = posts::table
        .filter(posts::tag.eq_any(tags))
        .order((posts::created_at.desc(), posts::id.desc()))
        .select(posts::id)
        .load(conn)
        .unwrap();
    assert!(!ids.is_empty(), "the seed has posts with these tags");
    ids
}
