//! Every named order of [`Story`], as declared and reversed, is served by its index on this
//! backend: the indexes `Story::INDEXES` lists (one per distinct order; an order and its reverse
//! share one, and so do `new` and `old`) are the test schema's, and every statement a page at a
//! deep cursor runs, forward and back, is an index seek with no sort. The first and last pages
//! read their order's index from an end without a sort too, except where the nullable-keys guide
//! says an engine cannot: `due`'s NULL placement (last ascending) is not MariaDB's own, so there its
//! first and last pages sort.
//!
//! A named order's statements are those of a model declaring the same order with field
//! attributes (`story_orders`), walked forward or back: each statement a page runs is matched,
//! SQL for SQL, to one built from that model's `after`/`before`, tie levels and NULL regions,
//! which is then explained.

use diesel::connection::{Instrumentation, InstrumentationEvent};
use diesel::prelude::*;
use diesel::query_builder::{QueryFragment, QueryId};
use keyset_runtime::__testing::sql::{union, Region};
use keyset_runtime::__testing::sql::{OneSide, SeekParts};
use keyset_runtime::explain::PlanError;
use keyset_runtime::migration::Backend;
use keyset_runtime::{Keyset, PageRequest, Paginate, SortDirection};
use keyset_tests::models::story_orders::{Due, Mixed, New, Title, Top};
use keyset_tests::models::{Story, StoryOrder};
use keyset_tests::schema::stories;
use keyset_tests::seed::timestamp;
use std::sync::{Arc, Mutex};

use super::orders::{reversed, NewStory, DIRECTIONS};
use crate::migrations_db::{analyze_stories, index_seek};
use crate::{connect, Conn};

const ROWS: i64 = 20_000;

pub(crate) type DB = <Conn as Connection>::Backend;

/// The DDL this backend's test schema is written in.
pub(crate) fn backend() -> Backend {
    match crate::migrations_db::BACKEND {
        keyset_codegen::Backend::Sqlite => Backend::Sqlite,
        keyset_codegen::Backend::Postgres => Backend::Postgres,
        _ => Backend::Mysql,
    }
}

/// Explains a statement on a connection: the backend's plan check.
pub(crate) type Explain = Box<dyn Fn(&mut Conn) -> Result<Vec<String>, PlanError>>;

/// A statement built from a field-order model, as Diesel shows it, and its plan check.
pub(crate) struct Candidate {
    pub(crate) sql: String,
    pub(crate) explain: Explain,
}

pub(crate) fn candidate<Q>(query: Q) -> Candidate
where
    Q: QueryFragment<DB> + QueryId + 'static,
{
    let sql = sql_only(&diesel::debug_query::<DB, _>(&query).to_string());
    Candidate { sql, explain: Box::new(move |conn| index_seek(&query, conn)) }
}

/// A statement without its bound values, with each `LIMIT` as a placeholder and PostgreSQL's
/// parameters unnumbered: a page writes its limits literally on PostgreSQL (so that statements
/// get generic plans), where the candidates, written with Diesel's `.limit()`, bind them.
pub(crate) fn sql_only(statement: &str) -> String {
    keyset_runtime::__testing::sql::shape(statement)
}

/// Every statement a page of `$model`'s order can run at the cursor of story `$id`, forward and
/// back: the first and last pages, the whole seek, each tie level and each NULL region, under
/// the ORDER BY with and without its placement pinned.
macro_rules! candidates {
    ($conn:expr, $model:ty, $id:expr) => {{
        let row: $model = stories::table
            .filter(stories::id.eq($id))
            .select(<$model>::as_select())
            .first($conn)
            .unwrap();
        let cursor = row.cursor();
        let query = || stories::table.select(Story::as_select());
        let mut all = vec![
            candidate(query().order(<$model>::order_by()).limit(21)),
            candidate(query().order(<$model>::reverse_order_by()).limit(21)),
        ];
        for one_side in [false, true] {
            let order = || match one_side {
                true => <$model>::order_by().one_side(),
                false => <$model>::order_by(),
            };
            let reverse = || match one_side {
                true => <$model>::reverse_order_by().one_side(),
                false => <$model>::reverse_order_by(),
            };
            let (after, before) = (<$model>::after(&cursor), <$model>::before(&cursor));
            all.push(candidate(query().filter(after.clone()).order(order()).limit(21)));
            all.push(candidate(query().filter(before.clone()).order(reverse()).limit(21)));
            for region in [Region::Cursor, Region::Next] {
                let after = after.clone().region(region);
                all.push(candidate(query().filter(after).order(order()).limit(21)));
                let before = before.clone().region(region);
                all.push(candidate(query().filter(before).order(reverse()).limit(21)));
            }
        }
        (all, cursor)
    }};
}

/// [`candidates!`]' tie levels: one statement per level, forward and back, under the ORDER BY of
/// the rows a level holds (a nullable leading key's values, where it has one).
macro_rules! levels {
    ($all:expr, $model:ty, $cursor:expr) => {{
        let query = || stories::table.select(Story::as_select());
        let keys = <$model as Keyset>::key_lengths(&$cursor).len();
        for level in 1..=keys {
            let after = <$model>::after(&$cursor).level(level);
            let order = <$model>::order_by().one_side();
            $all.push(candidate(query().filter(after).order(order).limit(21)));
            let before = <$model>::before(&$cursor).level(level);
            let reverse = <$model>::reverse_order_by().one_side();
            $all.push(candidate(query().filter(before).order(reverse).limit(21)));
        }
        // Every level at once, their union ordered by the keys' output columns (PostgreSQL).
        if let Some(names) = <$model as Keyset>::SELECTED_NAMES {
            let after = (1..=keys).rev().map(|level| {
                let after = <$model>::after(&$cursor).level(level);
                query().filter(after).order(<$model>::order_by().one_side()).limit(21)
            });
            let order = <$model>::order_by().one_side();
            $all.push(candidate(union(after.collect(), order, names, 21)));
            let before = (1..=keys).rev().map(|level| {
                let before = <$model>::before(&$cursor).level(level);
                query().filter(before).order(<$model>::reverse_order_by().one_side()).limit(21)
            });
            let reverse = <$model>::reverse_order_by().one_side();
            $all.push(candidate(union(before.collect(), reverse, names, 21)));
        }
    }};
}

/// The statements for `order` (either direction) at story `id`, with the name of their index.
fn candidates_for(conn: &mut Conn, order: StoryOrder, id: i64) -> (Vec<Candidate>, &'static str) {
    macro_rules! with_levels {
        ($model:ty) => {{
            let (mut all, cursor) = candidates!(conn, $model, id);
            levels!(all, $model, cursor);
            (all, <$model as Keyset>::INDEXES[0].name)
        }};
    }
    match order {
        StoryOrder::New | StoryOrder::Old => with_levels!(New),
        StoryOrder::Top => with_levels!(Top),
        StoryOrder::Title => with_levels!(Title),
        StoryOrder::Due => with_levels!(Due),
        StoryOrder::Mixed => with_levels!(Mixed),
    }
}

/// `ROWS` stories: 13 timestamps, 50 scores, 300 titles, 10% NULLs in `published_at`.
fn seeded() -> Conn {
    let mut conn = connect();
    let rows: Vec<NewStory> = (1..=ROWS)
        .map(|id| NewStory {
            id,
            created_at: timestamp((id * 7) % 13),
            score: (id % 50) as i32,
            title: format!("t{:03}", id % 300),
            published_at: (id % 10 != 3).then(|| timestamp((id * 5) % 11)),
        })
        .collect();
    for chunk in rows.chunks(500) {
        diesel::insert_into(stories::table).values(chunk).execute(&mut conn).unwrap();
    }
    analyze_stories(&mut conn);
    conn
}

/// Loads `request` in `order` and `dir`, recording the statements it runs.
fn statements(
    conn: &mut Conn,
    (order, dir): (StoryOrder, Option<SortDirection>),
    request: &PageRequest,
) -> (keyset_runtime::Page<Story>, Vec<String>) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&log);
    conn.set_instrumentation(move |event: InstrumentationEvent<'_>| {
        if let InstrumentationEvent::StartQuery { query, .. } = event {
            sink.lock().unwrap().push(query.to_string());
        }
    });
    let query = stories::table.select(Story::as_select());
    let page = query.paginate_by(order, dir, request).unwrap().load_page(conn).unwrap();
    conn.set_instrumentation(None::<Box<dyn Instrumentation>>);
    let statements = log.lock().unwrap().clone();
    (page, statements)
}

#[test]
fn the_test_schema_has_every_index_the_orders_list() {
    let ddl = match backend() {
        Backend::Sqlite => keyset_tests::schema::SQLITE_DDL,
        Backend::Postgres => keyset_tests::schema::POSTGRES_DDL,
        _ => keyset_tests::schema::MYSQL_DDL,
    };
    // `new` and `old` (its exact reverse) share one; each other order has its own.
    assert_eq!(Story::INDEXES.len(), 5, "{:#?}", Story::INDEXES);
    for index in Story::INDEXES {
        assert!(ddl.contains(&index.create(backend())), "{}", index.create(backend()));
    }
    for name in [New::INDEXES, Top::INDEXES, Title::INDEXES, Due::INDEXES, Mixed::INDEXES]
        .map(|indexes| indexes[0].name)
    {
        assert!(Story::INDEXES.iter().any(|index| index.name == name), "{name}");
    }
}

#[test]
fn every_order_and_its_reverse_is_served_by_its_index() {
    let mut conn = seeded();
    let (mut sorted_ends, mut sorted_deep) = (Vec::new(), Vec::new());
    for order in StoryOrder::ALL {
        for dir in DIRECTIONS {
            let choice = (order, dir);
            // The first and last pages, then pages after and before cursors in the middle of
            // the order and among `due`'s NULLs (its last 10% as declared, its first reversed),
            // away from the ends of the values (where PostgreSQL rightly top-N sorts the few
            // rows of a tie group that bitmap scans found).
            let mut requests = vec![(PageRequest::first(20), true), (PageRequest::last(20), true)];
            let pages = ROWS as u32 / 20;
            let numbers = match (order, reversed(order, dir)) {
                (StoryOrder::Due, true) => [pages / 20, pages / 2],
                (StoryOrder::Due, false) => [pages / 2, pages * 23 / 25],
                _ => [pages / 2, pages * 9 / 10],
            };
            for number in numbers {
                let (page, _) =
                    statements(&mut conn, choice, &PageRequest::page_number(number, 20));
                requests.push((PageRequest::after(page.next_cursor.unwrap(), 20), false));
                requests.push((PageRequest::before(page.prev_cursor.unwrap(), 20), false));
            }
            for (request, at_an_end) in requests {
                let (page, ran) = statements(&mut conn, choice, &request);
                let id = page.items[page.items.len() / 2].id;
                let (candidates, index) = candidates_for(&mut conn, order, id);
                for statement in &ran {
                    let what = format!("{order} {dir:?}, {request:?}: {statement}");
                    let Some(built) = candidates.iter().find(|c| c.sql == sql_only(statement))
                    else {
                        panic!("{what}: no field-order model's statement is this one");
                    };
                    match ((built.explain)(&mut conn), at_an_end) {
                        // A tie level's equality prefix may be sought in another order's index
                        // that begins alike (`top`'s `score = ? AND created_at = ? AND id < ?`
                        // in `mixed`'s): still a seek, with no sort.
                        (Ok(plan), false) => {
                            assert!(
                                plan.iter()
                                    .any(|l| Story::INDEXES.iter().any(|i| l.contains(i.name))),
                                "{what}: {plan:#?}"
                            );
                            // A union seeks in every branch, not only in the first.
                            // `Index Scan`, `.. Backward`, `Index Only Scan`, `Bitmap Index Scan`.
                            let scan =
                                |l: &&String| l.contains("Index Scan") || l.contains("Only Scan");
                            let scans = plan.iter().filter(scan).count();
                            let conds = plan.iter().filter(|l| l.contains("Index Cond")).count();
                            assert_eq!(scans, conds, "{what}: a scan without a seek: {plan:#?}");
                        }
                        (Ok(plan), true) => {
                            assert!(plan.iter().any(|l| l.contains(index)), "{what}: {plan:#?}")
                        }
                        (Err(PlanError::NotASeek { reason, plan }), true) => {
                            if reason.contains("sorted after reading") {
                                sorted_ends.push((order, what.clone()));
                            } else {
                                // Read from an end of its index: no seek, nothing to seek to.
                                assert!(
                                    plan.iter().any(|l| l.contains(index)),
                                    "{what}: {plan:#?}"
                                );
                            }
                        }
                        (Err(PlanError::NotASeek { reason, .. }), false)
                            if reason.contains("sorted after reading") =>
                        {
                            sorted_deep.push((order, what.clone()));
                        }
                        (Err(err), false) => panic!("{what}: {err}"),
                        (Err(err), true) => panic!("{what}: {err}"),
                    }
                }
            }
        }
    }
    // The nullable-keys guide's exception, and no other: MariaDB pins `due`'s placement, which
    // is not its own, with a leading `published_at IS NULL` term, so its first and last pages
    // sort (in both directions). SQLite's `NULLS LAST` and PostgreSQL's own placement read the
    // index.
    let sorted: Vec<StoryOrder> = sorted_ends.iter().map(|(order, _)| *order).collect();
    let expected = match backend() {
        Backend::Mysql => vec![StoryOrder::Due; 2 * DIRECTIONS.len()],
        _ => Vec::new(),
    };
    assert_eq!(sorted, expected, "end pages sorted after reading: {sorted_ends:#?}");
    // Past a cursor nothing sorts, on any backend: a page whose rows all lie on the cursor's side
    // of `due`'s NULL boundary runs that region alone, under an ORDER BY that does not pin the
    // placement (without the all-NULL key on MariaDB), which its index serves.
    let sorted: Vec<StoryOrder> = sorted_deep.iter().map(|(order, _)| *order).collect();
    assert_eq!(sorted, [], "pages past a cursor sorted after reading: {sorted_deep:#?}");
}
