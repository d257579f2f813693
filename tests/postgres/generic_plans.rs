//! PostgreSQL plans a page's statement once for good: its `LIMIT` is written into the SQL (a bound
//! `LIMIT $n` keeps a statement on custom plans for ever under `plan_cache_mode = auto`), so after
//! five executions the server switches to a generic plan, and its cursor values are written
//! `(SELECT $n)`, so that no plan made for them looks cheaper near the top of the listing.
//! `pg_prepared_statements` counts them.
//! Every generic plan is checked to be the seek the custom ones are.

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use keyset_runtime::migration::Backend;
use keyset_runtime::{Keyset, PageRequest};
use keyset_tests::models::{Newest, RankDescNullsLast, TopScore};
use keyset_tests::schema::posts;

use crate::suite::db;

#[derive(QueryableByName, Debug)]
struct Prepared {
    #[diesel(sql_type = Text)]
    statement: String,
    #[diesel(sql_type = BigInt)]
    generic_plans: i64,
    #[diesel(sql_type = BigInt)]
    custom_plans: i64,
    #[diesel(sql_type = Text)]
    parameter_types: String,
}

fn prepared(conn: &mut PgConnection) -> Vec<Prepared> {
    diesel::sql_query(
        "SELECT statement, generic_plans, custom_plans, parameter_types::text AS parameter_types \
         FROM pg_prepared_statements \
         WHERE statement LIKE '%FROM \"posts\"%'",
    )
    .load(conn)
    .unwrap()
}

/// Walks the listing forward, `pages` pages of `limit` rows each, on one connection.
fn walk<Q>(conn: &mut PgConnection, limit: u32, pages: usize, query: impl Fn() -> Q)
where
    Q: keyset_runtime::PageQuery<'static, PgConnection>,
{
    let mut request = PageRequest::first(limit);
    for _ in 0..pages {
        let page = query().paginate(&request).unwrap().load_page(conn).unwrap();
        request = PageRequest::after(page.next_cursor.expect("more pages"), limit);
    }
}

#[test]
fn page_statements_switch_to_generic_plans() {
    let mut conn = db::seeded(5_000);
    for index in [Newest::INDEXES, TopScore::INDEXES].concat() {
        diesel::sql_query(index.create(Backend::Postgres)).execute(&mut conn).unwrap();
    }
    diesel::sql_query("ANALYZE posts").execute(&mut conn).unwrap();
    // Uniform directions (a row value) and mixed ones (the union of the tie levels).
    walk(&mut conn, 10, 12, || posts::table.select(Newest::as_select()));
    walk(&mut conn, 10, 12, || posts::table.select(TopScore::as_select()));
    let statements = prepared(&mut conn);
    let pages: Vec<&Prepared> =
        statements.iter().filter(|s| s.statement.contains("LIMIT 11")).collect();
    // One statement per order for the pages after a cursor, each run eleven times.
    let after: Vec<&&Prepared> = pages.iter().filter(|s| s.statement.contains("WHERE")).collect();
    assert_eq!(after.len(), 2, "{statements:#?}");
    let union = after.iter().filter(|s| s.statement.contains(") UNION ALL (")).count();
    assert_eq!(union, 1, "the mixed order's page is not its levels' union: {after:#?}");
    for statement in after {
        assert!(statement.generic_plans >= 5, "no generic plan: {statement:#?}");
        assert!(statement.custom_plans <= 5, "{statement:#?}");
        let plan = generic_plan(&mut conn, statement);
        assert!(plan.iter().any(|line| line.contains("Index Cond")), "{plan:#?}");
        assert!(!plan.iter().any(|line| line.contains("Seq Scan")), "{plan:#?}");
        assert_exact_seeks(&plan, 11);
    }
    assert!(
        statements.iter().all(|s| !s.statement.contains("LIMIT $")),
        "a page's LIMIT is bound: {statements:#?}"
    );
}

/// The second page, the page users ask for most after the first, asked for again and again:
/// near the top of the listing a plan made for the cursor's values (most rows pass `created_at
/// <= $1`) looks cheaper than the generic one, so with the values bound as parameters PostgreSQL
/// planned every execution anew (pages of 20 on these 5,000 rows: twelve custom plans of twelve).
/// Written `(SELECT $1)`, the values are known only when the statement runs, no custom plan
/// looks cheaper, and the server switches, in uniform, mixed and nullable orders.
#[test]
fn the_second_page_switches_to_a_generic_plan() {
    let mut conn = db::seeded(5_000);
    for index in [Newest::INDEXES, TopScore::INDEXES, RankDescNullsLast::INDEXES].concat() {
        diesel::sql_query(index.create(Backend::Postgres)).execute(&mut conn).unwrap();
    }
    diesel::sql_query("ANALYZE posts").execute(&mut conn).unwrap();
    fn second_page<Q>(conn: &mut PgConnection, query: impl Fn() -> Q)
    where
        Q: keyset_runtime::PageQuery<'static, PgConnection>,
    {
        let first = query().paginate(&PageRequest::first(20)).unwrap().load_page(conn).unwrap();
        let second = PageRequest::after(first.next_cursor.expect("a second page"), 20);
        for _ in 0..12 {
            query().paginate(&second).unwrap().load_page(conn).unwrap();
        }
    }
    second_page(&mut conn, || posts::table.select(Newest::as_select()));
    second_page(&mut conn, || posts::table.select(TopScore::as_select()));
    second_page(&mut conn, || posts::table.select(RankDescNullsLast::as_select()));
    let statements = prepared(&mut conn);
    let after: Vec<&Prepared> = statements
        .iter()
        .filter(|s| s.statement.contains("WHERE") && s.statement.contains("LIMIT 21"))
        .collect();
    assert_eq!(after.len(), 3, "one statement per order: {statements:#?}");
    for statement in after {
        assert!(statement.generic_plans >= 5, "planned anew every time: {statement:#?}");
        assert!(statement.custom_plans <= 5, "{statement:#?}");
        let plan = generic_plan(&mut conn, statement);
        assert_exact_seeks(&plan, 21);
    }
}

/// A nullable leading key (`rank DESC NULLS LAST, id DESC`, a tenth of the ranks NULL) walked to
/// its end: past a cursor among the values the page seeks a row value (no NULL can match
/// there), past a NULL cursor it tests `rank IS NULL` once. Written twice, as the leading bound
/// and in the chain, the test made the planner square its selectivity, so that on the orders
/// bench's 1,000,000 rows a statement deep in the NULLs kept custom plans for ever; on these
/// 5,000 rows both forms switch, so the test is counted in the SQL. Both statements switch to
/// generic plans that seek both columns, with nothing filtered after the seek.
#[test]
fn nullable_leading_key_statements_switch_to_generic_plans() {
    let mut conn = db::seeded(5_000);
    for index in RankDescNullsLast::INDEXES {
        diesel::sql_query(index.create(Backend::Postgres)).execute(&mut conn).unwrap();
    }
    diesel::sql_query("ANALYZE posts").execute(&mut conn).unwrap();
    walk(&mut conn, 10, 499, || posts::table.select(RankDescNullsLast::as_select()));
    let statements = prepared(&mut conn);
    let after = |shape: &str| {
        let found = statements.iter().find(|s| {
            s.statement.contains("WHERE")
                && s.statement.contains("LIMIT 11")
                && s.statement.contains(shape)
        });
        found.unwrap_or_else(|| panic!("no page statement with {shape:?}: {statements:#?}"))
    };
    let values = after(") < (");
    let nulls = after("\"rank\" IS NULL AND");
    assert_eq!(nulls.statement.matches("IS NULL").count(), 1, "{nulls:#?}");
    for statement in [values, nulls] {
        assert!(statement.generic_plans >= 5, "no generic plan: {statement:#?}");
        let plan = generic_plan(&mut conn, statement);
        // `(id < $1)` after the NULL test, `ROW(rank, id) < ROW($2, $3)` among the values.
        let seek = |line: &String| {
            line.contains("Index Cond") && (line.contains("(id <") || line.contains(", id)"))
        };
        assert!(plan.iter().any(seek), "{plan:#?}");
        assert!(
            !plan
                .iter()
                .any(|line| ["Filter", "Sort", "Seq Scan"].iter().any(|n| line.contains(n))),
            "{plan:#?}"
        );
    }
}

/// Every index scan of `plan` seeks (an `Index Cond`) with nothing filtered after it, and
/// nothing sorts more than the `limit` rows a branch of a union found (the Merge Append of a
/// union sorts the equality level's rows, which its ORDER BY does not know are in order; on
/// these few rows a bitmap scan may find that level's and sort them).
fn assert_exact_seeks(plan: &[String], limit: usize) {
    // `Index Scan`, `.. Backward`, `Index Only Scan`, `Bitmap Index Scan`.
    let scans = plan
        .iter()
        .filter(|line| line.contains("Index Scan") || line.contains("Only Scan"))
        .count();
    let seeks = plan.iter().filter(|line| line.trim_start().starts_with("Index Cond")).count();
    assert_eq!(scans, seeks, "an index scan without an Index Cond: {plan:#?}");
    assert!(!plan.iter().any(|line| line.contains("Filter:")), "{plan:#?}");
    let sorts = plan.iter().filter(|line| line.contains("->  Sort") || line.starts_with("Sort"));
    for sort in sorts {
        let rows = sort.split(" rows=").nth(1).and_then(|r| r.split(' ').next());
        let rows: usize = rows.and_then(|r| r.parse().ok()).unwrap_or(usize::MAX);
        assert!(rows <= limit, "a sort of more than a page: {plan:#?}");
    }
}

#[derive(QueryableByName)]
struct PlanLine {
    #[diesel(sql_type = Text, column_name = "QUERY PLAN")]
    line: String,
}

/// The generic plan of a prepared page statement (what the server runs once it has switched):
/// the statement prepared again under a name of its own, explained with
/// `plan_cache_mode = force_generic_plan`. The parameters' values do not shape a generic plan,
/// so any value of each type does.
fn generic_plan(conn: &mut PgConnection, statement: &Prepared) -> Vec<String> {
    let types: Vec<&str> = statement
        .parameter_types
        .trim_matches(|c| c == '{' || c == '}')
        .split(',')
        .map(|ty| ty.trim_matches('"'))
        .collect();
    let values: Vec<&str> = types
        .iter()
        .map(|&ty| match ty {
            "timestamp without time zone" => "'2023-11-14 22:13:32'",
            _ => "1",
        })
        .collect();
    // Typed as the page's statement was: a value written `(SELECT $1)` has no type of its own.
    let prepare =
        format!("PREPARE keyset_generic ({}) AS {}", types.join(", "), statement.statement);
    diesel::sql_query(prepare).execute(conn).unwrap();
    diesel::sql_query("SET plan_cache_mode = force_generic_plan").execute(conn).unwrap();
    let plan: Vec<PlanLine> =
        diesel::sql_query(format!("EXPLAIN EXECUTE keyset_generic({})", values.join(", ")))
            .load(conn)
            .unwrap();
    diesel::sql_query("RESET plan_cache_mode").execute(conn).unwrap();
    diesel::sql_query("DEALLOCATE keyset_generic").execute(conn).unwrap();
    plan.into_iter().map(|row| row.line).collect()
}
