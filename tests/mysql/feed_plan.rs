//! A feed's statement as MariaDB runs it (`ANALYZE FORMAT=JSON`), for `suite/feeds/plan.rs`:
//! each `"table"` read of `posts` with its key, whether its access seeks the key's first part,
//! `author_id` (`ref`, `range`), the rows it read per loop (`r_rows`) and its loops (`r_loops`),
//! and whether a `filesort` of its own query block sorts it; and each filesort with the rows it
//! sorted (those its table or union result read, times their loops).

use diesel::mysql::Mysql;
use diesel::query_builder::AstPass;
use diesel::sql_types::Text;
use diesel::{QueryResult, RunQueryDsl};
use serde_json::Value;

use crate::suite::feeds::plan::{FeedPlan, Read};
use crate::suite::feeds::recorded::{Again, Recorded};
use crate::Conn;

/// MariaDB binds no arrays: a feed's set is one bind per branch.
pub fn push_array(_: AstPass<'_, '_, Mysql>, values: &[i64]) -> QueryResult<()> {
    panic!("MariaDB statements bind no arrays: {values:?}")
}

pub fn plan(conn: &mut Conn, recorded: &Recorded) -> FeedPlan {
    let json: String =
        Again::<Text>::new("ANALYZE FORMAT=JSON ", recorded).get_result(conn).unwrap();
    let value: Value = serde_json::from_str(&json).unwrap();
    let mut plan = FeedPlan { reads: Vec::new(), sorts: Vec::new(), text: json };
    walk(&value, false, &mut plan);
    plan
}

fn number(node: &Value, key: &str) -> Option<f64> {
    node.get(key).and_then(Value::as_f64)
}

/// Reads `node` into `plan`; `sorting`: a filesort of the enclosing query block holds `node`.
fn walk(node: &Value, sorting: bool, plan: &mut FeedPlan) {
    match node {
        Value::Object(fields) => {
            for (key, value) in fields {
                match key.as_str() {
                    "table" if value["table_name"] == "posts" => {
                        let index = value.get("key").and_then(Value::as_str).unwrap_or("");
                        let access = value["access_type"].as_str().unwrap_or("");
                        let first = value.get("used_key_parts").and_then(|parts| parts.get(0));
                        let prefix = ["ref", "range", "eq_ref"].contains(&access)
                            && first.and_then(Value::as_str) == Some("author_id");
                        // The fetch of the page's rows by their tiebreaker: the primary key.
                        let by_key =
                            ["eq_ref", "ref", "const"].contains(&access) && index == "PRIMARY";
                        plan.reads.push(Read {
                            index: index.to_owned(),
                            prefix,
                            by_key,
                            rows: number(value, "r_rows"),
                            loops: number(value, "r_loops"),
                            sorted: sorting,
                            tie_group: false,
                        });
                        walk(value, sorting, plan);
                    }
                    "filesort" => {
                        let read = |input: &Value| {
                            Some(number(input, "r_rows")? * number(input, "r_loops").unwrap_or(1.0))
                        };
                        let sorted = ["table", "union_result", "temporary_table"]
                            .iter()
                            .filter_map(|input| value.get(*input).and_then(read))
                            .reduce(|a, b| a + b);
                        plan.sorts.push(sorted);
                        walk(value, true, plan);
                    }
                    // A branch of a union is a query block of its own: the union's sort is not
                    // its sort.
                    "query_block" => walk(value, false, plan),
                    _ => walk(value, sorting, plan),
                }
            }
        }
        Value::Array(values) => values.iter().for_each(|value| walk(value, sorting, plan)),
        _ => {}
    }
}

/// A feed's union past a cursor runs without index merges (`MARIADB_SETTINGS` in
/// `sql/members.rs`): each branch's `id < ?` also fits the primary key, and MariaDB would weigh
/// merging it with the prefix's index on every branch at every execution, to seek the prefix's
/// index anyway. Its optimizer trace of the page's statement shows no such analysis; the same
/// statement without the settings' comment shows one per branch.
#[test]
fn a_feed_past_a_cursor_weighs_no_index_merge() {
    use keyset_runtime::PageRequest;

    let mut conn = crate::suite::db::seeded(90);
    let page = |conn: &mut Conn, request: &PageRequest| feed_page(conn, &[1, 2, 3], request);
    let first = page(&mut conn, &PageRequest::first(3));
    let after = PageRequest::after(first.next_cursor.unwrap(), 3);
    let (_, ran) = crate::suite::feeds::recorded(&mut conn, |conn| page(conn, &after));
    assert_eq!(ran.len(), 1, "{ran:#?}");
    let recorded = Recorded::parse(&ran[0]);
    let settings = "/*M! SET STATEMENT optimizer_switch='index_merge=off' FOR */ ";
    assert!(recorded.sql[0].starts_with(settings), "{}", ran[0]);
    let mut without = recorded.clone();
    without.sql[0] = without.sql[0][settings.len()..].to_owned();

    let mut merges = |recorded: &Recorded| {
        optimizer_trace(&mut conn, recorded).matches("\"analyzing_index_merge_union\"").count()
    };
    assert_eq!(merges(&recorded), 0, "{}", ran[0]);
    assert!(merges(&without) >= 3, "the statement without its settings weighs index merges");
}

/// A dense feed's page on MariaDB (`Windowing::ReadFirst`, `sql/window.rs`): one statement reads
/// where the window ends, walking the order's index alone (the window's rows, no more) and
/// fetching that one row by its key; the next walks the window in the order's index, the set a
/// filter of the walk, and sorts nothing. Its optimizer trace weighs no range of the prefix's
/// index, which the same statement with the set written `author_id IN (..)` does: with the
/// window's bound known, MariaDB dives that index once per value.
#[test]
fn a_dense_feed_reads_where_its_window_ends_then_walks_the_window_alone() {
    use diesel::prelude::*;
    use keyset_runtime::migration::Backend;
    use keyset_runtime::{Keyset, PageRequest};
    use keyset_tests::models::Newest;

    let mut conn = crate::suite::db::seeded(4000);
    // `Newest`'s own index beside the feed's, as the derive writes them: the window walks it.
    let feed = crate::suite::feeds::plan::FEED_INDEX;
    for index in Newest::INDEXES.iter().filter(|index| index.name != feed) {
        diesel::sql_query(index.create(Backend::Mysql)).execute(&mut conn).unwrap();
    }
    // Authors 1 to 3 wrote three posts in five; 61 authors who wrote nothing pad the set to
    // 64 values, the fewest that MariaDB walks a window for. The window: 4 × (4 + 1 + 64) rows,
    // 276, rounded up to a power of two (`WindowRow`).
    let set: Vec<i64> = [1, 2, 3].into_iter().chain(1000..1061).collect();
    let window = 512.0;
    let page = |conn: &mut Conn, request: &PageRequest| feed_page(conn, &set, request);
    let first = page(&mut conn, &PageRequest::first(4));
    let after = PageRequest::after(first.next_cursor.unwrap(), 4);
    let (loaded, ran) = crate::suite::feeds::recorded(&mut conn, |conn| page(conn, &after));
    assert_eq!(loaded.items.len(), 4);
    assert_eq!(ran.len(), 2, "{ran:#?}");
    let (end, walk) = (Recorded::parse(&ran[0]), Recorded::parse(&ran[1]));

    let prefix_index = feed;
    let reached = plan(&mut conn, &end);
    let what = format!("{}\n{}", ran[0], reached.text);
    let walked: Vec<_> = reached.reads.iter().filter(|read| !read.by_key).collect();
    assert_eq!(walked.len(), 1, "{what}");
    assert!(walked[0].index != prefix_index && !walked[0].prefix, "{what}");
    assert!(walked[0].rows.is_some_and(|rows| rows <= window), "{what}");
    assert!(reached.reads.iter().any(|read| read.by_key && read.rows == Some(1.0)), "{what}");

    let windowed = plan(&mut conn, &walk);
    let what = format!("{}\n{}", ran[1], windowed.text);
    assert_eq!(windowed.reads.len(), 1, "{what}");
    let read = &windowed.reads[0];
    assert!(read.index != prefix_index && !read.prefix && !read.sorted, "{what}");
    // The window and the rest of its last row's tie group (timestamps repeat by the ninety).
    assert!(read.rows.is_some_and(|rows| rows <= window + 90.0), "{what}");
    assert!(windowed.sorts.is_empty(), "{what}");

    // The trace's range analysis of the prefix's index, with the set as the window writes it
    // and as a plain `IN (..)`.
    let mut weighs_prefix = |recorded: &Recorded| {
        let trace: Value = serde_json::from_str(&optimizer_trace(&mut conn, recorded)).unwrap();
        usable_for_range(&trace, prefix_index)
    };
    let filter = "COALESCE(`posts`.`author_id`) IN (";
    assert!(walk.sql[0].contains(filter), "{}", ran[1]);
    assert!(!weighs_prefix(&walk), "{}", ran[1]);
    let mut indexed = walk.clone();
    indexed.sql[0] = indexed.sql[0].replace(filter, "`posts`.`author_id` IN (");
    assert!(weighs_prefix(&indexed), "the plain filter weighs the prefix's index");
}

/// A dense feed's first page on MariaDB: the walk to the window's end, from the start, then the
/// window; its rows are the plain filter's, on the first page and on the last. Run again on the
/// same connection after another feed's page, the walk still seeks the order's index: it is
/// prepared anew for every page, where a cached one, run so, was planned as a scan and sort of
/// the table (`WindowRow`).
#[test]
fn a_dense_feed_s_first_page_walks_its_window_on_a_connection_that_ran_other_pages() {
    use diesel::prelude::*;
    use keyset_runtime::migration::Backend;
    use keyset_runtime::{Keyset, PageRequest};
    use keyset_tests::models::Newest;
    use keyset_tests::schema::posts;

    // Real tables, in a database of the test's own: MariaDB's re-planning shows on a table the
    // connection shares with others, not on a session's temporary one.
    let (mut conn, _database) = crate::migrations_db::fresh_named("feed_first_page");
    for statement in keyset_tests::schema::MYSQL_DDL {
        let statement = statement.replace("CREATE TEMPORARY TABLE", "CREATE TABLE");
        diesel::sql_query(statement).execute(&mut conn).unwrap();
    }
    crate::suite::db::insert_posts(&mut conn, 1..=4000);
    let feed = crate::suite::feeds::plan::FEED_INDEX;
    for index in Newest::INDEXES.iter().filter(|index| index.name != feed) {
        diesel::sql_query(index.create(Backend::Mysql)).execute(&mut conn).unwrap();
    }
    diesel::sql_query("ANALYZE TABLE posts").execute(&mut conn).unwrap();
    // 256 values, the fewest whose first page walks a window here: 4 × (4 + 1 + 256) rows, 1,044,
    // rounded up to a power of two.
    let set: Vec<i64> = [1, 2, 3].into_iter().chain(1000..1253).collect();
    let window = 2048.0;
    let first = PageRequest::first(4);
    let (loaded, ran) =
        crate::suite::feeds::recorded(&mut conn, |conn| feed_page(conn, &set, &first));
    assert_eq!(ran.len(), 2, "the window's end, the window: {ran:#?}");
    assert!(ran[0].contains("LIMIT 1 OFFSET 2047"), "{}", ran[0]);
    let expected: Vec<i64> = posts::table
        .filter(posts::author_id.eq_any(&set))
        .order((posts::created_at.desc(), posts::id.desc()))
        .select(posts::id)
        .load(&mut conn)
        .unwrap();
    let ids = |page: &keyset_runtime::Page<Newest>| -> Vec<i64> {
        page.items.iter().map(|post| post.id).collect()
    };
    assert_eq!(ids(&loaded), expected[..4]);
    let last_request = PageRequest::last(4);
    let (last, last_ran) =
        crate::suite::feeds::recorded(&mut conn, |conn| feed_page(conn, &set, &last_request));
    assert_eq!(ids(&last), expected[expected.len() - 4..]);
    assert_eq!(last_ran.len(), 2, "{last_ran:#?}");

    let reached = plan(&mut conn, &Recorded::parse(&ran[0]));
    let what = format!("{}\n{}", ran[0], reached.text);
    let walked: Vec<_> = reached.reads.iter().filter(|read| !read.by_key).collect();
    assert_eq!(walked.len(), 1, "{what}");
    assert!(walked[0].index != feed && !walked[0].prefix && !walked[0].sorted, "{what}");
    assert!(walked[0].rows.is_some_and(|rows| rows <= window), "{what}");

    // The page again, after the page of a feed of three authors (one seek per value): it sorts
    // the rows it found, a few, where the cached walk sorted the window's 2,048.
    feed_page(&mut conn, &[1, 2, 3], &first);
    let sorted = crate::reads::session_status(&mut conn, "Sort_rows");
    let again = feed_page(&mut conn, &set, &first);
    let sorted = crate::reads::session_status(&mut conn, "Sort_rows") - sorted;
    assert_eq!(ids(&again), expected[..4]);
    assert!(sorted <= 20, "the page sorted {sorted} rows");
}

/// Whether the optimizer trace `node` lists `index` among the potential range indexes as usable:
/// the range optimizer then analyses it (for an `IN (..)` of `n` values, `n` ranges to dive).
fn usable_for_range(node: &Value, index: &str) -> bool {
    match node {
        Value::Object(fields) => fields.iter().any(|(key, value)| match key.as_str() {
            "potential_range_indexes" => value.as_array().is_some_and(|indexes| {
                indexes.iter().any(|candidate| {
                    candidate["index"] == index && candidate["usable"] == Value::Bool(true)
                })
            }),
            _ => usable_for_range(value, index),
        }),
        Value::Array(values) => values.iter().any(|value| usable_for_range(value, index)),
        _ => false,
    }
}

/// The optimizer trace of `recorded`, analysed under `ANALYZE`, which plans it as a page would.
fn optimizer_trace(conn: &mut Conn, recorded: &Recorded) -> String {
    diesel::sql_query("SET optimizer_trace = 'enabled=on'").execute(conn).unwrap();
    let _: String = Again::<Text>::new("ANALYZE FORMAT=JSON ", recorded).get_result(conn).unwrap();
    let trace = diesel::dsl::sql::<Text>("(SELECT trace FROM information_schema.OPTIMIZER_TRACE)");
    diesel::select(trace).get_result(conn).unwrap()
}

/// A page of `Newest` among the posts of `authors`.
fn feed_page(
    conn: &mut Conn,
    authors: &[i64],
    request: &keyset_runtime::PageRequest,
) -> keyset_runtime::Page<keyset_tests::models::Newest> {
    use diesel::prelude::*;
    use keyset_runtime::Paginate;
    use keyset_tests::models::Newest;
    use keyset_tests::schema::posts;

    posts::table
        .select(Newest::as_select())
        .among(posts::author_id, authors.to_vec())
        .paginate(request)
        .unwrap()
        .load_page(conn)
        .unwrap()
}

/// The naive `eq_any` listing fails the check every feed page passes, its reasons counted rows.
#[test]
fn the_naive_listing_fails_the_same_check() {
    crate::suite::feeds::plan::the_naive_listing_fails_the_same_check();
}
