//! The sort keys of a model as one type-level list: `Key<column, direction, value, next>`, ending
//! in [`End`]. `#[derive(Keyset)]` writes the list once; the ORDER BY, its reverse and the seek
//! predicate are all rendered from it, so they cannot disagree about columns or directions.

use std::marker::PhantomData;

use diesel::backend::Backend;
use diesel::expression::AppearsOnTable;
use diesel::query_builder::{AstPass, QueryFragment};
use diesel::serialize::ToSql;
use diesel::sql_types::HasSqlType;
use diesel::{Expression, QueryResult};

/// Ascending sort direction (marker type).
#[derive(Debug, Clone, Copy, Default)]
pub struct Asc;

/// Descending sort direction (marker type).
#[derive(Debug, Clone, Copy, Default)]
pub struct Desc;

/// A sort direction, known at compile time.
pub trait SortDirection: 'static {
    /// Whether this direction is descending.
    const DESC: bool;
}

impl SortDirection for Asc {
    const DESC: bool = false;
}

impl SortDirection for Desc {
    const DESC: bool = true;
}

/// One sort key: `column` sorted in direction `D`, with the cursor's `value` for it (or `()` when
/// only the columns are needed, as in an ORDER BY), followed by the `next` key.
#[derive(Debug, Clone, Copy)]
pub struct Key<C, D, V, N> {
    column: C,
    value: V,
    next: N,
    direction: PhantomData<D>,
}

impl<C, D, V, N> Key<C, D, V, N> {
    /// A key on `column` with the cursor's `value`, followed by `next`.
    pub fn new(column: C, value: V, next: N) -> Self {
        Key { column, value, next, direction: PhantomData }
    }
}

/// The end of a key list.
#[derive(Debug, Clone, Copy, Default)]
pub struct End;

/// Facts about a key list that do not depend on the backend.
pub trait KeyShape: 'static {
    /// How many keys the list holds.
    const LEN: usize;
    /// Whether every key is ascending (true for the empty list).
    const ALL_ASC: bool;
    /// Whether every key is descending (true for the empty list).
    const ALL_DESC: bool;
}

impl KeyShape for End {
    const LEN: usize = 0;
    const ALL_ASC: bool = true;
    const ALL_DESC: bool = true;
}

impl<C: 'static, D: SortDirection, V: 'static, N: KeyShape> KeyShape for Key<C, D, V, N> {
    const LEN: usize = 1 + N::LEN;
    const ALL_ASC: bool = !D::DESC && N::ALL_ASC;
    const ALL_DESC: bool = D::DESC && N::ALL_DESC;
}

/// The comparison that moves forward along a key: `>` for ascending, `<` for descending, and the
/// opposite when walking backward.
fn strict_op(desc: bool, backward: bool) -> &'static str {
    if desc != backward { " < " } else { " > " }
}

/// Renders the columns of a key list: in an ORDER BY, or as a row value `(c1, c2)`.
pub trait SortColumns<DB: Backend>: KeyShape {
    /// `c1 DESC, c2 ASC` (every direction flipped when `backward`).
    fn walk_order<'b>(&'b self, out: AstPass<'_, 'b, DB>, backward: bool) -> QueryResult<()>;
    /// `c1, c2`.
    fn walk_columns<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()>;
}

impl<DB: Backend> SortColumns<DB> for End {
    fn walk_order<'b>(&'b self, _: AstPass<'_, 'b, DB>, _: bool) -> QueryResult<()> {
        Ok(())
    }
    fn walk_columns<'b>(&'b self, _: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        Ok(())
    }
}

impl<DB, C, D, V, N> SortColumns<DB> for Key<C, D, V, N>
where
    DB: Backend,
    C: QueryFragment<DB> + 'static,
    D: SortDirection,
    V: 'static,
    N: SortColumns<DB>,
{
    fn walk_order<'b>(&'b self, mut out: AstPass<'_, 'b, DB>, backward: bool) -> QueryResult<()> {
        self.column.walk_ast(out.reborrow())?;
        out.push_sql(if D::DESC != backward { " DESC" } else { " ASC" });
        if N::LEN > 0 {
            out.push_sql(", ");
            self.next.walk_order(out, backward)?;
        }
        Ok(())
    }

    fn walk_columns<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.column.walk_ast(out.reborrow())?;
        if N::LEN > 0 {
            out.push_sql(", ");
            self.next.walk_columns(out)?;
        }
        Ok(())
    }
}

/// Renders the comparisons of a key list against the cursor's values, each value a bound
/// parameter (never spliced into the SQL).
pub trait SeekKeys<DB: Backend>: SortColumns<DB> {
    /// `c1 < ? OR (c1 = ? AND (c2 < ? OR (c2 = ? AND c3 < ?)))`: strictly past the cursor in the
    /// list's order, with the last key strict so the cursor row itself is never returned.
    fn walk_chain<'b>(&'b self, out: AstPass<'_, 'b, DB>, backward: bool) -> QueryResult<()>;
    /// `c1 <= ?`: the redundant bound on the leading key that turns the chain into an index
    /// range on every engine (see the `sql` module docs).
    fn walk_leading_bound<'b>(&'b self, out: AstPass<'_, 'b, DB>, backward: bool) -> QueryResult<()>;
    /// `?, ?`: the values of a row-value comparison.
    fn walk_values<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()>;
}

impl<DB: Backend> SeekKeys<DB> for End {
    fn walk_chain<'b>(&'b self, _: AstPass<'_, 'b, DB>, _: bool) -> QueryResult<()> {
        Ok(())
    }
    fn walk_leading_bound<'b>(&'b self, _: AstPass<'_, 'b, DB>, _: bool) -> QueryResult<()> {
        Ok(())
    }
    fn walk_values<'b>(&'b self, _: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        Ok(())
    }
}

impl<DB, C, D, V, N> SeekKeys<DB> for Key<C, D, V, N>
where
    DB: Backend + HasSqlType<C::SqlType>,
    C: Expression + QueryFragment<DB> + 'static,
    D: SortDirection,
    V: ToSql<C::SqlType, DB> + 'static,
    N: SeekKeys<DB>,
{
    fn walk_chain<'b>(&'b self, mut out: AstPass<'_, 'b, DB>, backward: bool) -> QueryResult<()> {
        if N::LEN == 0 {
            return self.compare(out, strict_op(D::DESC, backward));
        }
        out.push_sql("(");
        self.compare(out.reborrow(), strict_op(D::DESC, backward))?;
        out.push_sql(" OR (");
        self.compare(out.reborrow(), " = ")?;
        out.push_sql(" AND ");
        self.next.walk_chain(out.reborrow(), backward)?;
        out.push_sql("))");
        Ok(())
    }

    fn walk_leading_bound<'b>(&'b self, out: AstPass<'_, 'b, DB>, backward: bool) -> QueryResult<()> {
        let op = if D::DESC != backward { " <= " } else { " >= " };
        self.compare(out, op)
    }

    fn walk_values<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_bind_param::<C::SqlType, V>(&self.value)?;
        if N::LEN > 0 {
            out.push_sql(", ");
            self.next.walk_values(out)?;
        }
        Ok(())
    }
}

impl<C, D, V, N> Key<C, D, V, N> {
    /// `column <op> ?`
    fn compare<'b, DB>(&'b self, mut out: AstPass<'_, 'b, DB>, op: &str) -> QueryResult<()>
    where
        DB: Backend + HasSqlType<C::SqlType>,
        C: Expression + QueryFragment<DB>,
        V: ToSql<C::SqlType, DB>,
    {
        self.column.walk_ast(out.reborrow())?;
        out.push_sql(op);
        out.push_bind_param::<C::SqlType, V>(&self.value)
    }
}

/// Every column of a key list can be used in a query whose FROM clause is `QS` (a table, or a
/// join that contains the model's table).
pub trait KeysAppearOn<QS> {}

impl<QS> KeysAppearOn<QS> for End {}

impl<QS, C: AppearsOnTable<QS>, D, V, N: KeysAppearOn<QS>> KeysAppearOn<QS> for Key<C, D, V, N> {}
