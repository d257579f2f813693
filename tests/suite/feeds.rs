//! Pages among a set of values (`Paginated::among`): a feed of the posts of some authors. Each
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
use keyset_runtime::{Error, Keyset, Page, PageRequest, Paginate};
use keyset_tests::models::{Newest, NewestIdAsc};
use keyset_tests::schema::posts;

use super::db;
use crate::Conn;

mod asynchronous;
mod errors;
pub(crate) mod plan;
mod props;
pub(crate) mod recorded;
mod walks;
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
fn feed(conn: &mut Conn, authors: &[i64], request: &PageRequest) -> Result<Page<Newest>, Error> {
    posts::table
        .select(Newest::as_select())
        .paginate(request)?
        .among(posts::author_id, authors.to_vec())
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
            .paginate(&request)
            .unwrap()
            .among(posts::author_id, [2, 5])
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
        .paginate(&PageRequest::page_number(3, 4))
        .unwrap()
        .among(posts::author_id, [2, 5])
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
        .paginate(&PageRequest::first(100))
        .unwrap()
        .among(posts::author_id, [1, 3]);
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
fn recorded<T>(conn: &mut Conn, run: impl FnOnce(&mut Conn) -> T) -> (T, Vec<String>) {
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

#[test]
fn a_feed_page_seeks_once_per_value_in_one_statement() {
    let mut conn = db::seeded(90);
    let first = feed(&mut conn, &[1, 2, 3], &PageRequest::first(4)).unwrap();
    let after = PageRequest::after(first.next_cursor.unwrap(), 4);
    let (page, statements) = recorded(&mut conn, |conn| feed(conn, &[1, 2, 3], &after));
    assert_eq!(ids(&page.unwrap()).len(), 4);
    for statement in &statements {
        eprintln!("{statement}");
        let lateral = statement.contains("CROSS JOIN LATERAL");
        // Three values, padded to four branches: the union's terms.
        let union = statement.matches("UNION").count() == 3;
        assert!(lateral || union, "{statement}");
        assert!(!statement.contains(" IN ("), "{statement}");
    }
}
