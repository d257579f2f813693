//! PostgreSQL's page among a set of values: the seeks `LATERAL`-joined to the values, passed as
//! one array, in one of two forms.
//!
//! **Every value sought** (a set smaller than the page, or a nullable key):
//!
//! ```sql
//! SELECT "__keyset_row".* FROM (
//!   SELECT "__keyset_page"."created_at", "__keyset_page"."id"
//!   FROM (SELECT unnest($1)) AS "__keyset_set"("__keyset_v")
//!   CROSS JOIN LATERAL (branch) AS "__keyset_page" ORDER BY .. LIMIT n
//! ) AS "__keyset_keys" JOIN (query) AS "__keyset_row" USING ("created_at", "id")
//! ORDER BY .. LIMIT n
//! ```
//!
//! the branch filtered by `column = "__keyset_set"."__keyset_v"`. The seeks read only the keys
//! (the branch's other output columns are unused, and PostgreSQL computes none of them): an
//! index-only scan of the prefix's index per value, and the page's rows fetched once each, by
//! their keys. Selecting whole rows in the seeks fetched every candidate, `|set| × (limit + 1)`
//! rows, and under a generic plan PostgreSQL chose a bitmap scan that sorted each value's rows
//! (199 ms against 4.3 for 100 values, deep in the feed); the index-only form took 1.4 to 2.1 ms
//! under both plans (measured by hand, 1M rows). With a nullable key the rows are the seeks' own
//! (`SELECT "__keyset_page".* FROM ..`): `IN` matches no NULL.
//!
//! The values are bound without their repeats ([`Merge::All`]) where equal values are written
//! alike (integers, UUIDs), so that the seeks find distinct rows, joined to the keys in the
//! keys' order (no sort after the join). Other values (text, which a collation may hold equal in
//! another case) keep `SELECT DISTINCT unnest($1)`, and the query's rows are matched by
//! `("created_at", "id") IN (..)`, which keeps a row two values find once ([`Merge::Distinct`]). The join and
//! the bare `unnest` took 132 µs of the server's time where the `DISTINCT` and `IN` took 153,
//! for a first page of 10 authors (a hand-written `LATERAL` 131: 1M posts, by `EXPLAIN ANALYZE`).
//!
//! **The values' first rows first** ([`Members::headed`], a set of at least `n` values):
//!
//! ```sql
//! SELECT "__keyset_row".* FROM (
//!   WITH "__keyset_heads" AS MATERIALIZED (          -- each value's first row: one entry each
//!     SELECT "__keyset_set"."__keyset_v", "__keyset_page"."created_at", "__keyset_page"."id"
//!     FROM (SELECT unnest($1)) AS "__keyset_set"("__keyset_v")
//!     CROSS JOIN LATERAL (branch .. LIMIT 1) AS "__keyset_page"),
//!   "__keyset_top" AS MATERIALIZED (                 -- the first n of them
//!     SELECT "created_at", "id" FROM "__keyset_heads" ORDER BY .. LIMIT n)
//!   SELECT "created_at", "id" FROM (
//!     (SELECT .. FROM "__keyset_heads" AS "__keyset_set" CROSS JOIN LATERAL
//!        (branch AND created_at >= (SELECT min("created_at") FROM "__keyset_top") .. LIMIT n)
//!      WHERE (SELECT count(*) FROM "__keyset_top") >= n
//!        AND "__keyset_set"."created_at" >= (SELECT min("created_at") FROM "__keyset_top"))
//!     UNION ALL
//!     (SELECT .. FROM "__keyset_heads" AS "__keyset_set" CROSS JOIN LATERAL (branch .. LIMIT n)
//!      WHERE (SELECT count(*) FROM "__keyset_top") < n)
//!   ) AS "__keyset_merge" ORDER BY .. LIMIT n
//! ) AS "__keyset_keys" JOIN (query) AS "__keyset_row" USING (..) ORDER BY .. LIMIT n
//! ```
//!
//! The first `n` of the values' first rows are `n` rows of the set at or before the last of
//! them (`T`), so the page holds no row after `T`: only the values whose first row is at or
//! before `T` are sought again, each held to `T`'s leading value (a range of its index, the
//! rest of `T`'s tie group included). Where fewer than `n` values have a row past the cursor,
//! those values are sought without the bound. Only one of the two branches runs: each is
//! guarded by a condition on `"__keyset_top"` alone, which PostgreSQL evaluates once, before
//! the branch (a one-time filter). A page so reads one entry per value, then at most `n`
//! entries for each of the values that can enter it (about `n` of them, ties at `T` aside):
//! at most `|set| + n²` entries, near `|set| + n` where the page's rows come from many values;
//! seeking every value read up to `n` per value and sorted them all: for 100 authors, 0.50 ms
//! against 0.71; for 1,000, 3.9–4.1 against 6.6–7.1 (measured by hand with pgbench, 1M posts,
//! first pages; 50 pages deep, 0.71–0.84 against 0.92–1.06 and 4.9 against 7.8).

use diesel::query_builder::{AstPass, QueryFragment};
use diesel::serialize::ToSql;
use diesel::sql_types::HasSqlType;
use diesel::QueryResult;

use super::TOP_ALIAS;
use super::{walk_row_source, walk_rows_of, walk_top_bound, Members, Merge, PAGE_ALIAS, ROW_ALIAS};
use crate::orders::SortOrder;
use crate::sql::dialect::SeekDialect;
use crate::sql::keys::{KeyShape, SortColumns};
use crate::sql::limit::limit;
use crate::sql::member::{SET_ALIAS, SET_COLUMN};
use crate::sql::walk::Walk;

type Pg = diesel::pg::Pg;

/// The values' first rows, the source of the seeks that follow them.
const HEADS_ALIAS: &str = "__keyset_heads";
/// The keys of the page's rows, which the query's rows are joined to.
const KEYS_ALIAS: &str = "__keyset_keys";
/// The merge of the two guarded branches that follow the first rows.
const MERGE_ALIAS: &str = "__keyset_merge";

impl<S, M, W, C, V, R> QueryFragment<Pg> for Members<S, M, W, C, V, R>
where
    S: QueryFragment<Pg>,
    R: QueryFragment<Pg>,
    M: SortOrder,
    M::Columns: SortColumns<Pg>,
    W: Walk,
    C: diesel::Expression<SqlType: 'static>,
    Pg: HasSqlType<C::SqlType>,
    V: ToSql<C::SqlType, Pg>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        let Some(branch) = self.branches.first() else {
            let none = "a page among a set of values with no seek to join to them";
            return Err(diesel::result::Error::QueryBuilderError(none.into()));
        };
        // Without the query (a nullable key, whose NULLs no `IN` matches), the seeks' rows.
        let Some(outer) = &self.outer else {
            out.push_sql("SELECT ");
            out.push_identifier(PAGE_ALIAS)?;
            out.push_sql(".*");
            self.walk_sought(out.reborrow(), branch)?;
            return self.walk_tail(out);
        };
        match self.merge {
            // Distinct values find distinct rows: the query's rows joined to their keys.
            Merge::All => {
                out.push_sql("SELECT ");
                out.push_identifier(ROW_ALIAS)?;
                out.push_sql(".* FROM (");
                self.walk_found(out.reborrow(), branch)?;
                out.push_sql(") AS ");
                out.push_identifier(KEYS_ALIAS)?;
                out.push_sql(" JOIN ");
                walk_row_source(out.reborrow(), outer)?;
                out.push_sql(" USING (");
                self.walk_keys(out.reborrow(), None)?;
                out.push_sql(")");
            }
            // Two values may find one row: the query's rows whose keys the seeks found.
            Merge::Distinct => {
                walk_rows_of(out.reborrow(), outer)?;
                out.push_sql(" (");
                self.walk_keys(out.reborrow(), Some(ROW_ALIAS))?;
                out.push_sql(") IN (");
                self.walk_found(out.reborrow(), branch)?;
                out.push_sql(")");
            }
        }
        self.walk_tail(out)
    }
}

impl<S, M, W, C, V, R> Members<S, M, W, C, V, R>
where
    S: QueryFragment<Pg>,
    M: SortOrder,
    M::Columns: SortColumns<Pg>,
    W: Walk,
    C: diesel::Expression<SqlType: 'static>,
    Pg: HasSqlType<C::SqlType>,
    V: ToSql<C::SqlType, Pg>,
{
    /// The keys' output columns, `"created_at", "id"`, qualified by `of`.
    fn walk_keys(&self, mut out: AstPass<'_, '_, Pg>, of: Option<&str>) -> QueryResult<()> {
        for (index, name) in self.names.iter().enumerate() {
            out.push_sql(if index > 0 { ", " } else { "" });
            if let Some(of) = of {
                out.push_identifier(of)?;
                out.push_sql(".");
            }
            out.push_identifier(name)?;
        }
        Ok(())
    }

    /// The keys of the page's rows: those the seeks found, first by the page's order, or the
    /// values' first rows first ([`Members::headed`]).
    fn walk_found<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>, branch: &'b S) -> QueryResult<()> {
        if self.headed {
            return self.walk_headed(out);
        }
        out.push_sql("SELECT ");
        self.walk_keys(out.reborrow(), Some(PAGE_ALIAS))?;
        self.walk_sought(out.reborrow(), branch)?;
        self.walk_tail(out)
    }

    /// ` FROM (SELECT unnest($1)) AS "__keyset_set"("__keyset_v") CROSS JOIN LATERAL (branch)
    /// AS "__keyset_page"`: `branch` sought once per value. `SELECT DISTINCT unnest($1)` where
    /// the database may hold two values equal ([`Merge::Distinct`]).
    fn walk_sought<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>, branch: &'b S) -> QueryResult<()> {
        out.push_sql(match self.merge {
            Merge::All => " FROM (SELECT unnest(",
            Merge::Distinct => " FROM (SELECT DISTINCT unnest(",
        });
        out.push_bind_param::<diesel::sql_types::Array<C::SqlType>, [V]>(&self.values[..])?;
        out.push_sql(")) AS ");
        out.push_identifier(SET_ALIAS)?;
        out.push_sql("(");
        out.push_identifier(SET_COLUMN)?;
        out.push_sql(")");
        walk_joined(out, branch)
    }

    /// The values' first rows first, then the seeks of those that can enter the page (see the
    /// module docs), up to the keys of the page's first `n` rows.
    fn walk_headed<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        let [head, bounded, rest] = &self.branches[..] else {
            let shape = "a feed's first rows need three branches: the head, bounded, the rest";
            return Err(diesel::result::Error::QueryBuilderError(shape.into()));
        };
        out.push_sql("WITH ");
        out.push_identifier(HEADS_ALIAS)?;
        out.push_sql(" AS MATERIALIZED (SELECT ");
        out.push_identifier(SET_ALIAS)?;
        out.push_sql(".");
        out.push_identifier(SET_COLUMN)?;
        out.push_sql(", ");
        self.walk_keys(out.reborrow(), Some(PAGE_ALIAS))?;
        self.walk_sought(out.reborrow(), head)?;
        out.push_sql("), ");
        out.push_identifier(TOP_ALIAS)?;
        out.push_sql(" AS MATERIALIZED (SELECT ");
        self.walk_keys(out.reborrow(), None)?;
        out.push_sql(" FROM ");
        out.push_identifier(HEADS_ALIAS)?;
        self.walk_tail(out.reborrow())?;
        out.push_sql(") SELECT ");
        self.walk_keys(out.reborrow(), None)?;
        out.push_sql(" FROM (");
        // At least `n` first rows: the values whose first row is at or before the last of them.
        self.walk_guarded(out.reborrow(), bounded, " >= ")?;
        out.push_sql(" AND ");
        let leading = self.names.first().copied().unwrap_or_default();
        out.push_identifier(SET_ALIAS)?;
        out.push_sql(".");
        out.push_identifier(leading)?;
        let toward = <M::Columns as KeyShape>::LEADING_DESC != W::BACKWARD;
        walk_top_bound(out.reborrow(), toward, leading)?;
        out.push_sql(") UNION ALL ");
        // Fewer: every value with a row.
        self.walk_guarded(out.reborrow(), rest, " < ")?;
        out.push_sql(")) AS ");
        out.push_identifier(MERGE_ALIAS)?;
        self.walk_tail(out)
    }

    /// `(SELECT "__keyset_page".<keys> FROM "__keyset_heads" AS "__keyset_set" CROSS JOIN
    /// LATERAL (branch) AS "__keyset_page" WHERE (SELECT count(*) FROM "__keyset_top") <cmp> n`,
    /// without its closing parenthesis.
    fn walk_guarded<'b>(
        &'b self,
        mut out: AstPass<'_, 'b, Pg>,
        branch: &'b S,
        cmp: &str,
    ) -> QueryResult<()> {
        out.push_sql("(SELECT ");
        self.walk_keys(out.reborrow(), Some(PAGE_ALIAS))?;
        out.push_sql(" FROM ");
        out.push_identifier(HEADS_ALIAS)?;
        out.push_sql(" AS ");
        out.push_identifier(SET_ALIAS)?;
        walk_joined(out.reborrow(), branch)?;
        out.push_sql(" WHERE (SELECT count(*) FROM ");
        out.push_identifier(TOP_ALIAS)?;
        out.push_sql(")");
        out.push_sql(cmp);
        limit::<<Pg as SeekDialect>::LimitStyle, Pg>(out, &self.limit)
    }
}

/// ` CROSS JOIN LATERAL (branch) AS "__keyset_page"`.
fn walk_joined<'b, S: QueryFragment<Pg>>(
    mut out: AstPass<'_, 'b, Pg>,
    branch: &'b S,
) -> QueryResult<()> {
    out.push_sql(" CROSS JOIN LATERAL (");
    branch.walk_ast(out.reborrow())?;
    out.push_sql(") AS ");
    out.push_identifier(PAGE_ALIAS)
}
