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
    use diesel::prelude::*;
    use diesel::sql_types::Text;
    use keyset_runtime::{PageRequest, Paginate};
    use keyset_tests::models::Newest;
    use keyset_tests::schema::posts;

    let mut conn = crate::suite::db::seeded(90);
    let page = |conn: &mut Conn, request: &PageRequest| {
        posts::table
            .select(Newest::as_select())
            .among(posts::author_id, vec![1, 2, 3])
            .paginate(request)
            .unwrap()
            .load_page(conn)
            .unwrap()
    };
    let first = page(&mut conn, &PageRequest::first(3));
    let after = PageRequest::after(first.next_cursor.unwrap(), 3);
    let (_, ran) = crate::suite::feeds::recorded(&mut conn, |conn| page(conn, &after));
    assert_eq!(ran.len(), 1, "{ran:#?}");
    let recorded = Recorded::parse(&ran[0]);
    let settings = "/*M! SET STATEMENT optimizer_switch='index_merge=off' FOR */ ";
    assert!(recorded.sql[0].starts_with(settings), "{}", ran[0]);
    let mut without = recorded.clone();
    without.sql[0] = without.sql[0][settings.len()..].to_owned();

    // The trace of the statement analysed under `ANALYZE`, which plans it as a page would.
    let mut merges = |recorded: &Recorded| {
        diesel::sql_query("SET optimizer_trace = 'enabled=on'").execute(&mut conn).unwrap();
        let _: String =
            Again::<Text>::new("ANALYZE FORMAT=JSON ", recorded).get_result(&mut conn).unwrap();
        let trace: String = diesel::select(diesel::dsl::sql::<Text>(
            "(SELECT trace FROM information_schema.OPTIMIZER_TRACE)",
        ))
        .get_result(&mut conn)
        .unwrap();
        trace.matches("\"analyzing_index_merge_union\"").count()
    };
    assert_eq!(merges(&recorded), 0, "{}", ran[0]);
    assert!(merges(&without) >= 3, "the statement without its settings weighs index merges");
}
