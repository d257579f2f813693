//! A page among a set of values of one column (a feed: the posts of the authors a user follows)
//! as one statement that seeks the index `(column, sort keys..)` once per value, each seek
//! limited to the page, and merges what they found under the page's ORDER BY and LIMIT.
//!
//! No one index serves `WHERE author_id IN (..) ORDER BY created_at DESC, id DESC` itself: the
//! order's index is walked and filtered (the cost grows as the set's rows get rarer among the
//! recent ones: a first page that walked 1.7M entries, 1,365 ms, for 100 authors whose posts were
//! all old), and the index led by the column yields each value's rows in order but not their
//! merge, so the engine reads every matching row past the cursor and sorts. One seek per value
//! reads at most `|set| × (limit + 1)` index entries, whatever the data:
//!
//! - **PostgreSQL**: the values as one array, `LATERAL`-joined to the page's query with
//!   `author_id = "__keyset_set"."__keyset_v"`: one statement text for every set, prepared and
//!   planned once (the list's repeats dropped, so that no value repeats its rows); for a set of at
//!   least a page's values, each value's first row is read first, and only the values whose
//!   first rows can enter the page are sought further (`lateral.rs`);
//! - **SQLite**: the plain `IN (..)` list, which SQLite runs as a loop over the values, each a
//!   seek of the index led by the column that yields the value's rows in the order, moving to
//!   the next value at the first row that cannot enter the page; its planner takes that plan
//!   when told that the set's rows are rare (`likelihood(..)`,
//!   [`PerValue::InLoop`](super::PerValue));
//! - **MariaDB**, which has neither `LATERAL` (nor arrays) nor such a loop: the union of one
//!   branch per distinct value, `(.. WHERE author_id = ? AND <seek> ORDER BY .. LIMIT n)`, each
//!   selecting the keys alone ([`KeyColumns`](super::KeyColumns)), and the page's rows fetched by
//!   the tiebreakers the union's first `n` found. The branches are padded ([`padded`]) by
//!   branches that read nothing (`LIMIT 0`), so that a listing has a few statement texts (four
//!   per power of two, 39 up to 2,048 values) rather than one per set size, each a prepared
//!   statement of the connection; padding by a repeated value's seek made 10 values cost 16
//!   seeks. The merge is [`Merge::All`] where distinct values cannot share a row (integers),
//!   else [`Merge::Distinct`] (`UNION`), which drops the rows of values the column's collation
//!   holds equal, as `IN (..)` would. With a nullable key the branches select whole rows,
//!   which are the page's (as on PostgreSQL).
//!
//! The union is ordered by the keys' output columns, as `sql/union.rs` explains, so it is built
//! only for a query that selects the model alone; other queries page among the set with
//! `IN (..)`.

// SQLite builds no such statement (its `IN (..)` loop seeks per value): built for SQLite alone,
// the union's and `LATERAL`'s rendering is unused.
#![cfg_attr(not(any(feature = "postgres_backend", feature = "mysql_backend")), allow(dead_code))]

#[cfg(feature = "postgres_backend")]
mod lateral;

use std::marker::PhantomData;

use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, HasSqlType};
use diesel::{QueryResult, RunQueryDsl};

use super::dialect::SeekDialect;
use super::keys::SortColumns;
use super::limit::limit;
use super::order_by::OrderBy;
use super::walk::Walk;
use crate::orders::SortOrder;

/// How the seeks' rows merge: a union's branches, or the values `LATERAL` joins to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Merge {
    /// The seeks find distinct rows (one per distinct integer, ..): `UNION ALL`; on PostgreSQL
    /// the list bound without its repeats and the query's rows joined to the keys found.
    All,
    /// Two seeks may find one row, kept once (values that a collation holds equal, `'apple'`
    /// and `'Apple'`): `UNION`; on PostgreSQL `DISTINCT` values and the query's rows matched to
    /// the keys found by `IN`.
    Distinct,
}

impl Merge {
    /// The operator between two branches.
    #[cfg_attr(not(feature = "mysql_backend"), allow(dead_code))]
    fn operator(self) -> &'static str {
        match self {
            Merge::All => " UNION ALL ",
            Merge::Distinct => " UNION ",
        }
    }
}

/// One page among a set of values of column `C`: the `branches` (one per value, or one to be
/// `LATERAL`-joined to `values`), merged under `order` (by the output columns `names`) and
/// `limit`. (Named in hidden bounds only.)
#[doc(hidden)]
pub struct Members<S, M: SortOrder, W, C, V, R> {
    branches: Vec<S>,
    merge: Merge,
    /// The query itself, whose rows the page fetches by the keys the seeks found.
    outer: Option<R>,
    #[cfg_attr(not(feature = "postgres_backend"), allow(dead_code))]
    values: Vec<V>,
    order: OrderBy<M, W>,
    names: &'static [&'static str],
    limit: i64,
    /// PostgreSQL: each value's first row read first, and only the values whose first rows
    /// can enter the page sought further (`lateral.rs`).
    #[cfg_attr(not(feature = "postgres_backend"), allow(dead_code))]
    headed: bool,
    column: PhantomData<C>,
}

impl<S, M: SortOrder, W, C, V, R> Members<S, M, W, C, V, R> {
    /// The union of `branches`, one per value, merged as `merge` says: the keys of the rows of
    /// `outer` (the query itself) to load, or without it the branches' own rows.
    pub(crate) fn union(
        outer: Option<R>,
        branches: Vec<S>,
        merge: Merge,
        order: OrderBy<M, W>,
        names: &'static [&'static str],
        limit: i64,
    ) -> Self {
        let (values, headed) = (Vec::new(), false);
        Members { branches, merge, outer, values, order, names, limit, headed, column: PhantomData }
    }

    /// `branch` joined `LATERAL` to each of `values`, merged as `merge` says: the keys of the
    /// rows of `outer` (the query itself) to load, or without it the seeks' own rows.
    pub(crate) fn lateral(
        outer: Option<R>,
        branch: S,
        (values, merge): (Vec<V>, Merge),
        order: OrderBy<M, W>,
        names: &'static [&'static str],
        limit: i64,
    ) -> Self {
        let (branches, headed) = (vec![branch], false);
        Members { branches, merge, outer, values, order, names, limit, headed, column: PhantomData }
    }

    /// PostgreSQL: `head` (limited to one row) joined `LATERAL` to each of `values`, then the
    /// values whose first rows can enter the page joined to `bounded` (its leading key held to
    /// the last of them, [`WindowEnd::Top`](super::WindowEnd)), or, where fewer values have a
    /// row, every value to `rest`; for the keys of the rows of `outer` (the query itself) to
    /// load (`lateral.rs`).
    pub(crate) fn headed(
        outer: R,
        [head, bounded, rest]: [S; 3],
        (values, merge): (Vec<V>, Merge),
        order: OrderBy<M, W>,
        names: &'static [&'static str],
        limit: i64,
    ) -> Self {
        let (branches, outer) = (vec![head, bounded, rest], Some(outer));
        let headed = true;
        Members { branches, merge, outer, values, order, names, limit, headed, column: PhantomData }
    }

    /// ` ORDER BY <names> LIMIT n`.
    fn walk_tail<'b, DB>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()>
    where
        DB: SeekDialect + HasSqlType<BigInt>,
        M::Columns: SortColumns<DB>,
        W: Walk,
        i64: ToSql<BigInt, DB>,
    {
        out.push_sql(" ORDER BY ");
        self.order.walk_by_names(out.reborrow(), self.names)?;
        out.push_sql(" LIMIT ");
        limit::<DB::LimitStyle, DB>(out, &self.limit)
    }

    /// `SELECT "__keyset_row".* FROM (outer) AS "__keyset_row" WHERE "__keyset_row"."id" IN
    /// (SELECT "id" FROM (<union>) AS "__keyset_page") ORDER BY .. LIMIT n`: the rows of the
    /// query whose tiebreaker (unique, and not NULL: the keys are not nullable) the keys-only
    /// `union` found. Only the tiebreaker is matched: SQLite sought the rowid for it, where a row
    /// value `IN` took 12.8 ms against 1.0 (100 values, measured by hand, when SQLite ran unions).
    #[cfg(feature = "mysql_backend")]
    fn walk_keyed<'b, DB>(
        &'b self,
        mut out: AstPass<'_, 'b, DB>,
        outer: &'b R,
        union: impl FnOnce(AstPass<'_, 'b, DB>) -> QueryResult<()>,
    ) -> QueryResult<()>
    where
        DB: SeekDialect + HasSqlType<BigInt>,
        M::Columns: SortColumns<DB>,
        W: Walk,
        R: QueryFragment<DB>,
        i64: ToSql<BigInt, DB>,
    {
        let tiebreaker = self.names.last().copied().unwrap_or_default();
        walk_rows_of(out.reborrow(), outer)?;
        out.push_sql(" ");
        out.push_identifier(ROW_ALIAS)?;
        out.push_sql(".");
        out.push_identifier(tiebreaker)?;
        out.push_sql(" IN (SELECT ");
        out.push_identifier(tiebreaker)?;
        out.push_sql(" FROM (");
        union(out.reborrow())?;
        out.push_sql(") AS ");
        out.push_identifier(PAGE_ALIAS)?;
        out.push_sql(")");
        self.walk_tail(out)
    }
}

/// The alias of the query whose rows a page among a set fetches by the keys its seeks found.
const ROW_ALIAS: &str = "__keyset_row";

/// `SELECT "__keyset_row".* FROM (outer) AS "__keyset_row" WHERE`: the rows of the query that the
/// condition which follows matches to the keys the seeks found.
fn walk_rows_of<'b, DB, R>(mut out: AstPass<'_, 'b, DB>, outer: &'b R) -> QueryResult<()>
where
    DB: diesel::backend::Backend,
    R: QueryFragment<DB>,
{
    out.push_sql("SELECT ");
    out.push_identifier(ROW_ALIAS)?;
    out.push_sql(".* FROM ");
    walk_row_source(out.reborrow(), outer)?;
    out.push_sql(" WHERE");
    Ok(())
}

/// `(outer) AS "__keyset_row"`: the query whose rows the page fetches by the keys found.
fn walk_row_source<'b, DB, R>(mut out: AstPass<'_, 'b, DB>, outer: &'b R) -> QueryResult<()>
where
    DB: diesel::backend::Backend,
    R: QueryFragment<DB>,
{
    out.push_sql("(");
    outer.walk_ast(out.reborrow())?;
    out.push_sql(") AS ");
    out.push_identifier(ROW_ALIAS)
}

/// The alias of the seeks' merged page.
const PAGE_ALIAS: &str = "__keyset_page";

/// The alias of the first rows of the values that can enter a PostgreSQL page
/// ([`Members::headed`]), which [`WindowEnd::Top`](super::WindowEnd) bounds the seeks by.
const TOP_ALIAS: &str = "__keyset_top";

/// ` >= (SELECT min("created_at") FROM "__keyset_top")` (` <= (SELECT max(..)) ..` where the
/// walk ascends the leading key, `toward` false): at or before the last of the values' first
/// rows that can enter a PostgreSQL page, on the leading key, whose output column is `leading`.
/// The seeks held to it ([`WindowEnd::Top`](super::WindowEnd)) and the first rows kept by it
/// (`lateral.rs`) write it after their own leading key.
pub(super) fn walk_top_bound<DB: diesel::backend::Backend>(
    mut out: AstPass<'_, '_, DB>,
    toward: bool,
    leading: &str,
) -> QueryResult<()> {
    out.push_sql(if toward { " >= (SELECT min(" } else { " <= (SELECT max(" });
    out.push_identifier(leading)?;
    out.push_sql(") FROM ");
    out.push_identifier(TOP_ALIAS)?;
    out.push_sql(")");
    Ok(())
}

/// The number of branches a union of `values` runs (and of values an `IN (..)` list binds): one
/// of four sizes per power of two, `values` rounded up to a quarter of the power of two below
/// it (5, 6, 7, 8, then 10, 12, 14, 16, then 20, 24, .., 112, 128, ..). MariaDB plans every
/// branch, those that read nothing too: padded to the next power of two, the first page among
/// 10 values ran 16 branches, 1.19× the hand-written union of 10, and among 100, 128, 1.12–1.14×;
/// padded so, 1.07–1.12× for either (feeds bench, 1M posts).
pub(crate) fn padded(values: usize) -> usize {
    if values <= 4 {
        return values.next_power_of_two();
    }
    let step = (values.next_power_of_two() / 8).max(1);
    values.div_ceil(step) * step
}

// The query's rows: the seeks' own, or the query's fetched by the keys the seeks found.
impl<S, M: SortOrder, W, C, V, R: Query> Query for Members<S, M, W, C, V, R> {
    type SqlType = R::SqlType;
}

// The text varies with the number of branches and the limit: cached by its text.
impl<S, M: SortOrder, W, C, V, R> QueryId for Members<S, M, W, C, V, R> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<S, M: SortOrder, W, C, V, R, Conn> RunQueryDsl<Conn> for Members<S, M, W, C, V, R> {}

/// SQLite seeks once per value by its own loop over an `IN (..)` list
/// ([`PerValue::InLoop`](super::PerValue)), so no page among a set builds this statement there;
/// the drivers' bounds name every statement shape for every backend, hence this impl, which
/// fails as Diesel's query builder does (a fault of the server, never the client's).
#[cfg(feature = "sqlite")]
impl<S, M: SortOrder, W, C, V, R> QueryFragment<diesel::sqlite::Sqlite>
    for Members<S, M, W, C, V, R>
{
    fn walk_ast<'b>(&'b self, _: AstPass<'_, 'b, diesel::sqlite::Sqlite>) -> QueryResult<()> {
        let unbuilt = "keyset builds no union among a set on SQLite: its `IN (..)` seeks per value";
        Err(diesel::result::Error::QueryBuilderError(unbuilt.into()))
    }
}

/// The settings a feed's union runs under on MariaDB, in an executable comment that MySQL
/// ignores: no index merge. Each branch's seek past the cursor, `author_id = ? AND (created_at
/// < ? OR (created_at = ? AND id < ?))`, also fits the primary key (`id < ?`), so MariaDB weighs
/// an index merge for every branch on every execution (it plans a prepared statement anew each
/// time) and then seeks the prefix's index anyway. Measured by hand, 1M posts, pages of 20, the
/// statement prepared and run 200 times: a page 50 deep among 10 authors took 0.81 ms, 0.67
/// without; among 100, 3.8 and 2.85 ms; among 1,000, 52 and 47.5. First pages, which seek no
/// `id < ?`, did not change.
#[cfg(feature = "mysql_backend")]
const MARIADB_SETTINGS: &str = "/*M! SET STATEMENT optimizer_switch='index_merge=off' FOR */ ";

/// MariaDB and MySQL: `(branch) UNION [ALL] (branch) .. ORDER BY .. LIMIT ?`, under
/// [`MARIADB_SETTINGS`] on MariaDB.
#[cfg(feature = "mysql_backend")]
impl<S, M, W, C, V, R> QueryFragment<diesel::mysql::Mysql> for Members<S, M, W, C, V, R>
where
    S: QueryFragment<diesel::mysql::Mysql>,
    R: QueryFragment<diesel::mysql::Mysql>,
    M: SortOrder,
    M::Columns: SortColumns<diesel::mysql::Mysql>,
    W: Walk,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, diesel::mysql::Mysql>) -> QueryResult<()> {
        out.push_sql(MARIADB_SETTINGS);
        let union = |mut out: AstPass<'_, 'b, _>| -> QueryResult<()> {
            for (index, branch) in self.branches.iter().enumerate() {
                if index > 0 {
                    out.push_sql(self.merge.operator());
                }
                out.push_sql("(");
                branch.walk_ast(out.reborrow())?;
                out.push_sql(")");
            }
            self.walk_tail(out)
        };
        match &self.outer {
            Some(outer) => self.walk_keyed(out, outer, union),
            None => union(out),
        }
    }
}
