//! Pages among a set of values (`Paginate::among`): a feed of the posts of some authors. Each
//! walk, forward and back, at several page sizes, must return exactly the rows of the plain
//! `eq_any` listing in the order, whatever the set: empty, one value, several, repeated values,
//! values without rows.
//!
//! The rest of the claims, one file each: the shapes a feed pages in (nullable keys,
//! named orders, signed tokens, large sets: [`walks`]), beside a writer ([`writer`]), generated
//! tables and sets ([`props`]), the async path ([`asynchronous`]), the refused sets
//! ([`errors`]), and what a page reads, from the engines' plans of the statements it ran
//! ([`plan`], [`recorded`]).

use diesel::prelude::*;
use keyset_runtime::__testing::sql::union_branches;
use keyset_runtime::migration::Backend;
use keyset_runtime::{Error, Keyset, Page, PageRequest, Paginate, RequestError};
use keyset_tests::models::{Newest, NewestIdAsc};
use keyset_tests::schema::posts;

use super::db;
use crate::suite::orders_plan::backend;
use crate::Conn;

mod asynchronous;
mod errors;
pub(crate) mod plan;
mod props;
pub(crate) mod recorded;
pub mod walks;
mod writer;

/// More pages than any walk here needs: a walk that takes more is looping.
const MAX_PAGES: usize = 5_000;

/// The naive listing: what a feed must equal.
fn naive(conn: &mut Conn, authors: &[i64]) -> Vec<i64> {
    posts::table
        .filter(posts::author_id.eq_any(authors))
        .order((posts::created_at.desc(), posts::id.desc()))
        .select(posts::id)
        .load(conn)
        .unwrap()
}

/// One page of the feed of `authors`.
pub(crate) fn feed(
    conn: &mut Conn,
    authors: &[i64],
    request: &PageRequest,
) -> Result<Page<Newest>, Error> {
    posts::table
        .select(Newest::as_select())
        .among(posts::author_id, authors.to_vec())
        .paginate(request)?
        .load_page(conn)
}

fn ids(page: &Page<Newest>) -> Vec<i64> {
    page.items.iter().map(|post| post.id).collect()
}

/// Every row of a listing whose pages `load` loads, paged forward from the first page and
/// backward from the last in pages of `limit`, as cursors in the listing's order. On the way:
/// no page holds more than the limit, a page with a neighbour on the walk's side is full, and
/// only the walk's first page lacks a token back.
fn walk_both<M: Keyset>(
    limit: u32,
    mut load: impl FnMut(&PageRequest) -> Page<M>,
) -> (Vec<M::Cursor>, Vec<M::Cursor>) {
    let mut forward = Vec::new();
    let mut request = PageRequest::first(limit);
    for index in 0.. {
        assert!(index < MAX_PAGES, "the forward walk loops");
        let page = load(&request);
        assert!(page.items.len() <= limit as usize, "page {index} holds more than the limit");
        assert_eq!(page.has_prev(), index > 0, "prev_cursor of page {index}");
        if page.has_next() {
            assert_eq!(page.items.len(), limit as usize, "a page with a next page is full");
        }
        forward.extend(page.items.iter().map(M::cursor));
        match page.next_cursor {
            Some(token) => request = PageRequest::after(token, limit),
            None => break,
        }
    }
    let mut pages = Vec::new();
    let mut request = PageRequest::last(limit);
    for index in 0.. {
        assert!(index < MAX_PAGES, "the backward walk loops");
        let page = load(&request);
        assert!(page.items.len() <= limit as usize, "page {index} from the end: over the limit");
        assert_eq!(page.has_next(), index > 0, "next_cursor of page {index} from the end");
        if page.has_prev() {
            assert_eq!(page.items.len(), limit as usize, "a page with a previous page is full");
        }
        pages.push(page.items.iter().map(M::cursor).collect::<Vec<_>>());
        match page.prev_cursor {
            Some(token) => request = PageRequest::before(token, limit),
            None => break,
        }
    }
    (forward, pages.into_iter().rev().flatten().collect())
}

#[test]
fn a_feed_walks_exactly_the_rows_among_its_set_both_ways() {
    let mut conn = db::seeded(90);
    let sets: &[&[i64]] = &[&[], &[3], &[2, 4], &[1, 2, 3, 4, 5], &[5, 5, 1, 5], &[9, 40], &[4, 9]];
    for authors in sets {
        let expected = naive(&mut conn, authors);
        for limit in [1, 2, 5, 7, 50] {
            let (forward, backward) =
                walk_both(limit, |request| feed(&mut conn, authors, request).unwrap());
            let (forward, backward): (Vec<i64>, Vec<i64>) =
                (forward.iter().map(|c| c.id).collect(), backward.iter().map(|c| c.id).collect());
            assert_eq!(forward, expected, "forward, authors {authors:?}, limit {limit}");
            assert_eq!(backward, expected, "backward, authors {authors:?}, limit {limit}");
        }
    }
}

#[test]
fn a_feed_token_stays_valid_when_the_set_changes() {
    let mut conn = db::seeded(90);
    let first = feed(&mut conn, &[1, 2], &PageRequest::first(5)).unwrap();
    let last = first.items.last().unwrap().clone();
    // The user follows one more author: the next page is the new set's, after the same row.
    let next = feed(&mut conn, &[1, 2, 3], &PageRequest::after(first.next_cursor.unwrap(), 5));
    let expected: Vec<i64> = naive(&mut conn, &[1, 2, 3])
        .into_iter()
        .skip_while(|id| *id != last.id)
        .skip(1)
        .take(5)
        .collect();
    assert_eq!(ids(&next.unwrap()), expected);
}

#[test]
fn a_feed_in_mixed_directions_and_by_page_number() {
    let mut conn = db::seeded(90);
    let expected: Vec<i64> = posts::table
        .filter(posts::author_id.eq_any([2, 5]))
        .order((posts::created_at.desc(), posts::id.asc()))
        .select(posts::id)
        .load(&mut conn)
        .unwrap();
    let mut request = PageRequest::first(4);
    let mut walked = Vec::new();
    loop {
        let page = posts::table
            .select(NewestIdAsc::as_select())
            .among(posts::author_id, [2, 5])
            .paginate(&request)
            .unwrap()
            .load_page(&mut conn)
            .unwrap();
        walked.extend(page.items.iter().map(|post| post.id));
        match page.next_cursor {
            Some(token) => request = PageRequest::after(token, 4),
            None => break,
        }
    }
    assert_eq!(walked, expected);
    let third = posts::table
        .select(NewestIdAsc::as_select())
        .among(posts::author_id, [2, 5])
        .paginate(&PageRequest::page_number(3, 4))
        .unwrap()
        .load_page(&mut conn)
        .unwrap();
    assert_eq!(third.items.iter().map(|post| post.id).collect::<Vec<_>>(), expected[8..12]);
}

#[test]
fn a_feed_counts_and_composes_with_filters() {
    let mut conn = db::seeded(90);
    let paginated = posts::table
        .filter(posts::score.eq(1))
        .select(Newest::as_select())
        .among(posts::author_id, [1, 3])
        .paginate(&PageRequest::first(100))
        .unwrap();
    let expected: Vec<i64> = posts::table
        .filter(posts::score.eq(1))
        .filter(posts::author_id.eq_any([1, 3]))
        .order((posts::created_at.desc(), posts::id.desc()))
        .select(posts::id)
        .load(&mut conn)
        .unwrap();
    assert_eq!(paginated.total_count(&mut conn).unwrap(), expected.len() as i64);
    assert_eq!(ids(&paginated.load_page(&mut conn).unwrap()), expected);
}

/// Records the SQL of every statement the connection runs while `run` runs.
pub(crate) fn recorded<T>(conn: &mut Conn, run: impl FnOnce(&mut Conn) -> T) -> (T, Vec<String>) {
    use diesel::connection::{Instrumentation, InstrumentationEvent};
    use std::sync::{Arc, Mutex};
    let log = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&log);
    conn.set_instrumentation(move |event: InstrumentationEvent<'_>| {
        if let InstrumentationEvent::StartQuery { query, .. } = event {
            sink.lock().unwrap().push(query.to_string());
        }
    });
    let out = run(conn);
    conn.set_instrumentation(None::<Box<dyn Instrumentation>>);
    let log = log.lock().unwrap().clone();
    (out, log)
}

/// Whether `statement` is one of a feed's window (`sql/window.rs`): the window itself (its end
/// a subquery `LIMIT 1 OFFSET k`, or on MariaDB bound, the set's filter `COALESCE(..) IN`), or
/// on MariaDB the statement before it that reads where it ends (`LIMIT 1 OFFSET 511`).
pub fn is_window(statement: &str) -> bool {
    ["LIMIT 1 OFFSET", "COALESCE("].iter().any(|form| statement.contains(form))
}

/// The statements of a feed's window: on MariaDB, which does not bound an index range by the
/// window's subquery, the statement that reads its end and the window
/// (`SeekDialect::WINDOW`); elsewhere the window alone.
fn window_statements() -> usize {
    if backend() == Backend::Mysql {
        2
    } else {
        1
    }
}

#[test]
fn a_dense_feed_is_one_walk_of_the_window_a_sparse_one_seeks_once_per_value() {
    let mut conn = db::seeded(2400);
    // The sets are padded with authors who wrote nothing to the fewest values whose feed walks
    // a window (`SeekDialect::WINDOW_MIN_SET`): 128 on PostgreSQL, 64 elsewhere.
    let min_set = if backend() == Backend::Postgres { 128 } else { 64 };
    let padded =
        |set: &[i64]| -> Vec<i64> { set.iter().copied().chain(1000..).take(min_set).collect() };
    let windows =
        |statements: &[String]| statements.iter().filter(|statement| is_window(statement)).count();
    // Authors 1 to 3 wrote three posts in five: the window of 4 × (limit + 1 + |set|) rows, 276
    // (532 on PostgreSQL), holds about 165 of theirs, and fills a page of 4 (and the row past
    // it).
    let dense = padded(&[1, 2, 3]);
    let first = feed(&mut conn, &dense, &PageRequest::first(4)).unwrap();
    let after = PageRequest::after(first.next_cursor.unwrap(), 4);
    let (page, statements) = recorded(&mut conn, |conn| feed(conn, &dense, &after));
    assert_eq!(ids(&page.unwrap()).len(), 4);
    assert_eq!(statements.len(), window_statements(), "{statements:#?}");
    assert_eq!(windows(&statements), statements.len(), "{statements:#?}");
    assert!(statements.last().unwrap().contains(" IN ("), "{statements:#?}");

    // Twelve posts of author 1 (score 0, id up to 240), one in two hundred of all: the window,
    // 276 or 532 rows and the rest of its last tie group (timestamps repeat by the 185), holds
    // about 2 or 3 of them, short of a page of 4 and the row past it, and the page goes on past
    // its last row with one seek per value, in one statement per tie level on SQLite, else one.
    // (The window walks the order's index whatever the query's filters. On MariaDB, which
    // reads the window's end first, the filters leave out the table's row there (of another
    // score, or past id 240): the seeks follow that statement alone.)
    let sparse = padded(&[1, 41]);
    let page = |conn: &mut Conn, request: &PageRequest| {
        posts::table
            .filter(posts::score.eq(0).and(posts::id.le(240)))
            .select(Newest::as_select())
            .among(posts::author_id, sparse.clone())
            .paginate(request)
            .unwrap()
            .load_page(conn)
    };
    let first = page(&mut conn, &PageRequest::first(4)).unwrap();
    let after = PageRequest::after(first.next_cursor.clone().unwrap(), 4);
    let (loaded, statements) = recorded(&mut conn, |conn| page(conn, &after));
    let expected: Vec<i64> = posts::table
        .filter(posts::author_id.eq(1).and(posts::score.eq(0)).and(posts::id.le(240)))
        .order((posts::created_at.desc(), posts::id.desc()))
        .select(posts::id)
        .load(&mut conn)
        .unwrap();
    let at = expected.iter().position(|id| *id == first.items[3].id).unwrap();
    assert_eq!(ids(&loaded.unwrap()), expected[at + 1..at + 5]);
    let (window, seeks) = statements.split_at(windows(&statements));
    assert_eq!(window.len(), 1, "{statements:#?}");
    assert!(!seeks.is_empty(), "{statements:#?}");
    for statement in seeks {
        assert_seeks_once_per_value(statement, min_set);
    }

    // Two values: the seeks alone.
    let (_, statements) = recorded(&mut conn, |conn| feed(conn, &[1, 41], &after));
    assert_eq!(windows(&statements), 0, "{statements:#?}");
    for statement in &statements {
        assert_seeks_once_per_value(statement, 2);
    }
}

/// `statement` seeks once per value of a set of `values`: one `LATERAL` join over them bound as
/// one array (PostgreSQL), a union of one branch per value, each binding its own (MariaDB), or
/// SQLite's loop over the list, which its planner takes where the set's rows are said to be
/// rare (`likelihood(.. IN (..), ..)`: `PerValue::InLoop`; what it reads, `sqlite/feed_reads.rs`).
fn assert_seeks_once_per_value(statement: &str, values: usize) {
    if backend() == Backend::Sqlite {
        // The list padded as a union's branches are (`padded`).
        let list = vec!["+?"; union_branches(values)].join(", ");
        let filter = format!("likelihood(`posts`.`author_id` IN ({list}), 0.000001)");
        assert!(statement.contains(&filter), "{statement}");
        assert!(!statement.contains("UNION"), "{statement}");
        return;
    }
    let lateral = statement.contains("CROSS JOIN LATERAL");
    let union = statement.matches("UNION").count() == union_branches(values) - 1;
    assert!(lateral || union, "{statement}");
    // No list of values: the seeks bind one each (PostgreSQL, one array).
    let list = [" IN ($", " IN (?", " IN (+?"].iter().any(|list| statement.contains(list));
    assert!(!list, "{statement}");
}

/// The authors a subquery names: `id < 4`, authors 1 to 3.
fn first_authors() -> diesel::dsl::Select<
    diesel::dsl::Filter<
        keyset_tests::schema::authors::table,
        diesel::dsl::Lt<keyset_tests::schema::authors::id, i64>,
    >,
    keyset_tests::schema::authors::id,
> {
    use keyset_tests::schema::authors;
    authors::table.filter(authors::id.lt(4)).select(authors::id)
}

#[test]
fn a_feed_over_a_subquery_pages_counts_and_bounds_its_rows() {
    let mut conn = db::seeded(90);
    let expected = naive(&mut conn, &[1, 2, 3]);
    let query = || posts::table.select(Newest::as_select());
    let mut request = PageRequest::first(7);
    let mut walked = Vec::new();
    loop {
        let paginated =
            query().among_query(posts::author_id, first_authors()).paginate(&request).unwrap();
        if walked.is_empty() {
            assert_eq!(paginated.total_count(&mut conn).unwrap(), expected.len() as i64);
        }
        let page = paginated.load_page(&mut conn).unwrap();
        walked.extend(ids(&page));
        match page.next_cursor {
            Some(token) => request = PageRequest::after(token, 7),
            None => break,
        }
    }
    assert_eq!(walked, expected);

    // Three rows, one past a bound of two: refused, as a list of three would be.
    let refused = query()
        .among_query(posts::author_id, first_authors())
        .max_set(2)
        .paginate(&PageRequest::first(7))
        .unwrap()
        .load_page(&mut conn)
        .unwrap_err();
    assert!(
        matches!(refused, Error::Request(RequestError::SetTooLarge { len: None, max: 2 })),
        "{refused:?}"
    );
}

#[test]
fn a_feed_pages_the_same_on_the_async_path() {
    let rt = super::asynchronous::runtime();
    let mut sync = db::seeded(90);
    let mut conn = rt.block_on(super::asynchronous::seeded_async(90));
    let mut request = PageRequest::first(6);
    loop {
        let blocking = feed(&mut sync, &[2, 4], &request).unwrap();
        let awaited = rt
            .block_on(
                posts::table
                    .select(Newest::as_select())
                    .among(posts::author_id, vec![2, 4])
                    .paginate(&request)
                    .unwrap()
                    .load_page_async(&mut conn),
            )
            .unwrap();
        assert_eq!(awaited.items, blocking.items);
        assert_eq!(
            (&awaited.next_cursor, &awaited.prev_cursor),
            (&blocking.next_cursor, &blocking.prev_cursor)
        );
        let from_rows = rt
            .block_on(
                posts::table
                    .select(Newest::as_select())
                    .among_query(
                        posts::author_id,
                        keyset_tests::schema::authors::table
                            .filter(keyset_tests::schema::authors::id.eq_any([2_i64, 4]))
                            .select(keyset_tests::schema::authors::id),
                    )
                    .paginate(&request)
                    .unwrap()
                    .load_page_async(&mut conn),
            )
            .unwrap();
        assert_eq!(from_rows.items, blocking.items);
        match blocking.next_cursor {
            Some(token) => request = PageRequest::after(token, 6),
            None => break,
        }
    }
}
