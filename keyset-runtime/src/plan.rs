//! Query plans: check that a page query is served by an index seek, not a scan and a sort.
//!
//! Keyset pagination is only constant-cost with an index whose columns and directions match the
//! ORDER BY. These helpers run the engine's `EXPLAIN` on a query, with its real bound values, and
//! say whether the plan seeks; call them in your own tests to catch a missing or mismatched index.

use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::{Integer, Text};
use diesel::{QueryResult, RunQueryDsl};

/// Why a plan check failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlanError {
    /// The plan scans or sorts: the reason, and the plan as the engine printed it, one line per
    /// step.
    #[error("the query is not an index seek: {reason}; the plan was:\n{}", plan.join("\n"))]
    NotASeek { reason: String, plan: Vec<String> },
    /// `EXPLAIN` itself failed.
    #[error("EXPLAIN failed: {0}")]
    Database(#[from] diesel::result::Error),
}

/// `EXPLAIN QUERY PLAN <query>` with the query's own bound values.
struct ExplainQueryPlan<'q, Q>(&'q Q);

impl<Q: QueryFragment<diesel::sqlite::Sqlite>> QueryFragment<diesel::sqlite::Sqlite>
    for ExplainQueryPlan<'_, Q>
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, diesel::sqlite::Sqlite>) -> QueryResult<()> {
        out.push_sql("EXPLAIN QUERY PLAN ");
        self.0.walk_ast(out)
    }
}

impl<Q> Query for ExplainQueryPlan<'_, Q> {
    /// SQLite's columns: id, parent, notused, detail.
    type SqlType = (Integer, Integer, Integer, Text);
}

impl<Q> QueryId for ExplainQueryPlan<'_, Q> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q, Conn> RunQueryDsl<Conn> for ExplainQueryPlan<'_, Q> {}

/// SQLite's `EXPLAIN QUERY PLAN` of `query`: one line per step, e.g.
/// `SEARCH posts USING INDEX posts_created_at_id (created_at<?)`.
pub fn sqlite_plan<Q>(query: &Q, conn: &mut diesel::SqliteConnection) -> QueryResult<Vec<String>>
where
    Q: QueryFragment<diesel::sqlite::Sqlite>,
{
    let rows: Vec<(i32, i32, i32, String)> = ExplainQueryPlan(query).load(conn)?;
    Ok(rows.into_iter().map(|(_, _, _, detail)| detail).collect())
}

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
/// let err = keyset_runtime::plan::sqlite_index_seek(&page, &mut conn).unwrap_err();
/// assert!(err.to_string().contains("TEMP B-TREE"));
///
/// diesel::sql_query("CREATE INDEX posts_created_at_id ON posts (created_at DESC, id DESC)")
///     .execute(&mut conn).unwrap();
/// let plan = keyset_runtime::plan::sqlite_index_seek(&page, &mut conn).unwrap();
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
    let reason = if plan.iter().any(|step| step.contains("TEMP B-TREE")) {
        Some("the rows are sorted after reading (USE TEMP B-TREE): no index matches the ORDER BY")
    } else if !plan.iter().any(|step| step.starts_with("SEARCH")) {
        Some("no index SEARCH: the table is scanned")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(PlanError::NotASeek { reason: reason.to_owned(), plan }),
        None => Ok(plan),
    }
}
