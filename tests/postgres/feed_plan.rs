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
use serde_json::Value;

use crate::suite::feeds::plan::{FeedPlan, Read};
use crate::suite::feeds::recorded::{Again, Recorded};
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
