//! A feed over a subquery's rows ([`Paginated::among_query`]): the authors a user follows, as
//! `follows.filter(follower_id.eq(me)).select(author_id)`. The page reads the subquery first, at
//! most one row past the set's bound, and then pages among those values as among a list: the
//! seeks per value need each value, and the engine's limits apply to their number.

use diesel::dsl::{CountStar, Filter, Limit, Select};
use diesel::expression::{AsExpression, TypedExpressionType};
use diesel::query_builder::Query;
use diesel::query_dsl::methods::{FilterDsl, LimitDsl, SelectDsl};
use diesel::sql_types::{self, SqlType};
use diesel::{Column, QueryResult};

use super::{Among, Prefix};
use crate::error::Error;
use crate::orders::list::OrderSet;
use crate::paginate::{Paginate, Paginated};
use crate::request::{PageRequest, RequestError};
use crate::sql::InRows;
use crate::token::CursorValue;

/// The Rust type a subquery's values of SQL type `Self` are read as, to page among them: `i64`
/// for `BigInt`, `String` for `Text`, .. (Named in bounds only.)
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a feed reads no subquery of `{Self}` values",
    note = "load the values yourself, `.limit(max_set + 1).load::<Value>(conn)?`, and page among the list with `.among(column, values)`"
)]
pub trait SetType {
    /// The values' Rust type.
    type Value;
}

impl SetType for sql_types::SmallInt {
    type Value = i16;
}
impl SetType for sql_types::Integer {
    type Value = i32;
}
impl SetType for sql_types::BigInt {
    type Value = i64;
}
impl SetType for sql_types::Text {
    type Value = String;
}
#[cfg(all(feature = "uuid", any(feature = "postgres_backend", feature = "sqlite")))]
impl SetType for sql_types::Uuid {
    type Value = uuid::Uuid;
}

/// A query paged among the values a subquery yields of its column `C` (built by
/// [`Paginated::among_query`]; named in bounds only).
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct AmongQuery<Q, C, S> {
    query: Q,
    column: C,
    rows: S,
    max_set: usize,
}

impl<Q: Query, C, S> Query for AmongQuery<Q, C, S> {
    type SqlType = Q::SqlType;
}

/// Its count reads no set: `column IN (subquery)`, whatever the subquery yields.
impl<Q, C, S> crate::repeat::CheckSet for AmongQuery<Q, C, S> {
    fn check_set(&self, _: crate::token::Engine) -> Result<(), Error> {
        Ok(())
    }
}

/// `SELECT COUNT(*)` among the subquery's values, `column IN (subquery)`: what
/// [`Paginated::total_count`] counts.
impl<Q, C, S> SelectDsl<CountStar> for AmongQuery<Q, C, S>
where
    Q: FilterDsl<InRows<C, S>>,
    Filter<Q, InRows<C, S>>: SelectDsl<CountStar>,
{
    type Output = Select<Filter<Q, InRows<C, S>>, CountStar>;
    fn select(self, selection: CountStar) -> Self::Output {
        let member = InRows::new(self.column, self.rows);
        SelectDsl::select(FilterDsl::filter(self.query, member), selection)
    }
}

impl<Q: Paginate, O: OrderSet> Paginated<Q, O> {
    /// This page among the rows whose `column` is one of the values the subquery `rows` yields:
    /// [`among`](Self::among) a list the page reads first, at most one row past
    /// [`max_set`](Paginated::max_set) (a subquery that yields more fails the page with
    /// [`RequestError::SetTooLarge`], `len: None`, before the page's own statements), in one
    /// statement more. Everything that pages a query pages it: `load_page`, `load_page_async`,
    /// named orders, Relay connections, `total_count` (`column IN (subquery)`).
    ///
    /// ```
    /// # use diesel::prelude::*;
    /// # use keyset_runtime::{Keyset, PageRequest, Paginate};
    /// diesel::table! {
    ///     posts (id) { id -> BigInt, author_id -> BigInt }
    /// }
    /// diesel::table! {
    ///     follows (follower_id, author_id) { follower_id -> BigInt, author_id -> BigInt }
    /// }
    /// # diesel::allow_tables_to_appear_in_same_query!(posts, follows);
    ///
    /// #[derive(Queryable, Selectable, Keyset)]
    /// #[keyset(prefix(author_id))]
    /// struct Post {
    ///     #[sort(desc)]
    ///     #[tiebreaker]
    ///     id: i64,
    ///     author_id: i64,
    /// }
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let mut conn = SqliteConnection::establish(":memory:")?;
    /// # diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY, author_id BIGINT NOT NULL)").execute(&mut conn)?;
    /// # diesel::sql_query("CREATE TABLE follows (follower_id BIGINT NOT NULL, author_id BIGINT NOT NULL, PRIMARY KEY (follower_id, author_id))").execute(&mut conn)?;
    /// # diesel::sql_query("INSERT INTO posts VALUES (1, 7), (2, 8), (3, 9), (4, 7)").execute(&mut conn)?;
    /// # diesel::sql_query("INSERT INTO follows VALUES (1, 7), (1, 9), (2, 8)").execute(&mut conn)?;
    /// let me = 1;
    /// let followed = follows::table.filter(follows::follower_id.eq(me)).select(follows::author_id);
    /// let feed = posts::table
    ///     .select(Post::as_select())
    ///     .paginate(&PageRequest::first(20))?
    ///     .among_query(posts::author_id, followed);
    /// assert_eq!(feed.total_count(&mut conn)?, 3);
    /// let page = feed.load_page(&mut conn)?;
    /// assert_eq!(page.items.iter().map(|post| post.id).collect::<Vec<_>>(), [4, 3, 1]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn among_query<C, S>(self, column: C, rows: S) -> Paginated<AmongQuery<Q, C, S>, O>
    where
        Q::Model: Prefix<C>,
        C: Column<SqlType: SqlType + TypedExpressionType>,
        S: Query<SqlType: SetType<Value: AsExpression<C::SqlType> + CursorValue>>,
        AmongQuery<Q, C, S>: Paginate,
    {
        let Paginated { query, chosen, limit, codec } = self;
        let query = AmongQuery { query, column, rows, max_set: PageRequest::DEFAULT_MAX_SET };
        Paginated { query, chosen, limit, codec }
    }
}

impl<Q, C, S, O: OrderSet> Paginated<AmongQuery<Q, C, S>, O>
where
    AmongQuery<Q, C, S>: Paginate,
{
    /// Pages among at most `max_set` of the subquery's values: see
    /// [`max_set`](Paginated::max_set) of a list.
    pub fn max_set(mut self, max_set: usize) -> Self {
        self.query.max_set = max_set.min(PageRequest::MAX_SET);
        self
    }
}

impl<Q, C, S: Query<SqlType: SetType>> AmongQuery<Q, C, S> {
    /// The subquery, at most one row past the bound: what a page reads first.
    pub(crate) fn bounded_rows(&self) -> Limit<S>
    where
        S: LimitDsl + Clone,
    {
        let rows = i64::try_from(self.max_set).unwrap_or(i64::MAX).saturating_add(1);
        LimitDsl::limit(self.rows.clone(), rows)
    }

    /// The page among the subquery's `values`: refused when they are more than the bound.
    pub(crate) fn among(
        self,
        values: QueryResult<Vec<ValueOf<S>>>,
    ) -> Result<Among<Q, C, ValueOf<S>>, Error> {
        let AmongQuery { query, column, max_set, .. } = self;
        let values = values?;
        if values.len() > max_set {
            return Err(RequestError::SetTooLarge { len: None, max: max_set }.into());
        }
        Ok(Among { query, column, values, max_set })
    }
}

/// The values of a subquery of `S`.
pub(crate) type ValueOf<S> = <<S as Query>::SqlType as SetType>::Value;
