//! Nullable sort keys: `Key<column, Nullable<direction, placement>, Option<T>, next>`.
//!
//! `x < NULL` is never true, and engines disagree about where NULLs sort, so a nullable key
//! needs its own ORDER BY and its own predicate:
//!
//! - the ORDER BY pins the placement the model declares: nothing when it is the engine's own
//!   (so an index without a NULLS clause still matches), `NULLS FIRST`/`NULLS LAST` where the
//!   engine has the syntax, and a leading `x IS NULL` term where it does not (MySQL, MariaDB);
//! - the predicate depends on whether the cursor's value is NULL:
//!
//! | cursor x | NULLs come after non-NULLs | NULLs come before non-NULLs |
//! |---|---|---|
//! | non-NULL | `x op :x OR (x = :x AND rest) OR x IS NULL` | `x op :x OR (x = :x AND rest)` |
//! | NULL | `x IS NULL AND rest` | `(x IS NULL AND rest) OR x IS NOT NULL` |
//!
//! On the leading key, the `OR x IS [NOT] NULL` disjunct makes PostgreSQL and SQLite scan every
//! row before the cursor, so there the page is fetched as two seeks ([`Region`]): the cursor's
//! region first, and the next region only if the page is not yet full.

use std::marker::PhantomData;

use diesel::backend::Backend;
use diesel::query_builder::{AstPass, QueryFragment};
use diesel::serialize::ToSql;
use diesel::sql_types::HasSqlType;
use diesel::{Expression, QueryResult};

use super::compare::{bound_op, strict_op};
use super::dialect::SeekDialect;
use super::keys::{
    read_from_row, write_last, write_texts, CursorKeys, Key, KeyDirection, KeyShape, LeadingNulls,
    LevelKeys, Region, SeekKeys, SortColumns, Stop,
};
use super::plain::no_row_key;
use crate::token::{CursorValue, Writer};

/// A nullable key sorted in direction `D` (`Asc`/`Desc`) with its NULLs placed by `P`
/// ([`NullsFirst`]/[`NullsLast`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct Nullable<D, P>(PhantomData<(D, P)>);

/// NULLs sort before every other value (marker type).
#[derive(Debug, Clone, Copy, Default)]
pub struct NullsFirst;

/// NULLs sort after every other value (marker type).
#[derive(Debug, Clone, Copy, Default)]
pub struct NullsLast;

/// Where a nullable key's NULLs go, known at compile time.
pub trait NullsPlacement: 'static {
    /// Whether NULLs come first in the declared order.
    const FIRST: bool;
}

impl NullsPlacement for NullsFirst {
    const FIRST: bool = true;
}

impl NullsPlacement for NullsLast {
    const FIRST: bool = false;
}

/// Whether NULLs come after the other values in the walk's order (placements flip backward).
fn nulls_after<P: NullsPlacement>(backward: bool) -> bool {
    P::FIRST == backward
}

impl<C: 'static, D: KeyDirection, P: NullsPlacement, V: 'static, N: KeyShape> KeyShape
    for Key<C, Nullable<D, P>, V, N>
{
    const LEN: usize = 1 + N::LEN;
    // A row value is NULL when any element is: never use one with a nullable key.
    const ALL_ASC: bool = false;
    const ALL_DESC: bool = false;
    const NULLABLE: bool = true;
    const LEADING_NULLABLE: bool = true;
    const LEADING_DESC: bool = D::DESC;
    // Where the leading key is not NULL, the row value is as exact as for non-nullable keys.
    const VALUES_ALL_ASC: bool = !D::DESC && N::ALL_ASC;
    const VALUES_ALL_DESC: bool = D::DESC && N::ALL_DESC;
    const LEVELS: bool = !N::NULLABLE;
}

impl<C, D, P, T, N> CursorKeys for Key<C, Nullable<D, P>, Option<T>, N>
where
    C: 'static,
    D: KeyDirection,
    P: NullsPlacement,
    T: CursorValue + 'static,
    N: CursorKeys,
{
    type Leading = Option<T>;

    fn has_next_region(&self, backward: bool) -> bool {
        self.value.is_some() == nulls_after::<P>(backward)
    }

    fn leading_is_null(&self) -> bool {
        self.value.is_none()
    }

    fn write_texts(texts: &[String], out: &mut Writer) -> Result<(), (usize, &'static str)> {
        write_texts::<Option<T>, N>(texts, out)
    }

    fn write_last(&self, out: &mut Writer) {
        write_last(self, out)
    }

    fn read_from_row(&mut self) {
        read_from_row(self)
    }

    fn skip_null_guard(&mut self) {
        // The NULLs' statement reads no value of this key: only the guard reads the row's.
        if self.value.is_none() {
            self.from_row = false;
        }
    }
}

impl<DB, C, D, P, V, N> SortColumns<DB> for Key<C, Nullable<D, P>, V, N>
where
    DB: Backend + SeekDialect,
    C: QueryFragment<DB> + 'static,
    D: KeyDirection,
    P: NullsPlacement,
    V: 'static,
    N: SortColumns<DB>,
{
    fn walk_order<'b>(
        &'b self,
        mut out: AstPass<'_, 'b, DB>,
        backward: bool,
        leading: LeadingNulls,
        names: &[&'static str],
    ) -> QueryResult<()> {
        let pin_nulls = leading == LeadingNulls::Pin;
        let desc = D::DESC != backward;
        let nulls_first = P::FIRST != backward;
        // Within one NULL region the placement is moot, but an engine whose indexes declare a
        // placement only serves an ORDER BY that pins the same one.
        let pin = pin_nulls || DB::INDEX_NULLS_CLAUSE;
        let native = !pin || nulls_first == (DB::ASC_NULLS_FIRST != desc);
        if !native && !DB::NULLS_CLAUSE {
            // `x IS NULL` is 0 for values and 1 for NULLs: ascending puts NULLs last.
            self.walk_ordered(out.reborrow(), names)?;
            out.push_sql(if nulls_first { " IS NULL DESC, " } else { " IS NULL ASC, " });
        }
        self.walk_ordered(out.reborrow(), names)?;
        out.push_sql(if desc { " DESC" } else { " ASC" });
        if !native && DB::NULLS_CLAUSE {
            out.push_sql(if nulls_first { " NULLS FIRST" } else { " NULLS LAST" });
        }
        self.walk_rest_of_order(out, backward, names)
    }

    fn walk_columns<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.walk_column_list(out)
    }

    fn walk_leading<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.column.walk_ast(out)
    }
}

impl<DB, C, D, P, T, N> SeekKeys<DB> for Key<C, Nullable<D, P>, Option<T>, N>
where
    DB: Backend + SeekDialect + HasSqlType<C::SqlType>,
    C: Expression + QueryFragment<DB> + 'static,
    D: KeyDirection,
    P: NullsPlacement,
    Option<T>: ToSql<C::SqlType, DB>,
    T: CursorValue + 'static,
    N: SeekKeys<DB>,
{
    fn walk_chain<'b>(
        &'b self,
        mut out: AstPass<'_, 'b, DB>,
        backward: bool,
        region: Region,
        stop: Stop,
    ) -> QueryResult<()> {
        let after = nulls_after::<P>(backward);
        let last = stop.last(1, Self::LEN);
        out.push_sql("(");
        // At a row given by its id, whether the row's value is NULL says which rows lie past
        // it, and the statement is written before that is read: it assumes the cursor's
        // region, and holds nothing where the row lies in the other (see `RowKeys`).
        if self.from_row {
            self.walk_value(out.reborrow())?;
            out.push_sql(if self.value.is_some() {
                " IS NOT NULL AND ("
            } else {
                " IS NULL AND ("
            });
        }
        match self.value {
            Some(_) if last => self.compare(out.reborrow(), stop.op(D::DESC, backward))?,
            Some(_) => {
                self.compare(out.reborrow(), strict_op(D::DESC, backward))?;
                out.push_sql(" OR (");
                self.compare(out.reborrow(), " = ")?;
                out.push_sql(" AND ");
                self.next.walk_chain(out.reborrow(), backward, Region::Whole, stop.deeper())?;
                out.push_sql(")");
            }
            None => {
                out.push_sql("(");
                self.is_null(out.reborrow(), true)?;
                // At the last key compared, the NULLs tie with a NULL value: kept when inclusive.
                match (last, stop.inclusive) {
                    (false, _) => {
                        out.push_sql(" AND ");
                        self.next.walk_chain(
                            out.reborrow(),
                            backward,
                            Region::Whole,
                            stop.deeper(),
                        )?;
                    }
                    (true, true) => {}
                    (true, false) => out.push_sql(" AND 1 = 0"),
                }
                out.push_sql(")");
            }
        }
        let other_region = match self.value {
            Some(_) => after,
            None => !after,
        };
        if other_region && region == Region::Whole {
            out.push_sql(" OR ");
            self.is_null(out.reborrow(), self.value.is_some())?;
        }
        out.push_sql(if self.from_row { "))" } else { ")" });
        Ok(())
    }

    fn walk_leading_bound<'b>(
        &'b self,
        mut out: AstPass<'_, 'b, DB>,
        backward: bool,
        region: Region,
        stop: Stop,
    ) -> QueryResult<bool> {
        let after = nulls_after::<P>(backward);
        match self.value {
            Some(_) if after && region == Region::Whole => {
                out.push_sql("(");
                self.compare(out.reborrow(), bound_op(D::DESC, backward))?;
                out.push_sql(" OR ");
                self.is_null(out.reborrow(), true)?;
                out.push_sql(")");
            }
            Some(_) => self.compare(out, bound_op(D::DESC, backward))?,
            // Every non-NULL row is past a NULL cursor: no bound narrows the whole.
            None if !after && region == Region::Whole => return Ok(false),
            // The chain opens with `x IS NULL` itself. Written twice, the test made PostgreSQL
            // square its selectivity, so that a statement deep in the NULLs never got a generic
            // plan (measured: 0.134 ms against 0.044 with it once). A later key bounds instead,
            // where more than the tiebreaker follows and the chain compares it: `x IS NULL AND
            // (y < ? OR (y = ? AND ..))` seeks `y` too.
            None if N::LEN > 1 && !stop.last(1, Self::LEN) => {
                return self.next.walk_leading_bound(out, backward, Region::Whole, stop.deeper())
            }
            None => return Ok(false),
        }
        Ok(true)
    }

    fn walk_values<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        // Only reached for a leading key's non-NULL value (`KeyShape::VALUES_ALL_ASC`).
        self.walk_value_list(out)
    }

    fn walk_next_region<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        // After a non-NULL cursor the next region is the NULLs, after a NULL one the values.
        self.is_null(out, self.value.is_some())
    }

    fn walk_row<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        match N::LEN {
            0 => Err(no_row_key()),
            _ => self.next.walk_row(out),
        }
    }
}

// A nullable key's tie levels lie within the cursor's region: `x = ? AND ..`, then `x < ?`, among
// the values (neither matches a NULL), or `x IS NULL AND ..` among the NULLs, where no row is past
// another on `x` itself. They are exact only where the key leads, and only a leading nullable key
// gets levels planned (`KeyShape::LEVELS`), after a non-NULL cursor; its other region
// follows them as `Region::Next`.
impl<DB, C, D, P, T, N> LevelKeys<DB> for Key<C, Nullable<D, P>, Option<T>, N>
where
    DB: Backend + SeekDialect + HasSqlType<C::SqlType>,
    C: Expression + QueryFragment<DB> + 'static,
    D: KeyDirection,
    P: NullsPlacement,
    Option<T>: ToSql<C::SqlType, DB>,
    T: CursorValue + 'static,
    N: LevelKeys<DB>,
{
    fn walk_level<'b>(
        &'b self,
        mut out: AstPass<'_, 'b, DB>,
        backward: bool,
        level: usize,
        (range, inclusive): (bool, bool),
    ) -> QueryResult<()> {
        let stop = Stop { depth: 1, inclusive };
        match (&self.value, level) {
            (Some(_), 0 | 1) => return self.compare(out, stop.op(D::DESC, backward)),
            (Some(_), _) => self.compare_equal(out.reborrow(), range && level == 2)?,
            // Among the NULLs no row is past another on `x`; inclusive, they tie with the value.
            (None, 0 | 1) if inclusive => return self.is_null(out, true),
            (None, 0 | 1) => {
                out.push_sql("1 = 0");
                return Ok(());
            }
            (None, _) => self.is_null(out.reborrow(), true)?,
        }
        out.push_sql(" AND ");
        self.next.walk_level(out, backward, level - 1, (range, inclusive))
    }
}

impl<C, D, V, N> Key<C, D, V, N> {
    /// `column IS NULL` or `column IS NOT NULL`.
    fn is_null<'b, DB>(&'b self, mut out: AstPass<'_, 'b, DB>, null: bool) -> QueryResult<()>
    where
        DB: Backend,
        C: QueryFragment<DB>,
    {
        self.column.walk_ast(out.reborrow())?;
        out.push_sql(if null { " IS NULL" } else { " IS NOT NULL" });
        Ok(())
    }
}
