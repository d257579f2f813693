//! How a list of `NOT NULL` keys renders, key by key: `Key<column, Asc | Desc, value, next>` and
//! [`End`] in an ORDER BY, in the seek predicate's chain and leading bound, as a row value, and
//! as one tie level. A nullable key's renderings are in `nullable.rs`.

use diesel::backend::Backend;
use diesel::query_builder::{AstPass, QueryFragment};
use diesel::serialize::ToSql;
use diesel::sql_types::HasSqlType;
use diesel::{Column, QueryResult};

use super::compare::{bound_op, strict_op};
use super::dialect::SeekDialect;
use super::keys::{
    End, Key, KeyDirection, KeyShape, LeadingNulls, LevelKeys, Region, SeekKeys, SortColumns, Stop,
};
use super::predicate::walk_seek;
use crate::token::CursorValue;

impl<DB: Backend + SeekDialect> SortColumns<DB> for End {
    fn walk_order<'b>(
        &'b self,
        _: AstPass<'_, 'b, DB>,
        _: bool,
        _: LeadingNulls,
        _: &[&'static str],
    ) -> QueryResult<()> {
        Ok(())
    }
    fn walk_columns<'b>(&'b self, _: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        Ok(())
    }
    fn walk_leading<'b>(&'b self, _: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        Ok(())
    }
    fn walk_order_prefix<'b>(
        &'b self,
        _: AstPass<'_, 'b, DB>,
        _: bool,
        _: usize,
    ) -> QueryResult<()> {
        Ok(())
    }
}

impl<DB, C, D, V, N> SortColumns<DB> for Key<C, D, V, N>
where
    DB: Backend + SeekDialect,
    C: QueryFragment<DB> + 'static,
    D: KeyDirection,
    V: 'static,
    N: SortColumns<DB>,
{
    fn walk_order<'b>(
        &'b self,
        mut out: AstPass<'_, 'b, DB>,
        backward: bool,
        _: LeadingNulls,
        names: &[&'static str],
    ) -> QueryResult<()> {
        self.walk_ordered(out.reborrow(), names)?;
        out.push_sql(if D::DESC != backward { " DESC" } else { " ASC" });
        self.walk_rest_of_order(out, backward, names)
    }

    fn walk_columns<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.walk_column_list(out)
    }

    fn walk_leading<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.column.walk_ast(out)
    }

    fn walk_order_prefix<'b>(
        &'b self,
        mut out: AstPass<'_, 'b, DB>,
        backward: bool,
        depth: usize,
    ) -> QueryResult<()> {
        self.column.walk_ast(out.reborrow())?;
        out.push_sql(if D::DESC != backward { " DESC" } else { " ASC" });
        if depth > 1 && N::LEN > 0 {
            out.push_sql(", ");
            self.next.walk_order_prefix(out, backward, depth - 1)?;
        }
        Ok(())
    }
}

impl<DB: Backend + SeekDialect> SeekKeys<DB> for End {
    fn walk_chain<'b>(
        &'b self,
        _: AstPass<'_, 'b, DB>,
        _: bool,
        _: Region,
        _: Stop,
    ) -> QueryResult<()> {
        Ok(())
    }
    fn walk_leading_bound<'b>(
        &'b self,
        _: AstPass<'_, 'b, DB>,
        _: bool,
        _: Region,
        _: Stop,
    ) -> QueryResult<bool> {
        Ok(false)
    }
    fn walk_values<'b>(&'b self, _: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        Ok(())
    }
    fn walk_next_region<'b>(&'b self, _: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        Ok(())
    }
    fn walk_row<'b>(&'b self, _: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        Err(no_row_key())
    }
}

/// What rendering a row's values reports where no key can name the row: never reached through
/// [`RowKeys`](super::keys::RowKeys), whose lists end in a table's primary key.
pub(super) fn no_row_key() -> diesel::result::Error {
    diesel::result::Error::QueryBuilderError(
        "this order's last key is not a plain column to read a row by".into(),
    )
}

impl<DB, C, D, V, N> SeekKeys<DB> for Key<C, D, V, N>
where
    DB: Backend + SeekDialect + HasSqlType<C::SqlType>,
    C: Column<Table: Default + QueryFragment<DB> + 'static> + QueryFragment<DB> + 'static,
    D: KeyDirection,
    V: ToSql<C::SqlType, DB> + CursorValue + 'static,
    N: SeekKeys<DB>,
{
    fn walk_chain<'b>(
        &'b self,
        mut out: AstPass<'_, 'b, DB>,
        backward: bool,
        _: Region,
        stop: Stop,
    ) -> QueryResult<()> {
        if stop.last(1, Self::LEN) {
            return self.compare(out, stop.op(D::DESC, backward));
        }
        out.push_sql("(");
        self.compare(out.reborrow(), strict_op(D::DESC, backward))?;
        out.push_sql(" OR (");
        self.compare(out.reborrow(), " = ")?;
        out.push_sql(" AND ");
        // Only the leading key's NULLs form a region; deeper keys are within one tie group.
        self.next.walk_chain(out.reborrow(), backward, Region::Whole, stop.deeper())?;
        out.push_sql("))");
        Ok(())
    }

    fn walk_leading_bound<'b>(
        &'b self,
        out: AstPass<'_, 'b, DB>,
        backward: bool,
        _: Region,
        _: Stop,
    ) -> QueryResult<bool> {
        self.compare(out, bound_op(D::DESC, backward)).map(|()| true)
    }

    fn walk_values<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.walk_value_list(out)
    }

    fn walk_next_region<'b>(&'b self, _: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        Ok(())
    }

    fn walk_row<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        match N::LEN {
            0 => self.walk_own_row(out),
            _ => self.next.walk_row(out),
        }
    }
}

impl<DB: Backend + SeekDialect> LevelKeys<DB> for End {
    // Never reached: `Seek::level` checks that the level names a key.
    fn walk_level<'b>(
        &'b self,
        _: AstPass<'_, 'b, DB>,
        _: bool,
        _: usize,
        _: (bool, bool),
    ) -> QueryResult<()> {
        Ok(())
    }
    // Never reached: `SeekLevel::group` checks that keys follow the group's.
    fn walk_group<'b>(
        &'b self,
        _: AstPass<'_, 'b, DB>,
        _: (bool, bool),
        _: usize,
        _: Option<Stop>,
    ) -> QueryResult<()> {
        Ok(())
    }
}

impl<DB, C, D, V, N> LevelKeys<DB> for Key<C, D, V, N>
where
    DB: Backend + SeekDialect + HasSqlType<C::SqlType>,
    C: Column<Table: Default + QueryFragment<DB> + 'static> + QueryFragment<DB> + 'static,
    D: KeyDirection,
    V: ToSql<C::SqlType, DB> + CursorValue + 'static,
    N: LevelKeys<DB>,
{
    fn walk_level<'b>(
        &'b self,
        mut out: AstPass<'_, 'b, DB>,
        backward: bool,
        level: usize,
        (range, inclusive): (bool, bool),
    ) -> QueryResult<()> {
        if level <= 1 {
            let stop = Stop { depth: 1, inclusive };
            return self.compare(out, stop.op(D::DESC, backward));
        }
        self.compare_equal(out.reborrow(), range && level == 2)?;
        out.push_sql(" AND ");
        self.next.walk_level(out, backward, level - 1, (range, inclusive))
    }

    fn walk_group<'b>(
        &'b self,
        mut out: AstPass<'_, 'b, DB>,
        (backward, row_values): (bool, bool),
        depth: usize,
        rest: Option<Stop>,
    ) -> QueryResult<()> {
        match (depth, rest) {
            // The keys after the group's, as a seek of their own list.
            (0, Some(stop)) => {
                return walk_seek(self, out, (backward, Region::Whole, row_values), stop)
            }
            (0, None) => return Ok(()),
            _ => self.compare(out.reborrow(), " = ")?,
        }
        if depth > 1 || rest.is_some() {
            out.push_sql(" AND ");
            self.next.walk_group(out, (backward, row_values), depth - 1, rest)?;
        }
        Ok(())
    }
}
