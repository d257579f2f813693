//! How one sort key writes itself into SQL: its column in an ORDER BY (or the output column's
//! name, in a union's), its comparison against the cursor's value, and the operators those
//! comparisons take in either walk. The key lists' renderings (`plain.rs`, `nullable.rs`,
//! `level.rs`) compose these, key by key.

use diesel::backend::Backend;
use diesel::query_builder::{AstPass, QueryFragment};
use diesel::serialize::ToSql;
use diesel::sql_types::HasSqlType;
use diesel::{Expression, QueryResult};

use super::dialect::{push_key_value, SeekDialect};
use super::keys::{Key, LeadingNulls, SeekKeys, SortColumns, Stop};

/// The comparison that moves forward along a key: `>` for ascending, `<` for descending, and the
/// opposite when walking backward.
pub(super) fn strict_op(desc: bool, backward: bool) -> &'static str {
    if desc != backward {
        " < "
    } else {
        " > "
    }
}

impl Stop {
    /// The last key's comparison: `<=`/`>=` when inclusive, else strictly past.
    pub(super) fn op(self, desc: bool, backward: bool) -> &'static str {
        match self.inclusive {
            true => bound_op(desc, backward),
            false => strict_op(desc, backward),
        }
    }
}

/// The output column names of the keys after the first (none when there were none).
pub(super) fn rest<'n>(names: &'n [&'static str]) -> &'n [&'static str] {
    names.get(1..).unwrap_or_default()
}

/// `<=`/`>=`: the leading bound's comparison, which keeps the cursor's tie group.
pub(super) fn bound_op(desc: bool, backward: bool) -> &'static str {
    if desc != backward {
        " <= "
    } else {
        " >= "
    }
}

impl<C, D, V, N> Key<C, D, V, N> {
    /// `, <the next keys' ORDER BY>`, when keys follow.
    pub(super) fn walk_rest_of_order<'b, DB>(
        &'b self,
        mut out: AstPass<'_, 'b, DB>,
        backward: bool,
        names: &[&'static str],
    ) -> QueryResult<()>
    where
        DB: Backend + SeekDialect,
        N: SortColumns<DB>,
    {
        if N::LEN > 0 {
            out.push_sql(", ");
            self.next.walk_order(out, backward, LeadingNulls::Pin, rest(names))?;
        }
        Ok(())
    }

    /// The key as an ORDER BY writes it: its column, or the output column's name from `names`.
    pub(super) fn walk_ordered<'b, DB>(
        &'b self,
        mut out: AstPass<'_, 'b, DB>,
        names: &[&'static str],
    ) -> QueryResult<()>
    where
        DB: Backend,
        C: QueryFragment<DB>,
    {
        match names.first() {
            Some(name) => out.push_identifier(name),
            None => self.column.walk_ast(out),
        }
    }

    /// `column, <the next keys' columns>`.
    pub(super) fn walk_column_list<'b, DB>(
        &'b self,
        mut out: AstPass<'_, 'b, DB>,
    ) -> QueryResult<()>
    where
        DB: Backend + SeekDialect,
        C: QueryFragment<DB>,
        N: SortColumns<DB>,
    {
        self.column.walk_ast(out.reborrow())?;
        if N::LEN > 0 {
            out.push_sql(", ");
            self.next.walk_columns(out)?;
        }
        Ok(())
    }

    /// `?, <the next keys' values>`.
    pub(super) fn walk_value_list<'b, DB>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()>
    where
        DB: Backend + SeekDialect + HasSqlType<C::SqlType>,
        C: Expression + QueryFragment<DB>,
        V: ToSql<C::SqlType, DB>,
        N: SeekKeys<DB>,
    {
        self.walk_value(out.reborrow())?;
        if N::LEN > 0 {
            out.push_sql(", ");
            self.next.walk_values(out)?;
        }
        Ok(())
    }

    /// `column = ?`, or with `range` the same rows as `column >= ? AND column <= ?`: a range the
    /// planner does not read as a constant (see `SeekLevel`'s `walk_ast`).
    pub(super) fn compare_equal<'b, DB>(
        &'b self,
        mut out: AstPass<'_, 'b, DB>,
        range: bool,
    ) -> QueryResult<()>
    where
        DB: Backend + SeekDialect + HasSqlType<C::SqlType>,
        C: Expression + QueryFragment<DB>,
        V: ToSql<C::SqlType, DB>,
        N: SeekKeys<DB>,
    {
        if !range {
            return self.compare(out, " = ");
        }
        self.compare(out.reborrow(), " >= ")?;
        out.push_sql(" AND ");
        self.compare(out, " <= ")
    }

    /// `column <op> ?`
    pub(super) fn compare<'b, DB>(
        &'b self,
        mut out: AstPass<'_, 'b, DB>,
        op: &str,
    ) -> QueryResult<()>
    where
        DB: Backend + SeekDialect + HasSqlType<C::SqlType>,
        C: Expression + QueryFragment<DB>,
        V: ToSql<C::SqlType, DB>,
        N: SeekKeys<DB>,
    {
        self.column.walk_ast(out.reborrow())?;
        out.push_sql(op);
        self.walk_value(out)
    }

    /// `?`, the value bound (`(SELECT ?)` where the backend plans better without reading it);
    /// or, where the key reads its value from a row (see `RowKeys`), the subquery that reads it,
    /// `(SELECT column FROM t WHERE id = ?)`.
    pub(super) fn walk_value<'b, DB>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()>
    where
        DB: Backend + SeekDialect + HasSqlType<C::SqlType>,
        C: Expression + QueryFragment<DB>,
        V: ToSql<C::SqlType, DB>,
        N: SeekKeys<DB>,
    {
        if !self.from_row {
            return push_key_value::<DB, C::SqlType, V>(out, &self.value);
        }
        out.push_sql("(SELECT ");
        self.column.walk_ast(out.reborrow())?;
        self.next.walk_row(out.reborrow())?;
        out.push_sql(")");
        Ok(())
    }
}
