//! The planner's row estimate, read off the JSON `EXPLAIN` of the listing's query
//! ([`Estimate`](super::sql::Estimate)). `None` where the plan holds none this reader knows:
//! the count is then a bounded one, and says so.

use crate::token::Engine;

/// The estimated rows of the query whose plan `json` is, as `engine` prints it.
pub(crate) fn estimated_rows(engine: Engine, json: &str) -> Option<u64> {
    match engine {
        Engine::Postgres => postgres_rows(json),
        Engine::Mysql => mysql_rows(json),
        Engine::Sqlite => None,
    }
}

#[cfg(not(any(feature = "postgres_backend", feature = "mysql_backend")))]
fn postgres_rows(_: &str) -> Option<u64> {
    None
}

#[cfg(not(any(feature = "postgres_backend", feature = "mysql_backend")))]
fn mysql_rows(_: &str) -> Option<u64> {
    None
}

/// PostgreSQL: `[{"Plan": {"Node Type": .., "Plan Rows": 1234, ..}}]`, the top node's rows,
/// which are the query's (a LIMIT or an aggregate above the scans is the top node).
#[cfg(any(feature = "postgres_backend", feature = "mysql_backend"))]
fn postgres_rows(json: &str) -> Option<u64> {
    let plan: serde_json::Value = serde_json::from_str(json).ok()?;
    rows(plan.get(0)?.get("Plan")?.get("Plan Rows")?)
}

/// MariaDB and MySQL: the query block's tables, one (`"table"`) or a join's
/// (`"nested_loop": [{"table": ..}, ..]`), under the sort or temporary table that may wrap them.
/// MariaDB gives each table access its `rows` read and the `filtered` percentage its condition
/// keeps; a nested loop runs each table once per row of those before it, so the query's rows
/// are the product of `rows × filtered / 100` over the tables. MySQL gives the product itself,
/// as the last table's `rows_produced_per_join`. A table the optimizer found empty, or a
/// condition it found false, prints a `message` instead (`Impossible WHERE`): no rows.
#[cfg(any(feature = "postgres_backend", feature = "mysql_backend"))]
fn mysql_rows(json: &str) -> Option<u64> {
    use serde_json::Value;

    let plan: Value = serde_json::from_str(json).ok()?;
    let block = plan.get("query_block")?;
    let tables = tables(block)?;
    if let Some(produced) = tables.last()?.get("rows_produced_per_join") {
        return rows(produced);
    }
    let mut estimate = 1.0;
    for table in tables {
        if table.get("message").is_some() && table.get("rows").is_none() {
            return Some(0);
        }
        let read = table.get("rows")?.as_f64()?;
        let kept = table.get("filtered").and_then(Value::as_f64).unwrap_or(100.0);
        estimate *= read * kept / 100.0;
    }
    Some(estimate.round() as u64)
}

/// The tables of a MariaDB or MySQL query block, in join order: under the `filesort`,
/// `temporary_table` or `duplicates_removal` that may wrap them, never in a subquery's block.
#[cfg(any(feature = "postgres_backend", feature = "mysql_backend"))]
fn tables(block: &serde_json::Value) -> Option<Vec<&serde_json::Value>> {
    if let Some(table) = block.get("table") {
        return Some(vec![table]);
    }
    if block.get("message").is_some() {
        // The whole block is empty (`"message": "Impossible WHERE"`): read as a table of no rows.
        return Some(vec![block]);
    }
    if let Some(joined) = block.get("nested_loop").and_then(serde_json::Value::as_array) {
        // Each item is `{"table": ..}`, or a join buffer around one (`{"block-nl-join":
        // {"table": ..}}`).
        fn table(item: &serde_json::Value) -> Option<&serde_json::Value> {
            item.get("table").or_else(|| item.as_object()?.values().find_map(|v| v.get("table")))
        }
        return joined.iter().map(table).collect();
    }
    ["filesort", "temporary_table", "duplicates_removal", "read_sorted_file"]
        .iter()
        .find_map(|wrapper| block.get(wrapper))
        .and_then(tables)
}

/// A row count as the planner prints it: a whole number, or one with decimals.
#[cfg(any(feature = "postgres_backend", feature = "mysql_backend"))]
fn rows(value: &serde_json::Value) -> Option<u64> {
    let rows = value.as_f64()?;
    (rows.is_finite() && rows >= 0.0).then(|| rows.round() as u64)
}

#[cfg(all(test, any(feature = "postgres_backend", feature = "mysql_backend")))]
mod tests {
    use super::estimated_rows;
    use crate::token::Engine;

    #[test]
    fn postgres_estimates_the_top_node() {
        let plan = r#"[{"Plan": {"Node Type": "Aggregate", "Plan Rows": 3, "Plans": [
            {"Node Type": "Seq Scan", "Plan Rows": 1000}]}}]"#;
        assert_eq!(estimated_rows(Engine::Postgres, plan), Some(3));
        assert_eq!(estimated_rows(Engine::Postgres, "[]"), None);
        assert_eq!(estimated_rows(Engine::Postgres, "not json"), None);
    }

    #[test]
    fn mariadb_multiplies_rows_by_filtered_along_the_join() {
        let one = r#"{"query_block": {"select_id": 1, "table": {"table_name": "posts",
            "access_type": "ALL", "rows": 1000, "filtered": 25}}}"#;
        assert_eq!(estimated_rows(Engine::Mysql, one), Some(250));
        let join = r#"{"query_block": {"select_id": 1, "nested_loop": [
            {"table": {"table_name": "posts", "rows": 1000, "filtered": 50}},
            {"block-nl-join": {"table": {"table_name": "authors", "rows": 2, "filtered": 100}}}]}}"#;
        assert_eq!(estimated_rows(Engine::Mysql, join), Some(1000));
        let sorted = r#"{"query_block": {"select_id": 1, "filesort": {"temporary_table":
            {"table": {"table_name": "posts", "rows": 40, "filtered": 100}}}}}"#;
        assert_eq!(estimated_rows(Engine::Mysql, sorted), Some(40));
        let empty =
            r#"{"query_block": {"select_id": 1, "table": {"message": "Impossible WHERE"}}}"#;
        assert_eq!(estimated_rows(Engine::Mysql, empty), Some(0));
        let mysql = r#"{"query_block": {"nested_loop": [{"table": {"rows_examined_per_scan": 10,
            "rows_produced_per_join": 4}}, {"table": {"rows_produced_per_join": 8}}]}}"#;
        assert_eq!(estimated_rows(Engine::Mysql, mysql), Some(8));
        assert_eq!(estimated_rows(Engine::Mysql, r#"{"query_block": {}}"#), None);
    }
}
