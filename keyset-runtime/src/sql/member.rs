//! [`Member`]: the filter that keeps a page among a set of values of one column, in the forms a
//! page among them runs (see `members/`): equal to one value (a branch of the per-value
//! union), equal to the value a `LATERAL` join gives (PostgreSQL), or in the whole list
//! (`IN (..)`: SQLite's loop over the values, a feed's window, and where no per-value form
//! applies).

use diesel::backend::Backend;
use diesel::expression::{is_aggregate, AppearsOnTable, ValidGrouping};
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::{Bool, HasSqlType};
use diesel::{Expression, QueryResult};

use super::dialect::{push_value, SeekDialect};

/// The alias of the set's values in a `LATERAL` page: `"__keyset_set"."__keyset_v"`.
pub(super) const SET_ALIAS: &str = "__keyset_set";
/// The column of [`SET_ALIAS`].
pub(super) const SET_COLUMN: &str = "__keyset_v";

/// `column = ?`, `column = "__keyset_set"."__keyset_v"` or `column IN (?, ..)`: a row of the
/// set. (Named in hidden bounds only.)
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct Member<C, V> {
    column: C,
    of: Of<V>,
}

#[derive(Debug, Clone)]
enum Of<V> {
    /// One value of the set: a branch of the union.
    Value(V),
    /// The value of the set a `LATERAL` join gives.
    Lateral,
    /// Every value (`1 = 0` for none), written as [`List`] says.
    Any { values: Vec<V>, list: List },
}

/// How a [`Member`] of the whole list is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum List {
    /// `column IN (..)`.
    Plain,
    /// `COALESCE(column) IN (..)`, a filter of the window's walk that the range optimizer
    /// leaves alone ([`Windowing::ReadFirst`](super::Windowing)).
    Unindexed,
    /// `likelihood(column IN (..), 0.000001)`: the seeks of SQLite's loop over the values,
    /// which its planner takes only when told the set's rows are rare
    /// ([`PerValue::InLoop`](super::PerValue)).
    Rare,
}

impl<C, V> Member<C, V> {
    /// `column = value`.
    pub(crate) fn value(column: C, value: V) -> Self {
        Member { column, of: Of::Value(value) }
    }

    /// `column` equal to the set's value in a `LATERAL` page.
    pub(crate) fn lateral(column: C) -> Self {
        Member { column, of: Of::Lateral }
    }

    /// `column IN (values..)`, the list padded ([`padded`](super::padded): four sizes per power
    /// of two) by repeating its last value (which `IN` ignores), so that a listing prepares a
    /// few statement texts rather than one per set size (on PostgreSQL, a prepared statement of
    /// the connection each).
    pub(crate) fn any(column: C, values: Vec<V>) -> Self
    where
        V: Clone,
    {
        Self::any_of(column, values, List::Plain)
    }

    /// [`any`](Self::any) as a filter of a feed's window on an engine that reads its end first:
    /// `COALESCE(column) IN (..)`, the same rows, which no index serves. With the window's bound
    /// known, MariaDB otherwise weighs the prefix's index by one dive per value.
    pub(crate) fn any_unindexed(column: C, values: Vec<V>) -> Self
    where
        V: Clone,
    {
        Self::any_of(column, values, List::Unindexed)
    }

    /// [`any`](Self::any) as SQLite's seeks once per value: `likelihood(column IN (..),
    /// 0.000001)`, the same rows ([`PerValue::InLoop`](super::PerValue)).
    pub(crate) fn any_rare(column: C, values: Vec<V>) -> Self
    where
        V: Clone,
    {
        Self::any_of(column, values, List::Rare)
    }

    fn any_of(column: C, mut values: Vec<V>, list: List) -> Self
    where
        V: Clone,
    {
        if let Some(last) = values.last().cloned() {
            values.resize(super::padded(values.len()), last);
        }
        Member { column, of: Of::Any { values, list } }
    }
}

impl<C: Expression, V> Expression for Member<C, V> {
    type SqlType = Bool;
}

impl<QS, C: AppearsOnTable<QS>, V> AppearsOnTable<QS> for Member<C, V> {}

impl<C, V> ValidGrouping<()> for Member<C, V> {
    type IsAggregate = is_aggregate::No;
}

// The SQL text depends on the form and on the number of values: cached by its text.
impl<C, V> QueryId for Member<C, V> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<C, V, DB> QueryFragment<DB> for Member<C, V>
where
    DB: Backend + SeekDialect + HasSqlType<C::SqlType>,
    C: Expression + QueryFragment<DB>,
    V: ToSql<C::SqlType, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        match &self.of {
            Of::Any { values, .. } if values.is_empty() => out.push_sql("1 = 0"),
            Of::Any { values, list } => {
                out.push_sql(match list {
                    List::Plain => "",
                    List::Unindexed => "COALESCE(",
                    List::Rare => "likelihood(",
                });
                self.column.walk_ast(out.reborrow())?;
                out.push_sql(if *list == List::Unindexed { ") IN (" } else { " IN (" });
                for (index, value) in values.iter().enumerate() {
                    if index > 0 {
                        out.push_sql(", ");
                    }
                    push_value::<DB, C::SqlType, V>(out.reborrow(), value)?;
                }
                out.push_sql(if *list == List::Rare { "), 0.000001)" } else { ")" });
            }
            Of::Value(value) => {
                self.column.walk_ast(out.reborrow())?;
                out.push_sql(" = ");
                push_value::<DB, C::SqlType, V>(out.reborrow(), value)?;
            }
            Of::Lateral => {
                self.column.walk_ast(out.reborrow())?;
                out.push_sql(" = ");
                out.push_identifier(SET_ALIAS)?;
                out.push_sql(".");
                out.push_identifier(SET_COLUMN)?;
            }
        }
        Ok(())
    }
}

/// `column IN (<subquery>)`: the rows among a subquery's values, which a feed over a subquery
/// counts. (Named in hidden bounds only.)
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct InRows<C, S> {
    column: C,
    rows: S,
}

impl<C, S> InRows<C, S> {
    /// `column IN (rows)`.
    pub(crate) fn new(column: C, rows: S) -> Self {
        InRows { column, rows }
    }
}

impl<C: Expression, S> Expression for InRows<C, S> {
    type SqlType = Bool;
}

impl<QS, C: AppearsOnTable<QS>, S> AppearsOnTable<QS> for InRows<C, S> {}

impl<C, S> ValidGrouping<()> for InRows<C, S> {
    type IsAggregate = is_aggregate::No;
}

impl<C, S> QueryId for InRows<C, S> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<C, S, DB> QueryFragment<DB> for InRows<C, S>
where
    DB: Backend,
    C: QueryFragment<DB>,
    S: QueryFragment<DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.column.walk_ast(out.reborrow())?;
        out.push_sql(" IN (");
        self.rows.walk_ast(out.reborrow())?;
        out.push_sql(")");
        Ok(())
    }
}
