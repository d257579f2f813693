//! Pages that start at values (`PageRequest::starting_at` and `starting_past`, `?from=` and
//! `?past=`; `Paginated::start_at` typed): every such page equals the same page cut from the
//! whole listing sorted here in Rust, at every depth of the order's keys, the equal rows kept or
//! not, in uniform, mixed-direction, text and nullable orders (starts among the values, at the
//! NULLs, and across the NULL boundary), and its tokens page on both ways; a start past the end
//! is an empty page whose `prev_cursor` is the last page. Refusals are typed. (A text key's start
//! is checked by the web example's `title` order, whose titles sort alike under every
//! collation: the oracle here sorts in Rust, in byte order.)

use std::cmp::Ordering;

use chrono::NaiveDateTime;
use diesel::prelude::*;
use keyset_runtime::{Error, Keyset, PageQuery, PageRequest, Paginate, RequestError};
use keyset_tests::models::{
    Newest, RankAscNullsFirst, RankDescNullsLast, RankDue, ScoreDue, TopScore,
};
use keyset_tests::order::{key, plain};
use keyset_tests::schema::posts;
use keyset_tests::walk::cursors;

use super::db;
use crate::Conn;

const ROWS: i64 = 120;
const LIMITS: [u32; 2] = [1, 7];

/// One key of an order: how two rows compare on it, and its value as a client writes it (`None`
/// for a NULL, which has no text form).
struct SortKey<M> {
    cmp: fn(&M, &M) -> Ordering,
    text: fn(&M) -> Option<String>,
}

/// How `a` and `b` compare on the first `depth` keys.
fn cmp_prefix<M>(keys: &[SortKey<M>], a: &M, b: &M, depth: usize) -> Ordering {
    keys[..depth].iter().fold(Ordering::Equal, |order, key| order.then((key.cmp)(a, b)))
}

fn time(at: &NaiveDateTime) -> String {
    at.format("%Y-%m-%dT%H:%M:%S%.f").to_string()
}

/// The rows of `query()` sorted by `keys` in Rust.
fn sorted<M, Q>(conn: &mut Conn, query: &impl Fn() -> Q, keys: &[SortKey<M>]) -> Vec<M>
where
    Q: diesel::query_dsl::LoadQuery<'static, Conn, M>,
{
    let mut rows: Vec<M> = query().load(conn).unwrap();
    rows.sort_by(|a, b| cmp_prefix(keys, a, b, keys.len()));
    rows
}

/// Starts at the values of sample rows, on every depth of `keys`, kept and not, for each limit:
/// each page is the sorted listing's slice from the first row at (or past) the values, and its
/// neighbours by token are the slices beside it.
fn check<M, Q>(query: impl Fn() -> Q, keys: &[SortKey<M>])
where
    M: Keyset,
    M::Cursor: std::fmt::Debug,
    Q: PageQuery<'static, Conn, Model = M, Item = M>,
    Q: diesel::query_dsl::LoadQuery<'static, Conn, M>,
{
    let mut conn = db::seeded(ROWS);
    let rows = sorted(&mut conn, &query, keys);
    let expected = cursors(&rows);
    let len = rows.len();
    let mut starts = 0;
    for probe in rows.iter().step_by(9).chain(rows.last()) {
        for depth in 1..=keys.len() {
            let texts: Option<Vec<String>> =
                keys[..depth].iter().map(|key| (key.text)(probe)).collect();
            let Some(texts) = texts else { continue };
            for inclusive in [true, false] {
                let at = rows
                    .iter()
                    .position(|row| match cmp_prefix(keys, row, probe, depth) {
                        Ordering::Less => false,
                        Ordering::Equal => inclusive,
                        Ordering::Greater => true,
                    })
                    .unwrap_or(len);
                for limit in LIMITS {
                    let what = format!("{texts:?}, inclusive {inclusive}, limit {limit}");
                    let request = match inclusive {
                        true => PageRequest::starting_at(texts.clone(), limit),
                        false => PageRequest::starting_past(texts.clone(), limit),
                    };
                    let page = query().paginate(&request).unwrap().allow_starts();
                    let page = page.load_page(&mut conn).unwrap_or_else(|e| panic!("{what}: {e}"));
                    let end = (at + limit as usize).min(len);
                    assert_eq!(cursors(&page.items), expected[at..end], "{what}");
                    assert_eq!(page.has_next(), end < len, "next of {what}");
                    let before = PageRequest::before(
                        page.prev_cursor.expect("a start has a prev_cursor"),
                        limit,
                    );
                    let prev = query().paginate(&before).unwrap().load_page(&mut conn).unwrap();
                    assert_eq!(
                        cursors(&prev.items),
                        expected[at.saturating_sub(limit as usize)..at],
                        "prev of {what}"
                    );
                    if let Some(next) = page.next_cursor {
                        let after = PageRequest::after(next, limit);
                        let next = query().paginate(&after).unwrap().load_page(&mut conn).unwrap();
                        let next_end = (end + limit as usize).min(len);
                        assert_eq!(cursors(&next.items), expected[end..next_end], "next of {what}");
                    }
                    starts += 1;
                }
            }
        }
    }
    assert!(starts > 40, "only {starts} starts checked");
}

#[test]
fn uniform_descending_order_starts_at_a_time_and_at_every_key() {
    check(
        || posts::table.select(Newest::as_select()),
        &[
            SortKey {
                cmp: |a: &Newest, b| plain(&a.created_at, &b.created_at, true),
                text: |r| Some(time(&r.created_at)),
            },
            SortKey { cmp: |a, b| plain(&a.id, &b.id, true), text: |r| Some(r.id.to_string()) },
        ],
    );
}

#[test]
fn mixed_directions_start_at_each_depth() {
    check(
        || posts::table.select(TopScore::as_select()),
        &[
            SortKey {
                cmp: |a: &TopScore, b| plain(&a.score, &b.score, false),
                text: |r| Some(r.score.to_string()),
            },
            SortKey {
                cmp: |a, b| plain(&a.created_at, &b.created_at, true),
                text: |r| Some(time(&r.created_at)),
            },
            SortKey { cmp: |a, b| plain(&a.id, &b.id, false), text: |r| Some(r.id.to_string()) },
        ],
    );
}

#[test]
fn a_nullable_leading_key_starts_among_its_values_and_reaches_its_nulls() {
    check(
        || posts::table.select(RankDescNullsLast::as_select()),
        &[
            SortKey {
                cmp: |a: &RankDescNullsLast, b| key(&a.rank, &b.rank, true, false),
                text: |r| r.rank.map(|v| v.to_string()),
            },
            SortKey { cmp: |a, b| plain(&a.id, &b.id, true), text: |r| Some(r.id.to_string()) },
        ],
    );
    check(
        || posts::table.select(RankAscNullsFirst::as_select()),
        &[
            SortKey {
                cmp: |a: &RankAscNullsFirst, b| key(&a.rank, &b.rank, false, true),
                text: |r| r.rank.map(|v| v.to_string()),
            },
            SortKey { cmp: |a, b| plain(&a.id, &b.id, true), text: |r| Some(r.id.to_string()) },
        ],
    );
}

#[test]
fn nullable_keys_behind_the_leading_one_start_where_they_have_values() {
    check(
        || posts::table.select(RankDue::as_select()),
        &[
            SortKey {
                cmp: |a: &RankDue, b| key(&a.rank, &b.rank, false, false),
                text: |r| r.rank.map(|v| v.to_string()),
            },
            SortKey {
                cmp: |a, b| key(&a.due, &b.due, true, true),
                text: |r| r.due.as_ref().map(time),
            },
            SortKey { cmp: |a, b| plain(&a.id, &b.id, false), text: |r| Some(r.id.to_string()) },
        ],
    );
    check(
        || posts::table.select(ScoreDue::as_select()),
        &[
            SortKey {
                cmp: |a: &ScoreDue, b| plain(&a.score, &b.score, true),
                text: |r| Some(r.score.to_string()),
            },
            SortKey {
                cmp: |a, b| key(&a.due, &b.due, false, false),
                text: |r| r.due.as_ref().map(time),
            },
            SortKey { cmp: |a, b| plain(&a.id, &b.id, true), text: |r| Some(r.id.to_string()) },
        ],
    );
}

/// A typed start of the leading key: a NULL starts at the NULLs (inclusive) or past them.
#[test]
fn typed_starts_take_the_leading_keys_type_null_included() {
    let mut conn = db::seeded(ROWS);
    let query = || posts::table.select(RankDescNullsLast::as_select());
    let keys = [
        SortKey {
            cmp: |a: &RankDescNullsLast, b| key(&a.rank, &b.rank, true, false),
            text: |_| None,
        },
        SortKey { cmp: |a, b| plain(&a.id, &b.id, true), text: |_| None },
    ];
    let rows = sorted(&mut conn, &query, &keys);
    let expected = cursors(&rows);
    let nulls =
        rows.iter().position(|row| row.rank.is_none()).expect("seeded rows have NULL ranks");
    let first = PageRequest::first(500);
    let page = |start: Option<i32>, inclusive: bool, conn: &mut Conn| {
        let paginated = query().paginate(&first).unwrap().max_limit(500);
        let paginated = match inclusive {
            true => paginated.start_at(start),
            false => paginated.start_past(start),
        };
        cursors(&paginated.unwrap().load_page(conn).unwrap().items)
    };
    assert_eq!(page(None, true, &mut conn), expected[nulls..]);
    assert!(
        page(None, false, &mut conn).is_empty(),
        "nothing lies past the NULLs when they are last"
    );
    let threes = rows.iter().position(|row| row.rank == Some(3)).unwrap();
    let twos = rows.iter().position(|row| row.rank == Some(2)).unwrap();
    assert_eq!(page(Some(3), true, &mut conn), expected[threes..]);
    assert_eq!(page(Some(3), false, &mut conn), expected[twos..]);

    // A request with a position of its own keeps it.
    let last = query().paginate(&PageRequest::last(2)).unwrap().start_at(Some(3)).unwrap();
    assert_eq!(cursors(&last.load_page(&mut conn).unwrap().items), expected[expected.len() - 2..]);
}

/// Past the end: an empty page, whose `prev_cursor` is the last page; before the start: the
/// first page.
#[test]
fn a_start_past_the_end_is_empty_and_leads_back_to_the_last_page() {
    let mut conn = db::seeded(ROWS);
    let query = || posts::table.select(Newest::as_select());
    let all: Vec<Newest> = query()
        .paginate(&PageRequest::first(500))
        .unwrap()
        .max_limit(500)
        .load_page(&mut conn)
        .unwrap()
        .items;
    let page = |request: PageRequest, conn: &mut Conn| {
        query().paginate(&request).unwrap().allow_starts().load_page(conn).unwrap()
    };
    let beyond = page(PageRequest::starting_at(["1900-01-01"], 5), &mut conn);
    assert!(beyond.items.is_empty() && !beyond.has_next());
    let last =
        PageRequest::before(beyond.prev_cursor.expect("an empty start has a prev_cursor"), 5);
    let last = query().paginate(&last).unwrap().load_page(&mut conn).unwrap();
    assert_eq!(cursors(&last.items), cursors(&all[all.len() - 5..]));
    let ahead = page(PageRequest::starting_at(["2999-01-01"], 5), &mut conn);
    assert_eq!(cursors(&ahead.items), cursors(&all[..5]));
}

#[test]
fn starts_are_refused_unless_allowed_and_well_formed() {
    let mut conn = db::seeded(10);
    let query = || posts::table.select(Newest::as_select());
    let refused = query()
        .paginate(&PageRequest::starting_at(["2024-03-01"], 5))
        .unwrap()
        .load_page(&mut conn);
    assert!(
        matches!(refused, Err(Error::Request(RequestError::StartRefused { signed: false }))),
        "{refused:?}"
    );
    for (values, name) in [
        (vec!["yesterday"], "from"),
        (vec!["2024-03-01", "seven"], "from"),
        (vec!["2024-03-01", "7", "8"], "from"),
    ] {
        let refused = query().paginate(&PageRequest::starting_at(values.clone(), 5)).err();
        match refused {
            Some(Error::Request(RequestError::InvalidParameter { name: got, .. })) => {
                assert_eq!(got, name)
            }
            other => panic!("{values:?}: {other:?}"),
        }
    }
    let refused =
        query().paginate(&PageRequest::starting_past(["2024-03-01", "x"], 5)).err().unwrap();
    assert!(refused.is_client_error() && refused.to_string().contains("`id`"), "{refused}");
}

/// A page around a row (`Paginated::at_row`) starts with it, its tokens paging both ways, in a
/// filtered listing, in a nullable order (rows with NULL keys included); a row the filters leave
/// out is `RowNotListed`, not a page that starts elsewhere.
#[test]
fn a_page_around_a_row_starts_with_it_and_refuses_rows_outside_the_listing() {
    fn around<M, Q>(conn: &mut Conn, query: impl Fn() -> Q, keys: &[SortKey<M>], outside: &M)
    where
        M: Keyset,
        M::Cursor: std::fmt::Debug,
        Q: PageQuery<'static, Conn, Model = M, Item = M>,
        Q: diesel::query_dsl::LoadQuery<'static, Conn, M>,
    {
        let rows = sorted(conn, &query, keys);
        let expected = cursors(&rows);
        let limit = 4;
        for (at, row) in rows.iter().enumerate().step_by(5) {
            let paginated = query().paginate(&PageRequest::first(limit)).unwrap().at_row(row);
            let page = paginated.load_page(conn).unwrap();
            let end = (at + limit as usize).min(rows.len());
            assert_eq!(cursors(&page.items), expected[at..end], "around row {at}");
            let before = PageRequest::before(page.prev_cursor.unwrap(), limit);
            let prev = query().paginate(&before).unwrap().load_page(conn).unwrap();
            assert_eq!(cursors(&prev.items), expected[at.saturating_sub(limit as usize)..at]);
        }
        let refused =
            query().paginate(&PageRequest::first(limit)).unwrap().at_row(outside).load_page(conn);
        assert!(
            matches!(refused, Err(Error::Request(RequestError::RowNotListed))),
            "{:?}",
            refused.err()
        );
    }
    let mut conn = db::seeded(ROWS);
    let of_author = |author: i64| {
        move || posts::table.filter(posts::author_id.eq(author)).select(Newest::as_select())
    };
    let outside: Newest = of_author(4)().first(&mut conn).unwrap();
    around(
        &mut conn,
        of_author(3),
        &[
            SortKey {
                cmp: |a: &Newest, b| plain(&a.created_at, &b.created_at, true),
                text: |_| None,
            },
            SortKey { cmp: |a, b| plain(&a.id, &b.id, true), text: |_| None },
        ],
        &outside,
    );
    let ranked = |author: i64| {
        move || {
            posts::table.filter(posts::author_id.eq(author)).select(RankAscNullsFirst::as_select())
        }
    };
    // Author 4's posts include NULL ranks (ids 3, 13, ..).
    let outside: RankAscNullsFirst = ranked(2)().first(&mut conn).unwrap();
    around(
        &mut conn,
        ranked(4),
        &[
            SortKey {
                cmp: |a: &RankAscNullsFirst, b| key(&a.rank, &b.rank, false, true),
                text: |_| None,
            },
            SortKey { cmp: |a, b| plain(&a.id, &b.id, true), text: |_| None },
        ],
        &outside,
    );
}
