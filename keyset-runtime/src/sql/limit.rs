//! The page's `LIMIT` (and a page number's `OFFSET`): bound as a parameter (on SQLite `+?`, see
//! [`SeekDialect::OPAQUE_BINDS`]), or, on PostgreSQL, written into the SQL for the common page
//! sizes.
//!
//! PostgreSQL plans a prepared statement anew on every execution until a generic plan looks no
//! worse than the custom ones, and it costs a generic plan with `LIMIT $1` as if the limit were
//! unknown: measured, such a statement never switched to a generic plan under the default
//! `plan_cache_mode = auto` (0 of 51 executions), while the same statement with `LIMIT 21`
//! switched after five, and a page then cost 0.029 ms instead of 0.044 (uniform directions;
//! 0.040 instead of 0.063 for mixed ones): most of a page is planning.
//!
//! But the client chooses the limit: written literally for every value, a client asking for
//! each page size from 1 to 100 made about 3,600 prepared statements per connection (each
//! backend grew by 23 MB). So only the [`LITERAL_LIMITS`] are written (the statement limits of
//! pages of 5, 10, 20, 25, 30, 50 and 100 rows, the sizes listings serve by default and clients
//! pick), each planned once for good; every other limit is bound, one statement more for all
//! of them. A statement shape thus has at most eight prepared statements per connection,
//! whatever the client asks. An `OFFSET` (a page number) is always bound: its values are
//! unbounded, and a page by number is the costly path anyway.
//!
//! A literal limit makes the SQL text depend on a value, so such a statement must not keep a
//! static `QueryId`: Diesel would serve the statement of one page size for another. It is cached
//! by its SQL text instead.

use std::marker::PhantomData;

use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, HasSqlType};
use diesel::{QueryResult, RunQueryDsl};

use super::dialect::{push_value, LimitStyle, SeekDialect};

/// `<query> LIMIT n`, or `.. LIMIT n OFFSET m` (`O` = [`Offset`]), as backend style `L` writes
/// it. The query must have no limit of its own: the page machine gives every statement its own.
/// Whether an OFFSET follows is in the type, since it changes the SQL text: a statement cached by
/// type must never serve one with the other shape.
#[derive(Debug, Clone)]
pub struct Limited<Q, L, O = NoOffset> {
    query: Q,
    limit: i64,
    offset: O,
    style: PhantomData<L>,
}

/// No OFFSET.
#[derive(Debug, Clone, Copy)]
pub struct NoOffset;

/// `OFFSET m`: a page by number.
#[derive(Debug, Clone, Copy)]
pub struct Offset(i64);

impl<Q, L> Limited<Q, L> {
    /// `query` with at most `limit` rows.
    pub(crate) fn new(query: Q, limit: i64) -> Self {
        Limited { query, limit, offset: NoOffset, style: PhantomData }
    }
}

impl<Q, L> Limited<Q, L, Offset> {
    /// `query` with at most `limit` rows, after skipping `offset`.
    pub(crate) fn with_offset(query: Q, limit: i64, offset: i64) -> Self {
        Limited { query, limit, offset: Offset(offset), style: PhantomData }
    }
}

impl<Q: Query, L, O> Query for Limited<Q, L, O> {
    type SqlType = Q::SqlType;
}

impl<Q: QueryId, L: LimitStyle, O: 'static> QueryId for Limited<Q, L, O> {
    type QueryId = Limited<Q::QueryId, L, O>;
    // A literal limit is part of the SQL text: cached by that text, never by type.
    const HAS_STATIC_QUERY_ID: bool = Q::HAS_STATIC_QUERY_ID && !L::LITERAL;
}

impl<Q, L, O, DB> QueryFragment<DB> for Limited<Q, L, O>
where
    Q: QueryFragment<DB>,
    L: LimitStyle,
    O: OffsetPart,
    DB: SeekDialect + HasSqlType<BigInt>,
    i64: ToSql<BigInt, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.query.walk_ast(out.reborrow())?;
        out.push_sql(" LIMIT ");
        limit::<L, DB>(out.reborrow(), &self.limit)?;
        if let Some(offset) = self.offset.offset() {
            out.push_sql(" OFFSET ");
            push_value::<DB, BigInt, i64>(out.reborrow(), offset)?;
        }
        Ok(())
    }
}

/// Whether an OFFSET follows the LIMIT, and which.
pub trait OffsetPart: 'static {
    /// The rows to skip, if any.
    fn offset(&self) -> Option<&i64>;
}

impl OffsetPart for NoOffset {
    fn offset(&self) -> Option<&i64> {
        None
    }
}

impl OffsetPart for Offset {
    fn offset(&self) -> Option<&i64> {
        Some(&self.0)
    }
}

/// The statement limits written literally where the backend writes any ([`LimitStyle::LITERAL`]):
/// one more than the common page sizes 5, 10, 20, 25, 30, 50 and 100, the row that tells
/// whether another page follows, so that with the bound form a statement shape has at most
/// eight prepared statements; and 1, the limit of the statements and branches that read one
/// row whatever the page (a group's key, a feed's value's first row), which no page's own
/// limit is (it is at least 2).
pub(crate) const LITERAL_LIMITS: [i64; 8] = [1, 6, 11, 21, 26, 31, 51, 101];

/// A statement's limit `value`: written where `L` writes limits and it is one of the
/// [`LITERAL_LIMITS`], bound otherwise.
pub(super) fn limit<'b, L: LimitStyle, DB>(
    mut out: AstPass<'_, 'b, DB>,
    value: &'b i64,
) -> QueryResult<()>
where
    DB: SeekDialect + HasSqlType<BigInt>,
    i64: ToSql<BigInt, DB>,
{
    if L::LITERAL && LITERAL_LIMITS.contains(value) {
        out.push_sql(&value.to_string());
        Ok(())
    } else {
        push_value::<DB, BigInt, i64>(out, value)
    }
}

impl<Q, L, O, Conn> RunQueryDsl<Conn> for Limited<Q, L, O> {}
