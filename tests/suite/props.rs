//! Property tests: generated tables (heavy ties, `i64` extremes, microsecond timestamp ties,
//! unicode and collation-sensitive text, NULLs in both placements), random page sizes from 1 to
//! more than the table, and random walks that mix first, last, next and previous pages. Every
//! page must be exactly the slice of the oracle it stands for, with a cursor exactly where a
//! neighbouring page exists.
//!
//! The oracle never uses our ORDER BY: keys Rust can compare are sorted in Rust
//! ([`keyset_tests::order`]), text keys by a hand-written ORDER BY (the database's collation
//! decides what ties there).
//!
//! Cases per test: `PROPTEST_CASES`, else the suite's [`crate::PROPERTY_CASES`]. A failure
//! prints the shrunk table and walk.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::fmt::Debug;
use std::ops::Range;

use chrono::{DateTime, NaiveDateTime};
use diesel::prelude::*;
use keyset_runtime::{Error, Keyset, Page, PageQuery, PageRequest};
use keyset_tests::models::{
    ByTag, Membership, Newest, NewestIdAsc, Post, RankAscNullsFirst, RankAscNullsLast,
    RankDescNullsFirst, RankDescNullsLast, RankDue, ScoreDue, TopScore,
};
use keyset_tests::order::{key, plain};
use keyset_tests::schema::{authors, memberships, posts};
use keyset_tests::seed::NewPost;
use keyset_tests::walk::cursors;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

use crate::{connect, Conn};

/// Rows per generated table: small, so thousands of cases stay fast; ties make them dense.
pub(crate) const MAX_ROWS: usize = 40;
/// Steps per random walk.
pub(crate) const MAX_STEPS: usize = 16;

/// Text keys: case, accents, ligatures, a trailing space, an empty string, 4-byte characters and
/// quotes, which collations order (and tie) differently from bytes.
pub(crate) const TEXTS: &[&str] = &[
    "a",
    "A",
    "á",
    "à",
    "ä",
    "a ",
    "ae",
    "æ",
    "ss",
    "ß",
    "i",
    "İ",
    "ı",
    "",
    "Zürich",
    "z",
    "日本",
    "\u{1F600}",
    "\u{1F600}a",
    "O'Brien",
    "back\\slash",
    "%_",
    "a'b\"c;--",
];

#[derive(Debug, Clone, Copy)]
pub(crate) enum Op {
    First,
    Last,
    Next,
    Prev,
}

pub(crate) fn config() -> Config {
    let mut config = Config::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = crate::PROPERTY_CASES;
    }
    // A failing case is printed, shrunk; no regression files are written into the source tree.
    config.failure_persistence = None;
    config
}

/// Runs `test` on `strategy`'s values with one connection for the whole run.
pub(crate) fn run<S: Strategy>(
    strategy: S,
    test: impl Fn(&mut Conn, S::Value) -> Result<(), TestCaseError>,
) {
    let conn = RefCell::new(connect());
    diesel::insert_into(authors::table)
        .values(
            &(1..=3)
                .map(|id| (authors::id.eq(id), authors::name.eq(format!("author {id}"))))
                .collect::<Vec<_>>(),
        )
        .execute(&mut *conn.borrow_mut())
        .expect("insert authors");
    let mut runner = TestRunner::new(config());
    if let Err(err) = runner.run(&strategy, |value| test(&mut conn.borrow_mut(), value)) {
        panic!("{err}");
    }
}

fn timestamp() -> impl Strategy<Value = NaiveDateTime> {
    let at = |micros: i64| DateTime::from_timestamp_micros(micros).expect("in range").naive_utc();
    let (first, last) = crate::TIMESTAMP_MICROS;
    prop_oneof![
        // Four seconds, three microseconds apart within each: ties, and ties broken by 1 µs.
        6 => (0..4i64, 0..3i64).prop_map(move |(s, us)| at(1_700_000_000_000_000 + s * 1_000_000 + us)),
        // The first and last microsecond the backend's column holds, and the one before the epoch.
        1 => Just(at(first)),
        1 => Just(at(last)),
        1 => Just(at(if first < 0 { -1 } else { first + 1 })),
    ]
}

fn id() -> impl Strategy<Value = i64> {
    prop_oneof![
        1 => Just(i64::MIN),
        1 => Just(i64::MIN + 1),
        1 => Just(i64::MAX),
        1 => Just(i64::MAX - 1),
        1 => Just(0),
        1 => Just(-1),
        6 => -60..60i64,
        2 => any::<i64>(),
    ]
}

fn post() -> impl Strategy<Value = NewPost> {
    (
        id(),
        1..=3i64,
        timestamp(),
        prop_oneof![4 => -1..3i32, 1 => Just(i32::MIN), 1 => Just(i32::MAX)],
        prop::sample::select(TEXTS),
        prop::option::weighted(0.75, -1..3i32),
        prop::option::weighted(0.7, timestamp()),
    )
        .prop_map(|(id, author_id, created_at, score, tag, rank, due)| NewPost {
            id,
            author_id,
            created_at,
            score,
            tag: tag.to_owned(),
            title: format!("t{id}"),
            rank,
            due,
        })
}

/// A table of posts with distinct ids.
pub(crate) fn table() -> impl Strategy<Value = Vec<NewPost>> {
    prop::collection::vec(post(), 0..=MAX_ROWS).prop_map(|mut rows| {
        rows.sort_by_key(|row| row.id);
        rows.dedup_by_key(|row| row.id);
        rows
    })
}

pub(crate) fn steps() -> impl Strategy<Value = Vec<(Op, u32)>> {
    let op = prop_oneof![1 => Just(Op::First), 1 => Just(Op::Last), 5 => Just(Op::Next), 3 => Just(Op::Prev)];
    // Small pages cross many boundaries; large ones hold the whole table and more.
    let limit = prop_oneof![3 => 1..=4u32, 2 => 1..=(MAX_ROWS as u32 + 5)];
    prop::collection::vec((op, limit), 1..=MAX_STEPS)
}

/// Replaces the posts with `rows`.
pub(crate) fn fill(conn: &mut Conn, rows: &[NewPost]) {
    diesel::delete(posts::table).execute(conn).expect("empty posts");
    if !rows.is_empty() {
        diesel::insert_into(posts::table).values(rows).execute(conn).expect("insert posts");
    }
}

/// Walks `steps` over `query()` and checks every page against `expected`, the model's rows in
/// the oracle's order.
fn check_walk<Q>(
    conn: &mut Conn,
    expected: &[Q::Model],
    query: impl Fn() -> Q,
    steps: &[(Op, u32)],
) -> Result<(), TestCaseError>
where
    Q: PageQuery<'static, Conn, Item = <Q as keyset_runtime::Paginate>::Model>,
    <Q::Model as Keyset>::Cursor: Debug + PartialEq,
{
    let load = |request: &PageRequest| {
        query()
            .paginate(request)
            .and_then(|paginated| paginated.max_limit(u32::MAX).load_page(conn))
    };
    check_pages(expected, load, steps)
}

/// Walks `steps` over the pages `load` loads and checks every page against `expected`, the
/// listing's rows in the oracle's order: its rows, and a token exactly where a neighbouring page
/// exists.
pub(crate) fn check_pages<M: Keyset>(
    expected: &[M],
    mut load: impl FnMut(&PageRequest) -> Result<Page<M>, Error>,
    steps: &[(Op, u32)],
) -> Result<(), TestCaseError>
where
    M::Cursor: Debug + PartialEq,
{
    let expected = cursors(expected);
    let n = expected.len();
    // The last page loaded: its tokens, and the oracle slice it holds.
    let mut at: Option<(Option<String>, Option<String>, Range<usize>)> = None;
    for (index, &(op, limit)) in steps.iter().enumerate() {
        let l = limit as usize;
        let (request, range, op) = match (op, &at) {
            (Op::Next, Some((Some(next), _, range))) => {
                (PageRequest::after(next.clone(), limit), range.end..n.min(range.end + l), Op::Next)
            }
            (Op::Prev, Some((_, Some(prev), range))) => (
                PageRequest::before(prev.clone(), limit),
                range.start.saturating_sub(l)..range.start,
                Op::Prev,
            ),
            (Op::Next, Some((None, _, range))) => {
                prop_assert_eq!(range.end, n, "step {}: no next_cursor before the end", index);
                continue;
            }
            (Op::Prev, Some((_, None, range))) => {
                prop_assert_eq!(range.start, 0, "step {}: no prev_cursor after the start", index);
                continue;
            }
            (Op::Last, _) => (PageRequest::last(limit), n.saturating_sub(l)..n, Op::Last),
            _ => (PageRequest::first(limit), 0..n.min(l), Op::First),
        };
        let page = load(&request).map_err(|err| {
            TestCaseError::fail(format!("step {index} ({op:?}, limit {limit}): {err}"))
        })?;
        prop_assert_eq!(
            &cursors(&page.items)[..],
            &expected[range.clone()],
            "step {} ({:?}, limit {}): rows {:?} of {}",
            index,
            op,
            limit,
            range,
            n
        );
        let nonempty = !range.is_empty();
        let (has_next, has_prev) = match op {
            Op::First => (range.end < n, false),
            Op::Next => (range.end < n, nonempty),
            Op::Prev => (nonempty, range.start > 0),
            Op::Last => (false, range.start > 0),
        };
        prop_assert_eq!(page.has_next(), has_next, "step {} ({:?}): next_cursor", index, op);
        prop_assert_eq!(page.has_prev(), has_prev, "step {} ({:?}): prev_cursor", index, op);
        at = Some((page.next_cursor, page.prev_cursor, range));
    }
    Ok(())
}

/// Loads the model's rows unordered and sorts them with `cmp`: the oracle for keys Rust orders
/// as every engine does (integers, timestamps, NULL placement).
pub(crate) fn sorted<M, Q>(conn: &mut Conn, query: Q, cmp: impl Fn(&M, &M) -> Ordering) -> Vec<M>
where
    Q: diesel::query_dsl::LoadQuery<'static, Conn, M>,
{
    let mut rows: Vec<M> = query.load(conn).expect("oracle loads");
    rows.sort_by(cmp);
    rows
}

#[test]
fn one_key_with_i64_extremes() {
    run((table(), steps()), |conn, (rows, steps)| {
        fill(conn, &rows);
        let expected = sorted(conn, posts::table.select(Post::as_select()), |a: &Post, b| {
            plain(&a.id, &b.id, false)
        });
        check_walk(conn, &expected, || posts::table.select(Post::as_select()), &steps)
    });
}

#[test]
fn two_keys_descending_with_microsecond_ties() {
    run((table(), steps()), |conn, (rows, steps)| {
        fill(conn, &rows);
        let expected = sorted(conn, posts::table.select(Newest::as_select()), |a: &Newest, b| {
            plain(&a.created_at, &b.created_at, true).then(plain(&a.id, &b.id, true))
        });
        check_walk(conn, &expected, || posts::table.select(Newest::as_select()), &steps)
    });
}

#[test]
fn two_keys_in_mixed_directions() {
    run((table(), steps()), |conn, (rows, steps)| {
        fill(conn, &rows);
        let expected =
            sorted(conn, posts::table.select(NewestIdAsc::as_select()), |a: &NewestIdAsc, b| {
                plain(&a.published, &b.published, true).then(plain(&a.id, &b.id, false))
            });
        check_walk(conn, &expected, || posts::table.select(NewestIdAsc::as_select()), &steps)
    });
}

#[test]
fn three_keys_in_mixed_directions_with_a_filter() {
    run((table(), steps()), |conn, (rows, steps)| {
        fill(conn, &rows);
        let cmp = |a: &TopScore, b: &TopScore| {
            plain(&a.score, &b.score, false)
                .then(plain(&a.created_at, &b.created_at, true))
                .then(plain(&a.id, &b.id, false))
        };
        let expected = sorted(conn, posts::table.select(TopScore::as_select()), cmp);
        check_walk(conn, &expected, || posts::table.select(TopScore::as_select()), &steps)?;
        // The same order under a user filter: the keyset filter is ANDed with it.
        let filtered = sorted(
            conn,
            posts::table.filter(posts::author_id.ne(2)).select(TopScore::as_select()),
            cmp,
        );
        check_walk(
            conn,
            &filtered,
            || posts::table.filter(posts::author_id.ne(2)).select(TopScore::as_select()),
            &steps,
        )
    });
}

/// Text keys tie and order as the database's collation says (on MariaDB, `a`, `A`, `á` and
/// `a ` are equal), so the oracle is a hand-written ORDER BY; the walk must agree with it.
#[test]
fn text_key_under_the_database_collation() {
    run((table(), steps()), |conn, (rows, steps)| {
        fill(conn, &rows);
        let expected = posts::table
            .order((posts::score.desc(), posts::tag.desc(), posts::id.desc()))
            .select(ByTag::as_select())
            .load(conn)
            .expect("oracle loads");
        check_walk(conn, &expected, || posts::table.select(ByTag::as_select()), &steps)
    });
}

#[test]
fn nullable_leading_key_in_every_direction_and_placement() {
    run((table(), steps()), |conn, (rows, steps)| {
        fill(conn, &rows);
        let expected = sorted(
            conn,
            posts::table.select(RankDescNullsLast::as_select()),
            |a: &RankDescNullsLast, b| {
                key(&a.rank, &b.rank, true, false).then(plain(&a.id, &b.id, true))
            },
        );
        check_walk(
            conn,
            &expected,
            || posts::table.select(RankDescNullsLast::as_select()),
            &steps,
        )?;
        let expected = sorted(
            conn,
            posts::table.select(RankDescNullsFirst::as_select()),
            |a: &RankDescNullsFirst, b| {
                key(&a.rank, &b.rank, true, true).then(plain(&a.id, &b.id, false))
            },
        );
        check_walk(
            conn,
            &expected,
            || posts::table.select(RankDescNullsFirst::as_select()),
            &steps,
        )?;
        let expected = sorted(
            conn,
            posts::table.select(RankAscNullsLast::as_select()),
            |a: &RankAscNullsLast, b| {
                key(&a.rank, &b.rank, false, false).then(plain(&a.id, &b.id, false))
            },
        );
        check_walk(conn, &expected, || posts::table.select(RankAscNullsLast::as_select()), &steps)?;
        let expected = sorted(
            conn,
            posts::table.select(RankAscNullsFirst::as_select()),
            |a: &RankAscNullsFirst, b| {
                key(&a.rank, &b.rank, false, true).then(plain(&a.id, &b.id, true))
            },
        );
        check_walk(conn, &expected, || posts::table.select(RankAscNullsFirst::as_select()), &steps)
    });
}

#[test]
fn two_nullable_keys_and_a_nullable_key_behind_a_plain_one() {
    run((table(), steps()), |conn, (rows, steps)| {
        fill(conn, &rows);
        let expected = sorted(conn, posts::table.select(RankDue::as_select()), |a: &RankDue, b| {
            key(&a.rank, &b.rank, false, false)
                .then(key(&a.due, &b.due, true, true))
                .then(plain(&a.id, &b.id, false))
        });
        check_walk(conn, &expected, || posts::table.select(RankDue::as_select()), &steps)?;
        let expected =
            sorted(conn, posts::table.select(ScoreDue::as_select()), |a: &ScoreDue, b| {
                plain(&a.score, &b.score, true)
                    .then(key(&a.due, &b.due, false, false))
                    .then(plain(&a.id, &b.id, true))
            });
        check_walk(conn, &expected, || posts::table.select(ScoreDue::as_select()), &steps)
    });
}

#[test]
fn composite_primary_key_tiebreaker() {
    let member = (0..4i32, prop_oneof![Just(i32::MIN), Just(i32::MAX), -3..6i32], timestamp());
    let members = prop::collection::vec(member, 0..=MAX_ROWS).prop_map(|mut rows| {
        rows.sort_by_key(|&(team, user, _)| (team, user));
        rows.dedup_by_key(|&mut (team, user, _)| (team, user));
        rows
    });
    run((members, steps()), |conn, (rows, steps)| {
        diesel::delete(memberships::table).execute(conn).expect("empty memberships");
        let values: Vec<_> = rows
            .iter()
            .map(|&(team, user, joined)| {
                (
                    memberships::team_id.eq(team),
                    memberships::user_id.eq(user),
                    memberships::joined_at.eq(joined),
                )
            })
            .collect();
        if !values.is_empty() {
            diesel::insert_into(memberships::table)
                .values(&values)
                .execute(conn)
                .expect("insert memberships");
        }
        let expected = sorted(
            conn,
            memberships::table.select(Membership::as_select()),
            |a: &Membership, b| {
                plain(&a.joined_at, &b.joined_at, false)
                    .then(plain(&a.team_id, &b.team_id, false))
                    .then(plain(&a.user_id, &b.user_id, true))
            },
        );
        check_walk(conn, &expected, || memberships::table.select(Membership::as_select()), &steps)
    });
}
