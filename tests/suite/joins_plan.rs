//! What the statements of a join's pages cost on this backend, read from the engine's plans.
//!
//! - `posts ⋈ authors` (inner and left join) selecting `(Newest, Author)`: every statement a page
//!   runs, at deep cursors forward and back, seeks `Newest`'s index on `posts` and looks each
//!   post's author up by the primary key of `authors`, with no sort. The first and last pages
//!   read the same index from an end (no seek: there is nothing to seek to), without a sort.
//! - A boxed join over `RankDue` (two nullable keys, `rank ASC NULLS LAST, due DESC NULLS FIRST,
//!   id ASC`): a boxed query cannot run twice, so a page past a cursor is the single predicate,
//!   which spans both NULL regions. What that costs differs per engine and is pinned exactly in
//!   [`boxed_join_over_nullable_keys_runs_the_single_predicate`].
//! - `PostByAuthor`, led by the joined column `authors.name`: no index on `posts` holds the key
//!   (the derive writes none), so each page reads every row the join matches past the cursor and
//!   sorts them. Pinned as `NotASeek` with the sort as its reason, so that a change shows up here
//!   (`joined_keys.rs`, with the order grouped by the author).
//!
//! The test schema's only index on `posts` is the feed's, `(author_id, created_at DESC, id DESC)`,
//! which [`seeded`] drops (with it MariaDB drives the join from `authors`, looks each author's
//! posts up in it and sorts them, even for the first page), then creates the ones
//! `Newest::INDEXES` and `RankDue::INDEXES` list, with the derive's DDL. Each
//! statement a real `load_page` runs is recorded, matched SQL for SQL to one built from the
//! model's `after`/`before`, tie levels and ORDER BY at the same cursor, which is then explained.

use diesel::connection::{Instrumentation, InstrumentationEvent};
use diesel::prelude::*;
use keyset_runtime::__testing::sql::Region;
use keyset_runtime::__testing::sql::{OneSide, SeekParts};
use keyset_runtime::explain::PlanError;
use keyset_runtime::migration::{Backend, IndexDdl};
use keyset_runtime::{Keyset, Page, PageQuery, PageRequest};
use keyset_tests::models::{Author, Newest, PostByAuthor, RankDue};
use keyset_tests::schema::{authors, posts};
use keyset_tests::seed;
use std::sync::{Arc, Mutex};

use super::orders_plan::{backend, candidate, sql_only, Candidate};
use crate::migrations_db::analyze_joins;
use crate::{connect, Conn};
use reads::{read, reads};

mod reads;

/// Posts: 666 timestamps of 30 or 31 rows each (page boundaries fall inside tie groups, so that
/// on SQLite, one statement per tie level, pages run both of `Newest`'s levels).
const ROWS: i64 = 20_000;

/// Authors, 10 posts each: enough that the planners look them up by key rather than hash the
/// table.
const AUTHORS: i64 = 2_000;

/// Rows per page.
const PAGE: u32 = 20;

/// `ROWS` posts by `AUTHORS` authors (names out of id order), with `seed::post`'s nullable
/// `rank` and `due`, the indexes of `Newest` and `RankDue`, and fresh statistics.
pub(crate) fn seeded() -> Conn {
    let mut conn = connect();
    let authors: Vec<_> = (1..=AUTHORS)
        .map(|id| (authors::id.eq(id), authors::name.eq(format!("author {:04}", id * 7 % AUTHORS))))
        .collect();
    for chunk in authors.chunks(500) {
        diesel::insert_into(authors::table).values(chunk).execute(&mut conn).unwrap();
    }
    let posts: Vec<seed::NewPost> = (1..=ROWS)
        .map(|id| seed::NewPost {
            author_id: 1 + id * 13 % AUTHORS,
            created_at: seed::timestamp(id * 7 % (ROWS / 30)),
            ..seed::post(id)
        })
        .collect();
    for chunk in posts.chunks(500) {
        diesel::insert_into(posts::table).values(chunk).execute(&mut conn).unwrap();
    }
    // The orders' own indexes: not the feeds' (`Newest`'s prefix), which the schema creates,
    // and with which MariaDB joined from `authors` and sorted.
    let feed = crate::suite::feeds::plan::FEED_INDEX;
    let indexes = Newest::INDEXES.iter().chain(RankDue::INDEXES);
    let (feed, orders): (Vec<&IndexDdl>, Vec<_>) = indexes.partition(|index| index.name == feed);
    let ddl = feed.iter().map(|index| index.drop(backend()));
    for sql in ddl.chain(orders.iter().map(|index| index.create(backend()))) {
        diesel::sql_query(sql).execute(&mut conn).unwrap();
    }
    analyze_joins(&mut conn);
    conn
}

/// Where a page starts, and the cursor its statements seek from (at an end, the first row's,
/// which they do not use).
struct At<C> {
    request: PageRequest,
    cursor: C,
}

/// The first and last pages, then the pages after and before the cursors at the end of the
/// numbered pages `numbers`: their `next_cursor` and `prev_cursor`, as a client holds them, and
/// the cursors of the rows they point at.
fn positions<Q, C>(
    conn: &mut Conn,
    query: impl Fn() -> Q,
    numbers: [u32; 2],
    cursor_of: impl Fn(&Q::Item) -> C,
) -> Vec<At<C>>
where
    Q: PageQuery<'static, Conn>,
{
    let page = |conn: &mut Conn, request: &PageRequest| -> Page<Q::Item> {
        query().paginate(request).unwrap().load_page(conn).unwrap()
    };
    let first = page(conn, &PageRequest::first(PAGE));
    let mut all = vec![
        At { request: PageRequest::first(PAGE), cursor: cursor_of(&first.items[0]) },
        At { request: PageRequest::last(PAGE), cursor: cursor_of(&first.items[0]) },
    ];
    for number in numbers {
        let numbered = page(conn, &PageRequest::page_number(number, PAGE));
        let (first, last) = (&numbered.items[0], numbered.items.last().unwrap());
        all.push(At {
            request: PageRequest::after(numbered.next_cursor.unwrap(), PAGE),
            cursor: cursor_of(last),
        });
        all.push(At {
            request: PageRequest::before(numbered.prev_cursor.unwrap(), PAGE),
            cursor: cursor_of(first),
        });
    }
    all
}

/// The statements a full page of `query` at `request` runs, as Diesel's instrumentation shows
/// them.
fn ran<Q: PageQuery<'static, Conn>>(
    conn: &mut Conn,
    query: Q,
    request: &PageRequest,
) -> Vec<String> {
    let log = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&log);
    conn.set_instrumentation(move |event: InstrumentationEvent<'_>| {
        if let InstrumentationEvent::StartQuery { query, .. } = event {
            sink.lock().unwrap().push(query.to_string());
        }
    });
    let page = query.paginate(request).unwrap().load_page(conn).unwrap();
    conn.set_instrumentation(None::<Box<dyn Instrumentation>>);
    assert_eq!(page.items.len(), PAGE as usize, "{request:?}");
    let statements = log.lock().unwrap().clone();
    statements
}

/// Every statement a page of `$model`'s order over `$query` can run at `$cursor`: the first and
/// last pages, the whole seek forward and back, and (`levels`) each tie level both ways.
macro_rules! candidates {
    ($query:expr, $model:ty, $cursor:expr) => {{
        let (query, cursor) = (&$query, &$cursor);
        vec![
            candidate(query().order(<$model>::order_by()).limit(21)),
            candidate(query().order(<$model>::reverse_order_by()).limit(21)),
            candidate(
                query().filter(<$model>::after(cursor)).order(<$model>::order_by()).limit(21),
            ),
            candidate(
                query()
                    .filter(<$model>::before(cursor))
                    .order(<$model>::reverse_order_by())
                    .limit(21),
            ),
        ]
    }};
    ($query:expr, $model:ty, $cursor:expr, levels) => {{
        let mut all = candidates!($query, $model, $cursor);
        let (query, cursor) = (&$query, &$cursor);
        for level in 1..=<$model as Keyset>::key_lengths(cursor).len() {
            let after = <$model>::after(cursor).level(level);
            all.push(candidate(query().filter(after).order(<$model>::order_by()).limit(21)));
            let before = <$model>::before(cursor).level(level);
            all.push(candidate(
                query().filter(before).order(<$model>::reverse_order_by()).limit(21),
            ));
        }
        all
    }};
    // An order grouped by a joined row, walked a group at a time (on MariaDB): the rest of
    // the cursor's group, a group's rows, and the next group's key, from the cursor or an end.
    ($query:expr, $model:ty, $cursor:expr, groups) => {{
        use keyset_runtime::__testing::sql::{group_order, Backward, Forward};
        let mut all = candidates!($query, $model, $cursor, levels);
        let (query, cursor) = (&$query, &$cursor);
        let depth = <$model as Keyset>::GROUP_KEYS;
        for rest in [true, false] {
            let after = <$model>::after(cursor).group(depth, rest);
            all.push(candidate(query().filter(after).order(<$model>::order_by()).limit(21)));
            let before = <$model>::before(cursor).group(depth, rest);
            all.push(candidate(
                query().filter(before).order(<$model>::reverse_order_by()).limit(21),
            ));
        }
        let after = <$model>::after(cursor).past_group(depth);
        all.push(candidate(query().filter(after).order(group_order::<$model, Forward>()).limit(1)));
        let before = <$model>::before(cursor).past_group(depth);
        all.push(candidate(
            query().filter(before).order(group_order::<$model, Backward>()).limit(1),
        ));
        all.push(candidate(query().order(group_order::<$model, Forward>()).limit(1)));
        all.push(candidate(query().order(group_order::<$model, Backward>()).limit(1)));
        all
    }};
    // A page whose rows past the cursor all lie in the cursor's NULL region runs that region
    // alone, under the ORDER BY that leaves the placement unpinned.
    ($query:expr, $model:ty, $cursor:expr, regions) => {{
        let mut all = candidates!($query, $model, $cursor);
        let (query, cursor) = (&$query, &$cursor);
        let after = <$model>::after(cursor).region(Region::Cursor);
        let order = <$model>::order_by().one_side();
        all.push(candidate(query().filter(after).order(order).limit(21)));
        let before = <$model>::before(cursor).region(Region::Cursor);
        let order = <$model>::reverse_order_by().one_side();
        all.push(candidate(query().filter(before).order(order).limit(21)));
        all
    }};
}

/// The plan of the statement built from the model that is `statement`, which a page ran.
fn plan_of(
    conn: &mut Conn,
    candidates: &[Candidate],
    statement: &str,
) -> Result<Vec<String>, PlanError> {
    let Some(built) = candidates.iter().find(|c| c.sql == sql_only(statement)) else {
        panic!("no statement built from the model is this one: {statement}");
    };
    (built.explain)(conn)
}

/// What a statement of a `posts ⋈ authors` page costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cost {
    /// `posts` sought in the model's index, no sort.
    Seek,
    /// `posts` read in the model's index from an end, filtered, no sort: O(rows before the first
    /// match), one page's worth from the first or last page, more past a cursor.
    FromAnEnd,
    /// The rows the join matches are sorted after reading (the exact reason: [`sorted_reason`]).
    Sorted,
}

/// `*_index_seek`'s reason for a plan that sorts, on this backend.
fn sorted_reason() -> &'static str {
    match backend() {
        Backend::Sqlite => {
            "the rows are sorted after reading (USE TEMP B-TREE): no index matches the ORDER BY"
        }
        Backend::Postgres => {
            "the rows are sorted after reading (a Sort node): no index matches the ORDER BY"
        }
        _ => "the rows are sorted after reading (filesort): no index matches the ORDER BY",
    }
}

/// The cost of a plan of a `posts ⋈ authors` statement in an order served by `index` on `posts`.
/// Unless it sorts, `posts` must drive the join through `index` and each author be looked up by
/// the primary key of `authors`, a seek.
fn cost(plan: Result<Vec<String>, PlanError>, index: &str, what: &str) -> Cost {
    let plan = match plan {
        Err(PlanError::NotASeek { reason, .. }) if reason.contains("sorted after reading") => {
            assert_eq!(reason, sorted_reason(), "{what}");
            return Cost::Sorted;
        }
        Ok(plan) => plan,
        // An index read from an end: `SCAN` on SQLite, `index` access (not `range`) on MariaDB.
        Err(PlanError::NotASeek { plan, .. }) => plan,
        Err(err) => panic!("{what}: {err}"),
    };
    let reads = reads(&plan);
    let [posts, authors] = &reads[..] else { panic!("{what}: two tables: {plan:#?}") };
    assert_eq!((&posts.table[..], &posts.index[..]), ("posts", index), "{what}: {plan:#?}");
    assert_eq!(authors, &read("authors", "PRIMARY", true), "{what}: {plan:#?}");
    if posts.seeks {
        Cost::Seek
    } else {
        Cost::FromAnEnd
    }
}

#[test]
fn the_joins_orders_have_their_indexes_and_a_joined_key_has_none() {
    // The order's index, and the one its equality prefix (`author_id`, a feed's) leads.
    let names: Vec<&str> = Newest::INDEXES.iter().map(|index| index.name).collect();
    let feed = crate::suite::feeds::plan::FEED_INDEX;
    assert_eq!(names, ["posts_keyset_created_at_desc_id_desc", feed]);
    assert_eq!(
        names,
        ["posts_keyset_created_at_desc_id_desc", crate::suite::feeds::plan::FEED_INDEX]
    );
    assert_eq!(
        names,
        [
            "posts_keyset_created_at_desc_id_desc",
            "posts_keyset_author_id_asc_created_at_desc_id_desc"
        ]
    );
    assert_eq!(RankDue::INDEXES.len(), 1, "{:#?}", RankDue::INDEXES);
    // No index on `posts` holds `authors.name`: the derive writes none for such an order.
    assert_eq!(PostByAuthor::INDEXES, &[], "{:#?}", PostByAuthor::INDEXES);
}

/// `(Newest, Author)` and `(Newest, Option<Author>)`: at deep cursors every statement seeks
/// `posts` (on SQLite both tie levels, `created_at = ? AND id < ?` then `created_at < ?`; on
/// PostgreSQL the row value; on MariaDB the OR expansion as a `range`), and each author is an
/// `eq_ref`-style primary-key lookup; the first and last pages read the index from an end.
#[test]
fn inner_and_left_joins_seek_posts_and_look_authors_up_by_primary_key() {
    let mut conn = seeded();
    let inner = || {
        posts::table.inner_join(authors::table).select((Newest::as_select(), Author::as_select()))
    };
    let left = || {
        posts::table
            .left_join(authors::table)
            .select((Newest::as_select(), Option::<Author>::as_select()))
    };
    let numbers = [ROWS as u32 / PAGE / 2, ROWS as u32 / PAGE * 9 / 10];
    let index = Newest::INDEXES[0].name;
    let mut distinct = std::collections::BTreeSet::new();
    let mut check = |conn: &mut Conn, join: &str, ends: bool, ran: Vec<String>, built: &[_]| {
        for statement in ran {
            distinct.insert(sql_only(&statement));
            let what = format!("{join}: {statement}");
            let expected = if ends { Cost::FromAnEnd } else { Cost::Seek };
            assert_eq!(cost(plan_of(conn, built, &statement), index, &what), expected, "{what}");
        }
    };
    for (i, at) in
        positions(&mut conn, inner, numbers, |(post, _)| post.cursor()).iter().enumerate()
    {
        let built = candidates!(inner, Newest, at.cursor, levels);
        let ran = ran(&mut conn, inner(), &at.request);
        check(&mut conn, "inner join", i < 2, ran, &built);
    }
    for (i, at) in positions(&mut conn, left, numbers, |(post, _)| post.cursor()).iter().enumerate()
    {
        let built = candidates!(left, Newest, at.cursor, levels);
        let ran = ran(&mut conn, left(), &at.request);
        check(&mut conn, "left join", i < 2, ran, &built);
    }
    // Per join: the first and last pages, and past a cursor each way the whole seek, or on
    // SQLite both tie levels (some page here left its cursor's tie group each way).
    let per_join = if backend() == Backend::Sqlite { 6 } else { 4 };
    assert_eq!(distinct.len(), 2 * per_join, "{distinct:#?}");
}

/// A boxed `posts ⋈ authors` with run-time filters on both tables, over `RankDue` (`rank ASC
/// NULLS LAST, due DESC NULLS FIRST, id ASC`, NULL ranks the last tenth): every page is one
/// statement. Past a cursor it is the single predicate where the page would cross the NULL
/// boundary (`.. OR rank IS NULL`), and the cursor's region alone where every row past the cursor
/// lies in it (before a cursor among the values, after one among the NULLs). Measured, for the first and last pages, then after and before a cursor among
/// the values (half-way), then among the NULL ranks (at 92%: nearer the end PostgreSQL rightly
/// bitmap-scans the few rows left after the cursor and sorts them):
///
/// - SQLite and MariaDB: the index cannot serve the ORDER BY's placements, which are neither
///   engine's own (both put NULLs first ascending and last descending; their indexes take no
///   NULLS clause), so every statement sorts, except on SQLite the page after a cursor among
///   the NULLs, whose predicate (`rank IS NULL AND (due < ? OR ..)`) is a seek on `rank=?`.
///   MariaDB reads a `range` past a cursor, then sorts it.
/// - PostgreSQL: the index has the placements, so nothing sorts; the first and last pages and
///   the page after a cursor among the values read the index from an end (the `OR rank IS NULL`
///   of the crossing leaves no `Index Cond`: the rows before the cursor are read and filtered
///   out), the page before it seeks `rank <= ?`, the page after a NULL cursor seeks `rank IS
///   NULL`, and the page before one reads from the end (the rows after it, filtered out).
///
/// (An unboxed query is fetched with one seek per NULL region at the boundary instead,
/// `SeekDialect::SPLIT_NULL_REGIONS`; its plans are not explained here.)
#[test]
fn boxed_join_over_nullable_keys_runs_the_single_predicate() {
    use Cost::{FromAnEnd, Seek, Sorted};

    let mut conn = seeded();
    let boxed = || {
        posts::table
            .inner_join(authors::table)
            .select((RankDue::as_select(), Author::as_select()))
            .into_boxed()
            .filter(posts::score.ge(1))
            .filter(authors::name.ne("author 0007"))
    };
    let rows: Vec<(RankDue, Author)> = boxed().load(&mut conn).unwrap();
    let pages = rows.len() as u32 / PAGE;
    let positions =
        positions(&mut conn, boxed, [pages / 2, pages * 23 / 25], |(row, _)| row.cursor());
    assert!(positions[2].cursor.rank.is_some() && positions[3].cursor.rank.is_some());
    assert!(positions[4].cursor.rank.is_none() && positions[5].cursor.rank.is_none());
    let mut costs = Vec::new();
    for at in &positions {
        let built = candidates!(boxed, RankDue, at.cursor, regions);
        let ran = ran(&mut conn, boxed(), &at.request);
        let [statement] = &ran[..] else { panic!("one statement: {ran:#?}") };
        let what = format!("{:?}: {statement}", at.request);
        costs.push(cost(plan_of(&mut conn, &built, statement), RankDue::INDEXES[0].name, &what));
    }
    let expected = match backend() {
        Backend::Sqlite => [Sorted, Sorted, Sorted, Sorted, Seek, Sorted],
        Backend::Postgres => [FromAnEnd, FromAnEnd, FromAnEnd, Seek, Seek, FromAnEnd],
        _ => [Sorted; 6],
    };
    assert_eq!(costs, expected);
}

/// The plan checks judge the table a page walks, not a joined table's lookups: `posts` read in
/// primary-key order from its start and filtered, with each post's author sought by key, is no
/// seek, though the lookups are.
#[test]
fn a_plan_check_judges_the_table_a_join_walks() {
    let mut conn = seeded();
    let query = posts::table
        .inner_join(authors::table)
        .filter(posts::score.ge(0))
        .order(posts::id.asc())
        .select((posts::id, authors::name))
        .limit(21);
    let Err(PlanError::NotASeek { reason, plan }) =
        crate::migrations_db::index_seek(&query, &mut conn)
    else {
        panic!("posts is read from its start: not a seek");
    };
    let text = plan.join("\n");
    assert!(!reason.contains("sorted") && !reason.contains("Seq Scan"), "{reason}: {text}");
    assert!(text.contains("authors"), "the authors are looked up: {text}");
}

// After `candidates!`, which its tests use.
mod joined_keys;
