//! Pages at a row given by its primary key in one statement
//! ([`Paginated::at_row_id`](crate::Paginated::at_row_id)): which key lists allow one
//! ([`RowKeys`]), and how a key reads its value from the row where a statement compares it,
//! `created_at <= (SELECT created_at FROM posts WHERE id = ?)` (the rest is in `compare.rs`).
//! The row's cursor holds the id as its last key and placeholders before it
//! (`position::row_cursor`); `CursorKeys::read_from_row` marks the other keys.

use diesel::backend::Backend;
use diesel::query_builder::{AstPass, QueryFragment};
use diesel::serialize::ToSql;
use diesel::sql_types::HasSqlType;
use diesel::{Column, QueryResult, Table};

use super::dialect::{push_value, SeekDialect};
use super::keys::{Asc, CursorKeys, Desc, End, Key, KeyDirection};
use super::nullable::{Nullable, NullsPlacement};
use crate::token::CursorValue;

/// A key list whose page can start at a row given by its primary key in one statement: every
/// key is a column of one table, `NOT NULL` but perhaps the first, and the last is that table's
/// primary key. Each other key's value is then read from that row where the statement compares
/// it, `created_at <= (SELECT created_at FROM posts WHERE id = ?)`, the primary key's value
/// bound: one index seek as a bound value's, measured on SQLite, PostgreSQL and MariaDB (each
/// engine evaluates the subquery once, and seeks the order's index with its value). A nullable
/// leading key's SQL depends on whether the row's value is NULL, which the subquery does not say
/// before the statement runs: each statement assumes one region of the key and holds nothing
/// where the row lies in the other (`x <= NULL` holds for no row; `(SELECT x ..) IS NULL AND
/// ..` guards the NULLs'), and the page machine reads both regions (`machine/regions.rs`). A
/// nullable key behind the first
/// lies inside the tie groups of the keys before it, where no such guard separates its
/// regions; a joined table's column is not the row's.
/// (Named in the bounds of [`Paginated::at_row_id`](crate::Paginated::at_row_id) only.)
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a page at a row given by its id needs an order of columns of one table, `NOT NULL` \
               but perhaps the first, ending in its primary key",
    label = "this order has a nullable key after the first, a key of another table, or does not \
             end in the table's one-column primary key",
    note = "load the row and open the page with `at_row(&row)` instead"
)]
pub trait RowKeys: CursorKeys {
    /// The table of every key.
    type Table;
    /// The value type of the last key, the table's primary key.
    type Id: CursorValue;
}

impl<C, D, V, N> RowKeys for Key<C, D, V, N>
where
    D: NotNullDirection,
    Self: NotNullKeys,
{
    type Table = <Self as NotNullKeys>::Table;
    type Id = <Self as NotNullKeys>::Id;
}

impl<C, D, P, T, N> RowKeys for Key<C, Nullable<D, P>, Option<T>, N>
where
    C: Column<Table: SameTable<N::Table>> + 'static,
    D: KeyDirection,
    P: NullsPlacement,
    T: CursorValue + 'static,
    N: NotNullKeys,
{
    type Table = C::Table;
    type Id = N::Id;
}

/// [`RowKeys`] whose every key is `NOT NULL`: what follows a nullable leading key.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a page at a row given by its id needs `NOT NULL` sort keys after the first",
    note = "load the row and open the page with `at_row(&row)` instead"
)]
pub trait NotNullKeys: CursorKeys {
    /// The table of every key.
    type Table;
    /// The value type of the last key, the table's primary key.
    type Id: CursorValue;
}

impl<C, D, V> NotNullKeys for Key<C, D, V, End>
where
    C: Column<Table: Table> + RowIdColumn<<C::Table as Table>::PrimaryKey> + 'static,
    D: NotNullDirection,
    V: CursorValue + 'static,
{
    type Table = C::Table;
    type Id = V;
}

impl<C, D, V, C2, D2, V2, N> NotNullKeys for Key<C, D, V, Key<C2, D2, V2, N>>
where
    C: Column<Table: SameTable<<Key<C2, D2, V2, N> as NotNullKeys>::Table>> + 'static,
    D: NotNullDirection,
    V: CursorValue + 'static,
    Key<C2, D2, V2, N>: NotNullKeys,
{
    type Table = C::Table;
    type Id = <Key<C2, D2, V2, N> as NotNullKeys>::Id;
}

// The three conditions of `RowKeys`, each a trait of its own, so that the one that fails is
// reported with what to write instead (an associated-type equality would report a bare "type
// mismatch", and a missing impl of `KeyDirection` would name no remedy).

/// A sort key's direction, where the key is not nullable (see [`RowKeys`]).
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a page at a row given by its id needs `NOT NULL` sort keys after the first, and \
               this order has a nullable one there (`{Self}`)",
    label = "the order has a nullable key after its first",
    note = "a nullable key behind another lies inside that key's tie groups, where the row's id \
            does not say which of its regions a statement reads: load the row and open the page \
            with `at_row(&row)` instead"
)]
pub trait NotNullDirection: KeyDirection {}

impl NotNullDirection for Asc {}
impl NotNullDirection for Desc {}

/// The last key's column is its table's primary key `P` (see [`RowKeys`]).
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a page at a row given by its id reads the row by its primary key `{P}`, and this \
               order ends in `{Self}`",
    label = "the order does not end in its table's one-column primary key",
    note = "load the row and open the page with `at_row(&row)` instead"
)]
pub trait RowIdColumn<P> {}

impl<K> RowIdColumn<K> for K {}

/// A key's table is the table `T` of the order's primary key (see [`RowKeys`]).
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a page at a row given by its id reads the row's keys from its own table `{T}`, \
               and this order sorts by a column of `{Self}`",
    label = "a key of a joined table",
    note = "load the row with its joined columns and open the page with `at_row(&row)` instead"
)]
pub trait SameTable<T> {}

impl<T> SameTable<T> for T {}

impl<C, D, V, N> Key<C, D, V, N> {
    /// ` FROM t WHERE id = ?`: this key's table, and the row of this key's value (see
    /// `SeekKeys::walk_row`).
    pub(super) fn walk_own_row<'b, DB>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()>
    where
        DB: Backend + SeekDialect + HasSqlType<C::SqlType>,
        C: Column<Table: Default + QueryFragment<DB> + 'static> + QueryFragment<DB>,
        V: ToSql<C::SqlType, DB>,
    {
        out.push_sql(" FROM ");
        unit::<C::Table>()?.walk_ast(out.reborrow())?;
        out.push_sql(" WHERE ");
        self.column.walk_ast(out.reborrow())?;
        out.push_sql(" = ");
        push_value::<DB, C::SqlType, V>(out, &self.value)
    }
}

/// A `T` that lives as long as any statement: Diesel renders a statement from references into
/// its AST, and a table is named by its type alone. Every `table!` table is a unit struct, and a
/// leaked box of a zero-sized value allocates nothing; any other type is refused.
fn unit<T: Default + 'static>() -> QueryResult<&'static T> {
    if size_of::<T>() != 0 {
        let message = "a page at a row's id reads the row from its table, which must be a \
                       `table!` table (a unit struct)";
        return Err(diesel::result::Error::QueryBuilderError(message.into()));
    }
    Ok(Box::leak(Box::new(T::default())))
}
