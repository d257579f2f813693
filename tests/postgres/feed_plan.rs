//! A feed's statement as PostgreSQL runs it (`EXPLAIN (ANALYZE, FORMAT JSON)`), for
//! `suite/feeds/plan.rs`: each scan of `posts` (an `Index Scan`, `Index Only Scan`, `Bitmap Heap
//! Scan` with its `Bitmap Index Scan`, or `Seq Scan`) with its index, whether its `Index Cond`
//! is an equality on `author_id`, the rows it read per loop (those it returned and those its
//! filters removed) and its loops, and whether a `Sort` lies between it and the `Limit` above it;
//! and each sort with the rows it sorted (its input's rows times loops).

use diesel::pg::Pg;
use diesel::query_builder::AstPass;
use diesel::sql_types::{Array, BigInt, Text};
use diesel::{QueryResult, RunQueryDsl};
use keyset_runtime::PageRequest;
use serde_json::Value;

use crate::suite::feeds::plan::{seeded, FeedPlan, Read, AUTHORS, FEED_INDEX, PAGE};
use crate::suite::feeds::recorded::{Again, Recorded};
use crate::suite::feeds::{feed, recorded as run_recorded};
use crate::Conn;

/// The set of values, one array.
pub fn push_array<'b>(mut out: AstPass<'_, 'b, Pg>, values: &'b Vec<i64>) -> QueryResult<()> {
    out.push_bind_param::<Array<BigInt>, _>(values)
}

pub fn plan(conn: &mut Conn, recorded: &Recorded) -> FeedPlan {
    // Planned as a table too large to scan whole, as the bench's 1,000,000 rows are: on the
    // tests' 4,000 the planner fetches 21 rows by key with a scan and a hash of the table.
    diesel::sql_query("SET enable_seqscan = off").execute(conn).unwrap();
    let json: String =
        Again::<Text>::new("EXPLAIN (ANALYZE, FORMAT JSON) ", recorded).get_result(conn).unwrap();
    diesel::sql_query("RESET enable_seqscan").execute(conn).unwrap();
    let json: Value = serde_json::from_str(&json).unwrap();
    let root = &json[0]["Plan"];
    let mut plan = FeedPlan { reads: Vec::new(), sorts: Vec::new(), text: String::new() };
    walk(root, false, 0, &mut plan);
    plan
}

fn number(node: &Value, key: &str) -> f64 {
    node.get(key).and_then(Value::as_f64).unwrap_or(0.0)
}

/// Reads `node` and its children into `plan`; `sorting`: a `Sort` lies between `node` and the
/// nearest `Limit` above it.
fn walk(node: &Value, sorting: bool, depth: usize, plan: &mut FeedPlan) {
    let kind = node["Node Type"].as_str().unwrap();
    let children = node.get("Plans").and_then(Value::as_array).cloned().unwrap_or_default();
    plan.text.push_str(&format!(
        "{}{kind} {} {} rows={} (estimated {}) loops={} removed={} cond={}\n",
        "  ".repeat(depth),
        node.get("Relation Name").and_then(Value::as_str).unwrap_or(""),
        node.get("Index Name").and_then(Value::as_str).unwrap_or(""),
        number(node, "Actual Rows"),
        number(node, "Plan Rows"),
        number(node, "Actual Loops"),
        number(node, "Rows Removed by Filter"),
        node.get("Index Cond").and_then(Value::as_str).unwrap_or(""),
    ));
    if node.get("Relation Name").and_then(Value::as_str) == Some("posts") {
        // A bitmap heap scan's index and condition are its bitmap index scan's.
        let source = match kind {
            "Bitmap Heap Scan" => &children[0],
            _ => node,
        };
        let index = source.get("Index Name").and_then(Value::as_str).unwrap_or("").to_owned();
        let cond = source.get("Index Cond").and_then(Value::as_str).unwrap_or("");
        let prefix = cond.contains("author_id = ") && !cond.contains("ANY");
        let rows = number(node, "Actual Rows")
            + number(node, "Rows Removed by Filter")
            + number(node, "Rows Removed by Index Recheck");
        let loops = Some(number(node, "Actual Loops"));
        let by_key = cond.contains("id = ") && !cond.contains("author_id");
        let (rows, sorted, tie_group) = (Some(rows), sorting, false);
        let read = Read { index, prefix, by_key, rows, loops, sorted, tie_group };
        plan.reads.push(read);
    }
    let is_sort = kind == "Sort" || kind == "Incremental Sort";
    if is_sort {
        let sorted: f64 = children
            .iter()
            .map(|child| number(child, "Actual Rows") * number(child, "Actual Loops"))
            .sum();
        plan.sorts.push(Some(sorted));
    }
    let sorting = match kind {
        "Limit" => false,
        _ => sorting || is_sort,
    };
    for child in &children {
        walk(child, sorting, depth + 1, plan);
    }
}

/// The naive `eq_any` listing fails the check every feed page passes, its reasons counted rows.
#[test]
fn the_naive_listing_fails_the_same_check() {
    crate::suite::feeds::plan::the_naive_listing_fails_the_same_check();
}

/// A page among at least a page's values reads each value's first entry of the feed's index,
/// then seeks again only the values whose first rows can enter the page, held to the last of
/// those (`sql/members/lateral.rs`): at most `|set| + (limit + 1)²` entries in all, one
/// statement. Seeking every value reads `|set| × (limit + 1)`: among all 40 authors, each with a
/// hundred posts, 840 entries where this allows 481, and every value sought twice.
#[test]
fn a_feed_among_many_values_reads_their_first_rows_then_only_those_that_can_enter_the_page() {
    let mut conn = seeded();
    let authors: Vec<i64> = (1..=AUTHORS).collect();
    let page = |conn: &mut Conn, request: &PageRequest| feed(conn, &authors, request).unwrap();
    let deep = page(&mut conn, &PageRequest::page_number(3, PAGE));
    let requests = [
        PageRequest::first(PAGE),
        PageRequest::last(PAGE),
        PageRequest::after(deep.next_cursor.unwrap(), PAGE),
        PageRequest::before(deep.prev_cursor.unwrap(), PAGE),
    ];
    let per_seek = f64::from(PAGE + 1);
    for request in requests {
        let (loaded, ran) = run_recorded(&mut conn, |conn| page(conn, &request));
        assert_eq!(loaded.items.len(), PAGE as usize, "{request:?}");
        assert_eq!(ran.len(), 1, "{request:?}: one statement: {ran:#?}");
        let plan = plan(&mut conn, &Recorded::parse(&ran[0]));
        let what = format!("{request:?}: {}\n{}", ran[0], plan.text);
        let feed: Vec<&Read> = plan.reads.iter().filter(|read| read.index == FEED_INDEX).collect();
        let (heads, again): (Vec<&Read>, Vec<&Read>) = feed.iter().partition(|read| {
            read.prefix && read.loops == Some(AUTHORS as f64) && read.rows <= Some(1.0)
        });
        assert_eq!(heads.len(), 1, "no one read of one entry per value: {what}");
        // The values sought again: those whose first row is at or before the page's last
        // possible row, about a page of them (ties aside), not every value.
        let sought: f64 = again.iter().map(|read| read.loops.unwrap_or(1.0)).sum();
        assert!(sought < AUTHORS as f64, "every value sought again ({sought}): {what}");
        let entries: f64 =
            feed.iter().map(|read| read.rows.unwrap_or(0.0) * read.loops.unwrap_or(1.0)).sum();
        let allowed = AUTHORS as f64 + per_seek * per_seek;
        assert!(entries <= allowed, "{entries} entries read, more than {allowed}: {what}");
    }
}

/// A page among integers builds no hash table and sorts no row after it fetched them: the list
/// is bound without its repeats (no `DISTINCT`) and the query's rows are joined to the keys the
/// seeks found (no `IN`), which come in the page's order. With `SELECT DISTINCT unnest($1)` and
/// `(created_at, id) IN (..)` each page built two hash tables and sorted its rows again. Among
/// fewer values than a page and among more, repeats in the list.
#[test]
fn a_feed_among_integers_hashes_nothing_and_sorts_no_row_after_the_join() {
    let mut conn = seeded();
    let few: Vec<i64> = vec![1, 2, 2, 3, 3, 3];
    let many: Vec<i64> = (1..=AUTHORS).chain(1..=5).collect();
    for authors in [few, many] {
        let first = PageRequest::first(PAGE);
        let (loaded, ran) = run_recorded(&mut conn, |conn| feed(conn, &authors, &first).unwrap());
        assert_eq!(loaded.items.len(), PAGE as usize, "{authors:?}");
        assert_eq!(ran.len(), 1, "{authors:?}: one statement: {ran:#?}");
        let plan = plan(&mut conn, &Recorded::parse(&ran[0]));
        let what = format!("{authors:?}: {}\n{}", ran[0], plan.text);
        let hashes = ["HashAggregate", "Hash Join", "Hash Semi Join", "Hash ", "Unique", "SetOp"];
        for line in plan.text.lines() {
            let kind = line.trim_start();
            assert!(!hashes.iter().any(|hash| kind.starts_with(hash)), "{kind}: {what}");
        }
        let rows: Vec<&Read> = plan.reads.iter().filter(|read| read.by_key).collect();
        assert!(!rows.is_empty(), "no row fetched by its keys: {what}");
        assert!(rows.iter().all(|read| !read.sorted), "rows sorted after the join: {what}");
    }
}

#[derive(diesel::QueryableByName, Debug)]
struct Prepared {
    #[diesel(sql_type = Text)]
    statement: String,
    #[diesel(sql_type = BigInt)]
    generic_plans: i64,
}

/// That statement is planned once for good, as every page's is (`generic_plans.rs`): each value's
/// first row is `LIMIT 1`, written into the SQL with the page's limits, so after five executions
/// PostgreSQL switches to a generic plan. Bound, the limit kept it on custom plans, planned anew
/// at every page.
#[test]
fn a_feed_among_many_values_is_planned_once() {
    let mut conn = seeded();
    let authors: Vec<i64> = (1..=AUTHORS).collect();
    for _ in 0..8 {
        let page = feed(&mut conn, &authors, &PageRequest::first(PAGE)).unwrap();
        assert_eq!(page.items.len(), PAGE as usize);
    }
    let prepared: Vec<Prepared> = diesel::sql_query(
        "SELECT statement, generic_plans FROM pg_prepared_statements \
         WHERE statement LIKE '%__keyset_heads%'",
    )
    .load(&mut conn)
    .unwrap();
    assert_eq!(prepared.len(), 1, "{prepared:#?}");
    assert!(!prepared[0].statement.contains("LIMIT $"), "{prepared:#?}");
    assert!(prepared[0].generic_plans >= 3, "planned anew at every page: {prepared:#?}");
}
