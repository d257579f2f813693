//! Query plans: check that a page query is served by an index seek, not a scan and a sort.
//!
//! Keyset pagination is only constant-cost with an index whose columns and directions match the
//! ORDER BY. These helpers run the engine's `EXPLAIN` on a query, with its real bound values, and
//! say whether the plan seeks; call them in your own tests to catch a missing or mismatched index.

use std::marker::PhantomData;

use diesel::backend::Backend;
use diesel::expression::TypedExpressionType;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::{SqlType, Text};
use diesel::{QueryResult, RunQueryDsl};

/// Why a plan check failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlanError {
    /// The plan scans or sorts: the reason, and the plan as the engine printed it, one line per
    /// step.
    #[error("the query is not an index seek: {reason}; the plan was:\n{}", plan.join("\n"))]
    NotASeek {
        /// What in the plan is not a seek (a scan, a sort).
        reason: String,
        /// The plan, one line per step.
        plan: Vec<String>,
    },
    /// `EXPLAIN` itself failed.
    #[error("EXPLAIN failed: {0}")]
    Database(#[from] diesel::result::Error),
}

/// `<prefix> <query>` (e.g. `EXPLAIN QUERY PLAN SELECT ..`) with the query's own bound values,
/// read as rows of `ST`.
struct Explain<'q, Q, ST> {
    prefix: &'static str,
    query: &'q Q,
    row: PhantomData<ST>,
}

fn explain<'q, Q, ST>(prefix: &'static str, query: &'q Q) -> Explain<'q, Q, ST> {
    Explain { prefix, query, row: PhantomData }
}

impl<Q: QueryFragment<DB>, ST, DB: Backend> QueryFragment<DB> for Explain<'_, Q, ST> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql(self.prefix);
        out.push_sql(" ");
        self.query.walk_ast(out)
    }
}

impl<Q, ST: SqlType + TypedExpressionType> Query for Explain<'_, Q, ST> {
    type SqlType = ST;
}

impl<Q, ST> QueryId for Explain<'_, Q, ST> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q, ST, Conn> RunQueryDsl<Conn> for Explain<'_, Q, ST> {}

/// Turns a list of (condition, reason) into a check result that shows the plan on failure.
fn verdict(plan: Vec<String>, problems: &[(bool, &str)]) -> Result<Vec<String>, PlanError> {
    match problems.iter().find(|(failed, _)| *failed) {
        Some((_, reason)) => Err(PlanError::NotASeek { reason: (*reason).to_owned(), plan }),
        None => Ok(plan),
    }
}

#[cfg(feature = "sqlite")]
/// SQLite's `EXPLAIN QUERY PLAN` of `query`: one line per step, e.g.
/// `SEARCH posts USING INDEX posts_created_at_id (created_at<?)`.
fn sqlite_plan<Q>(query: &Q, conn: &mut diesel::SqliteConnection) -> QueryResult<Vec<String>>
where
    Q: QueryFragment<diesel::sqlite::Sqlite>,
{
    // SQLite's columns: id, parent, notused, detail.
    let rows: Vec<(i32, i32, i32, String)> = explain::<
        _,
        (diesel::sql_types::Integer, diesel::sql_types::Integer, diesel::sql_types::Integer, Text),
    >("EXPLAIN QUERY PLAN", query)
    .load(conn)?;
    Ok(rows.into_iter().map(|(_, _, _, detail)| detail).collect())
}

#[cfg(feature = "sqlite")]
/// Checks that SQLite answers `query` with an index `SEARCH` and no sort (`USE TEMP B-TREE FOR
/// ORDER BY`). Returns the plan; on failure the error shows it.
///
/// ```
/// # use diesel::prelude::*;
/// # use keyset_runtime::Keyset;
/// # diesel::table! { posts (id) { id -> BigInt, created_at -> BigInt } }
/// # #[derive(Queryable, Selectable, Keyset)]
/// # struct Post { #[sort(desc)] created_at: i64, #[sort(desc)] #[tiebreaker] id: i64 }
/// let mut conn = SqliteConnection::establish(":memory:").unwrap();
/// diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY, created_at BIGINT NOT NULL)")
///     .execute(&mut conn).unwrap();
/// let page = posts::table
///     .select(Post::as_select())
///     .filter(Post::after(&PostCursor { created_at: 5, id: 9 }))
///     .order(Post::order_by())
///     .limit(21);
///
/// // No index on (created_at DESC, id DESC) yet: a scan and a sort.
/// let err = keyset_runtime::explain::sqlite_index_seek(&page, &mut conn).unwrap_err();
/// assert!(err.to_string().contains("TEMP B-TREE"));
///
/// diesel::sql_query("CREATE INDEX posts_created_at_id ON posts (created_at DESC, id DESC)")
///     .execute(&mut conn).unwrap();
/// let plan = keyset_runtime::explain::sqlite_index_seek(&page, &mut conn).unwrap();
/// assert!(plan[0].starts_with("SEARCH posts USING"), "{plan:?}");
/// assert!(plan[0].contains("INDEX posts_created_at_id"), "{plan:?}");
/// ```
pub fn sqlite_index_seek<Q>(
    query: &Q,
    conn: &mut diesel::SqliteConnection,
) -> Result<Vec<String>, PlanError>
where
    Q: QueryFragment<diesel::sqlite::Sqlite>,
{
    let plan = sqlite_plan(query, conn)?;
    let sorts = plan.iter().any(|step| step.contains("TEMP B-TREE"));
    // The first table read is the one the page walks (in a join, the others are looked up per
    // row): it must be sought, whatever the joined tables' lookups are.
    let driving = plan.iter().find(|step| step.starts_with("SEARCH") || step.starts_with("SCAN"));
    let seeks = driving.is_some_and(|step| step.starts_with("SEARCH"));
    verdict(
        plan,
        &[
            (sorts, "the rows are sorted after reading (USE TEMP B-TREE): no index matches the ORDER BY"),
            (!seeks, "no index SEARCH on the table the page walks: it is scanned"),
        ],
    )
}

/// PostgreSQL's `EXPLAIN` of `query`, one line per plan line.
#[cfg(feature = "postgres")]
fn postgres_plan<Q>(query: &Q, conn: &mut diesel::PgConnection) -> QueryResult<Vec<String>>
where
    Q: QueryFragment<diesel::pg::Pg>,
{
    explain::<_, Text>("EXPLAIN", query).load(conn)
}

/// Checks that PostgreSQL answers `query` with index scans whose `Index Cond` holds the seek,
/// no `Seq Scan`, and no `Sort` of more rows than the page (a `Merge Append` of per-partition
/// index scans is fine, and so is a top-N sort of the few rows that bitmap index scans found
/// near the end of a range). Returns the plan.
#[cfg(feature = "postgres")]
pub fn postgres_index_seek<Q>(
    query: &Q,
    conn: &mut diesel::PgConnection,
) -> Result<Vec<String>, PlanError>
where
    Q: QueryFragment<diesel::pg::Pg>,
{
    let plan = postgres_plan(query, conn)?;
    // Plan nodes are the first line and the lines starting with `->`; the others are a node's
    // properties (a `Merge Append` has a `Sort Key:` property but sorts nothing).
    let nodes: Vec<&str> = plan
        .iter()
        .enumerate()
        .filter_map(|(i, line)| {
            let line = line.trim_start();
            match line.strip_prefix("->") {
                Some(node) => Some(node.trim_start()),
                None => (i == 0).then_some(line),
            }
        })
        .collect();
    // A sort of no more rows than the page returns (the planner's estimates) is a top-N of rows
    // already found by index seeks, as when few rows remain; a larger one sorts the table's rest.
    let page_rows =
        nodes.first().filter(|n| n.starts_with("Limit")).and_then(|n| estimated_rows(n));
    let sorts = nodes.iter().any(|n| {
        (n.starts_with("Sort") || n.starts_with("Incremental Sort"))
            && !matches!((estimated_rows(n), page_rows), (Some(sorted), Some(page)) if sorted <= page)
    });
    let scans = nodes.iter().any(|n| n.starts_with("Seq Scan"));
    // The first index read is the table the page walks (in a join, the outer side; the others
    // are looked up per row): its own properties must hold the seek, not a joined table's.
    let seeks = driving_index_cond(&plan);
    verdict(
        plan,
        &[
            (
                sorts,
                "the rows are sorted after reading (a Sort node): no index matches the ORDER BY",
            ),
            (scans, "the table is scanned (Seq Scan), not sought in an index"),
            (!seeks, "no Index Cond: the index is read from its start, not sought to the cursor"),
        ],
    )
}

/// Whether the first index scan of a plan (in a join, the outer side's) has an `Index Cond`:
/// the property lines up to the next node are that node's.
#[cfg(feature = "postgres")]
fn driving_index_cond(plan: &[String]) -> bool {
    let mut driving = false;
    for (i, line) in plan.iter().enumerate() {
        let line = line.trim_start();
        let node = match line.strip_prefix("->") {
            Some(node) => Some(node.trim_start()),
            None => (i == 0).then_some(line),
        };
        match node {
            // The driving scan's properties ended without an `Index Cond`.
            Some(_) if driving => return false,
            Some(node) => driving = node.contains("Index Scan") || node.contains("Index Only Scan"),
            None if driving && line.starts_with("Index Cond") => return true,
            None => {}
        }
    }
    false
}

/// The planner's row estimate of a plan node: `Sort  (cost=1.0..1.1 rows=21 width=12)` → 21.
#[cfg(feature = "postgres")]
fn estimated_rows(node: &str) -> Option<u64> {
    let rest = &node[node.find(" rows=")? + 6..];
    rest[..rest.find(' ').unwrap_or(rest.len())].parse().ok()
}

/// MySQL's or MariaDB's `EXPLAIN FORMAT=JSON` of `query`, one line per JSON line.
#[cfg(feature = "mysql")]
fn mysql_plan<Q>(query: &Q, conn: &mut diesel::MysqlConnection) -> QueryResult<Vec<String>>
where
    Q: QueryFragment<diesel::mysql::Mysql>,
{
    let json: String = explain::<_, Text>("EXPLAIN FORMAT=JSON", query).get_result(conn)?;
    Ok(json.lines().map(str::to_owned).collect())
}

/// Checks that MySQL or MariaDB answers `query` with an index `range` access and no filesort.
/// Returns the plan.
#[cfg(feature = "mysql")]
pub fn mysql_index_seek<Q>(
    query: &Q,
    conn: &mut diesel::MysqlConnection,
) -> Result<Vec<String>, PlanError>
where
    Q: QueryFragment<diesel::mysql::Mysql>,
{
    let plan = mysql_plan(query, conn)?;
    let text = plan.join("\n");
    // MariaDB writes `"filesort": {..}`; MySQL writes `"using_filesort": true`.
    let sorts = text.contains("\"filesort\"") || text.contains("\"using_filesort\": true");
    // The first table of the plan is the one the page walks (in a join, the others are looked
    // up per row): its access must be the range.
    let range = text
        .split("\"access_type\": ")
        .nth(1)
        .is_some_and(|access| access.starts_with("\"range\""));
    verdict(
        plan,
        &[
            (sorts, "the rows are sorted after reading (filesort): no index matches the ORDER BY"),
            (!range, "no range access on the table the page walks: the index is not sought to the cursor"),
        ],
    )
}
