//! A feed over a subquery's rows ([`Paginate::among_query`](crate::Paginate::among_query)): the
//! authors a user follows, as
//! `follows.filter(follower_id.eq(me)).select(author_id)`. The page reads the subquery first, at
//! most one row past the set's bound, and then pages among those values as among a list: the
//! seeks per value need each value, and the engine's limits apply to their number.

use diesel::dsl::{Filter, Limit, Select};
use diesel::query_builder::Query;
use diesel::query_dsl::methods::{FilterDsl, LimitDsl, SelectDsl};
use diesel::sql_types;
use diesel::QueryResult;

use super::Among;
use crate::error::Error;
use crate::request::{PageRequest, RequestError};
use crate::sql::InRows;

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

/// The query `Q` among the values its column `C` takes in the rows of a subquery `S`: a page
/// reads the subquery first, then pages as [`Among`] a list of them. Built by
/// [`Paginate::among_query`](crate::Paginate::among_query); a query like any other.
#[derive(Debug, Clone)]
pub struct AmongQuery<Q, C, S> {
    query: Q,
    column: C,
    rows: S,
    max_set: usize,
}

impl<Q, C, S> AmongQuery<Q, C, S> {
    /// `query` among the values of `column` in the rows of `rows`.
    pub(crate) fn new(query: Q, column: C, rows: S) -> Self {
        AmongQuery { query, column, rows, max_set: PageRequest::DEFAULT_MAX_SET }
    }

    /// Pages among at most `max_set` of the subquery's values (see [`Among::max_set`]): a page
    /// reads at most one row past it, and a subquery that yields more fails the page with
    /// [`RequestError::SetTooLarge`] (`len: None`) before the page's own statements.
    ///
    /// ```
    /// # use diesel::prelude::*;
    /// # use keyset_runtime::{Error, Keyset, PageRequest, Paginate, RequestError};
    /// # diesel::table! { posts (id) { id -> BigInt, author_id -> BigInt } }
    /// # diesel::table! { follows (follower_id, author_id) { follower_id -> BigInt, author_id -> BigInt } }
    /// # diesel::allow_tables_to_appear_in_same_query!(posts, follows);
    /// # #[derive(Queryable, Selectable, Keyset, Debug)]
    /// # #[keyset(prefix(author_id))]
    /// # struct Post { #[sort(desc)] #[tiebreaker] id: i64, author_id: i64 }
    /// # let mut conn = SqliteConnection::establish(":memory:").unwrap();
    /// # diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY, author_id BIGINT NOT NULL)").execute(&mut conn).unwrap();
    /// # diesel::sql_query("CREATE TABLE follows (follower_id BIGINT NOT NULL, author_id BIGINT NOT NULL, PRIMARY KEY (follower_id, author_id))").execute(&mut conn).unwrap();
    /// # diesel::sql_query("INSERT INTO follows VALUES (1, 7), (1, 8), (1, 9)").execute(&mut conn).unwrap();
    /// let followed = follows::table.filter(follows::follower_id.eq(1)).select(follows::author_id);
    /// let refused = posts::table
    ///     .select(Post::as_select())
    ///     .among_query(posts::author_id, followed)
    ///     .max_set(2)
    ///     .paginate(&PageRequest::first(20))?
    ///     .load_page(&mut conn)
    ///     .unwrap_err();
    /// assert!(matches!(refused, Error::Request(RequestError::SetTooLarge { len: None, max: 2 })));
    /// # Ok::<(), keyset_runtime::Error>(())
    /// ```
    pub fn max_set(mut self, max_set: usize) -> Self {
        self.max_set = max_set.min(PageRequest::MAX_SET);
        self
    }
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

/// The query among the subquery's values, `column IN (subquery)`, with another selection: what
/// [`Paginated::total_count`](crate::Paginated::total_count) counts.
impl<Q, C, S, Selection: diesel::Expression> SelectDsl<Selection> for AmongQuery<Q, C, S>
where
    Q: FilterDsl<InRows<C, S>>,
    Filter<Q, InRows<C, S>>: SelectDsl<Selection>,
{
    type Output = Select<Filter<Q, InRows<C, S>>, Selection>;
    fn select(self, selection: Selection) -> Self::Output {
        let member = InRows::new(self.column, self.rows);
        SelectDsl::select(FilterDsl::filter(self.query, member), selection)
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
