//! A table partitioned by range of its leading sort key, the usual time-series layout: pages that
//! cross partition boundaries are exact, and a page past a cursor reads only the partitions at and
//! past the cursor: those behind it are pruned (on the seek's leading bound, `created_at <= ?`; a
//! row comparison alone prunes nothing), and those ahead are not read once the page is full.

use diesel::prelude::*;
use diesel::sql_types::Text;
use keyset_runtime::{Keyset, PageRequest, Paginate};
use keyset_tests::walk::{self, cursors};

use crate::connect;

diesel::table! {
    monthly (id) {
        id -> BigInt,
        created_at -> Timestamp,
    }
}

#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = monthly)]
struct Monthly {
    #[sort(desc)]
    created_at: chrono::NaiveDateTime,
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
}

#[derive(QueryableByName)]
struct Line {
    #[diesel(sql_type = Text, column_name = "QUERY PLAN")]
    line: String,
}

#[derive(QueryableByName)]
struct Statement {
    #[diesel(sql_type = Text)]
    statement: String,
}

fn execute(conn: &mut PgConnection, sql: &str) {
    diesel::sql_query(sql).execute(conn).unwrap();
}

/// Four monthly partitions of 10,000 rows each, 100 rows per timestamp.
fn partitioned() -> PgConnection {
    let mut conn = connect();
    execute(&mut conn, "CREATE TEMPORARY TABLE monthly (id BIGINT NOT NULL, created_at TIMESTAMP NOT NULL) PARTITION BY RANGE (created_at)");
    for month in 1..=4 {
        execute(
            &mut conn,
            &format!("CREATE TEMPORARY TABLE monthly_{month} PARTITION OF monthly FOR VALUES FROM ('2024-0{month}-01') TO ('2024-0{}-01')", month + 1),
        );
    }
    for index in Monthly::INDEXES {
        execute(&mut conn, index.create(keyset_runtime::migration::Backend::Postgres));
    }
    // 100 rows per timestamp, 100 timestamps per month, ids shuffled against time.
    execute(
        &mut conn,
        "INSERT INTO monthly SELECT (g * 7919) % 40000, \
         TIMESTAMP '2024-01-01' + ((g / 100) / 100) * INTERVAL '1 month' + ((g / 100) % 100) * INTERVAL '1 hour' \
         FROM generate_series(0, 39999) g",
    );
    execute(&mut conn, "ANALYZE monthly");
    conn
}

#[test]
fn pages_across_partitions_are_exact() {
    let mut conn = partitioned();
    let expected = monthly::table
        .order((monthly::created_at.desc(), monthly::id.desc()))
        .select(Monthly::as_select())
        .load(&mut conn)
        .unwrap();
    assert_eq!(expected.len(), 40_000);
    let query = || monthly::table.select(Monthly::as_select());
    // 1,700 does not divide a month's 10,000 rows: pages straddle every boundary.
    assert_eq!(cursors(&walk::forward(&mut conn, 1_700, query)), cursors(&expected));
    assert_eq!(cursors(&walk::backward(&mut conn, 1_700, query)), cursors(&expected));
}

/// The plan of the page of 20 rows after the row at `depth` (newest first), as the server runs
/// the statement that `load_page` prepared for it: the statement read back from
/// `pg_prepared_statements`, explained with the cursor's values and run (`ANALYZE`) under the
/// plan cache mode given.
fn page_plan(conn: &mut PgConnection, depth: i64, mode: &str) -> Vec<String> {
    use keyset_runtime::__testing::token;
    let row: Monthly = monthly::table
        .order((monthly::created_at.desc(), monthly::id.desc()))
        .select(Monthly::as_select())
        .offset(depth)
        .first(conn)
        .unwrap();
    let cursor = row.cursor();
    let after =
        token::encode(Monthly::FINGERPRINT, keyset_runtime::Direction::After, &cursor).unwrap();
    let page = monthly::table
        .select(Monthly::as_select())
        .paginate(&PageRequest::after(after, 20))
        .unwrap()
        .load_page(conn)
        .unwrap();
    assert_eq!(page.items.len(), 20);
    let [prepared] = &diesel::sql_query(
        "SELECT statement FROM pg_prepared_statements \
         WHERE statement LIKE '%FROM \"monthly\" WHERE%'",
    )
    .load::<Statement>(conn)
    .unwrap()[..] else {
        panic!("one page statement after a cursor")
    };
    let at = format!("'{}'", cursor.created_at.format("%Y-%m-%d %H:%M:%S%.f"));
    // Typed as `load_page` prepared it: a value written `(SELECT $1)` has no type of its own.
    let types = "timestamp, timestamp, bigint";
    execute(conn, &format!("PREPARE keyset_page ({types}) AS {}", prepared.statement));
    execute(conn, &format!("SET plan_cache_mode = {mode}"));
    let plan: Vec<Line> = diesel::sql_query(format!(
        "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE keyset_page({at}, {at}, {})",
        cursor.id
    ))
    .load(conn)
    .unwrap();
    execute(conn, "RESET plan_cache_mode");
    execute(conn, "DEALLOCATE keyset_page");
    plan.into_iter().map(|line| line.line).collect()
}

/// How the plan reads partition `month`: `None` when it is pruned away.
fn partition(plan: &[String], month: u32) -> Option<&str> {
    let name = format!(" on monthly_{month} ");
    plan.iter().find(|line| line.contains(&name)).map(|line| {
        if line.contains("never executed") {
            "never executed"
        } else {
            "read"
        }
    })
}

/// At a cursor in March (newest first: April, March, February, January), a page reads March
/// only: April, behind the cursor, is pruned; February and January, ahead, are never executed.
/// A page that crosses into February reads both and never January. The cursor's values are
/// written `(SELECT $n)` (see `generic_plans.rs`), known once the statement runs, so the pruning
/// is done then, under either plan: April's scan stays in the plan, never executed, where the
/// Append, which runs its partitions newest first, would otherwise have run it first.
#[test]
fn a_page_reads_only_the_partitions_at_and_past_its_cursor() {
    let mut conn = partitioned();
    for mode in ["force_custom_plan", "force_generic_plan"] {
        let plan = page_plan(&mut conn, 15_000, mode);
        let reads: Vec<_> = (1..=4).map(|month| partition(&plan, month)).collect();
        assert_eq!(
            reads,
            [Some("never executed"), Some("never executed"), Some("read"), Some("never executed")],
            "{mode}: {plan:#?}"
        );
        assert!(plan.iter().any(|line| line.contains("Index Cond")), "{plan:#?}");
        assert!(!plan.iter().any(|line| line.contains("Sort")), "{plan:#?}");
        let crossing = page_plan(&mut conn, 19_990, mode);
        let reads: Vec<_> = (1..=4).map(|month| partition(&crossing, month)).collect();
        assert_eq!(
            reads,
            [Some("never executed"), Some("read"), Some("read"), Some("never executed")],
            "{mode}: {crossing:#?}"
        );
    }
}
