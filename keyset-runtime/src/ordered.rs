//! [`PaginatedBy`]: a page in a sort order chosen at run time, from a model's named orders
//! ([`Orders`]). What it runs is looked up in the orders' list by position; from there on it is
//! a page of one static order, exactly as [`Paginated`](crate::Paginated) loads one.

use std::marker::PhantomData;

use diesel::dsl::{CountStar, Select};
use diesel::query_builder::Query;
use diesel::query_dsl::methods::SelectDsl;
use diesel::query_dsl::LoadQuery;
use diesel::RunQueryDsl;

use crate::order::{list_index, OrderList, Orders, SortDirection};
use crate::page::{Paginate, SelectsModel};
use crate::request::{PageRequest, RequestedPosition};
use crate::token::Codec;
use crate::Error;

/// A query ready to load one page in a sort order chosen at run time. Built by
/// [`Paginate::paginate_by`]; loaded like [`Paginated`](crate::Paginated), with `load_page`
/// (or `load_page_async`), into a `Page` of the model whatever the order.
#[must_use = "a paginated query does nothing until `load_page` runs it"]
pub struct PaginatedBy<Q, O> {
    pub(crate) query: Q,
    /// The chosen order's position in `O::List` (declared or reversed).
    pub(crate) index: usize,
    /// Where the page starts; its token was checked when this was built, and is read again by
    /// the chosen order when the page loads (reading one is cheaper than keeping it typed).
    pub(crate) position: RequestedPosition,
    pub(crate) limit: Option<u32>,
    pub(crate) max_limit: u32,
    pub(crate) codec: Codec,
    order: PhantomData<fn() -> O>,
}

impl<Q: Paginate, O: Orders<Row = Q::Model>> PaginatedBy<Q, O> {
    pub(crate) fn new(
        query: Q,
        order: O,
        dir: Option<SortDirection>,
        request: &PageRequest,
        codec: Codec,
    ) -> Result<Self, Error> {
        let index = list_index(order, dir);
        O::List::check::<O::List>(index, &codec, request.position())?;
        request.served_limit(PageRequest::DEFAULT_MAX_LIMIT)?;
        Ok(PaginatedBy {
            query,
            index,
            position: request.position().clone(),
            limit: request.limit(),
            max_limit: PageRequest::DEFAULT_MAX_LIMIT,
            codec,
            order: PhantomData,
        })
    }

    /// Serves at most `max_limit` rows per page, as
    /// [`Paginated::max_limit`](crate::Paginated::max_limit) does.
    ///
    /// ```
    /// # use diesel::prelude::*;
    /// # use keyset_runtime::{Keyset, PageRequest, Paginate};
    /// # diesel::table! { posts (id) { id -> BigInt } }
    /// # #[derive(Queryable, Selectable, Keyset)]
    /// # #[keyset(order(old: id asc))]
    /// # struct Post { #[tiebreaker] id: i64 }
    /// # let mut conn = SqliteConnection::establish(":memory:").unwrap();
    /// # diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY)").execute(&mut conn).unwrap();
    /// # diesel::sql_query("INSERT INTO posts VALUES (1), (2), (3)").execute(&mut conn).unwrap();
    /// let page = posts::table
    ///     .select(Post::as_select())
    ///     .paginate_by(PostOrder::Old, None, &PageRequest::first(1_000))?
    ///     .max_limit(2)
    ///     .load_page(&mut conn)?;
    /// assert_eq!(page.items.len(), 2);
    /// # Ok::<(), keyset_runtime::Error>(())
    /// ```
    pub fn max_limit(mut self, max_limit: u32) -> Self {
        self.max_limit = max_limit.max(1);
        self
    }

    /// The number of rows the whole query matches, whatever the order and the page: see
    /// [`Paginated::total_count`](crate::Paginated::total_count), **the expensive path**.
    pub fn total_count<'query, Conn>(&self, conn: &mut Conn) -> Result<i64, Error>
    where
        Q: Query + SelectDsl<CountStar> + Clone,
        Q::SqlType: SelectsModel,
        Conn: diesel::Connection<Backend = <Q::SqlType as SelectsModel>::Backend>,
        Select<Q, CountStar>: LoadQuery<'query, Conn, i64>,
    {
        Ok(SelectDsl::select(self.query.clone(), diesel::dsl::count_star()).get_result(conn)?)
    }
}
