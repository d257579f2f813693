//! [`PaginatedBy`]: a page in a sort order chosen at run time, from a model's named orders
//! ([`Orders`]). What it runs is looked up in the orders' list by position; from there on it is
//! a page of one static order, exactly as [`Paginated`](crate::Paginated) loads one.

use std::marker::PhantomData;

use diesel::dsl::{CountStar, Select};
use diesel::query_builder::Query;
use diesel::query_dsl::methods::SelectDsl;
use diesel::query_dsl::LoadQuery;
use diesel::RunQueryDsl;

use crate::order::{list_index, OrderList, Orders, SortDirection, Start};
use crate::page::Paginate;
use crate::position::Reading;
use crate::request::PageRequest;
use crate::selection::SelectsModel;
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
    pub(crate) start: Start,
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
        request.served_limit(PageRequest::DEFAULT_MAX_LIMIT)?;
        let start = Start { position: request.position().clone(), reading: Reading::Exact };
        PaginatedBy::at(query, list_index(order, dir), start, request.limit(), codec)
    }

    /// The page of `limit` rows at `start` in the order at `index` of the list: fails when the
    /// start's token is not that order's.
    pub(crate) fn at(
        query: Q,
        index: usize,
        start: Start,
        limit: Option<u32>,
        codec: Codec,
    ) -> Result<Self, Error> {
        O::List::check(index, &codec, &start)?;
        Ok(PaginatedBy {
            query,
            index,
            start,
            limit,
            max_limit: PageRequest::DEFAULT_MAX_LIMIT,
            codec,
            order: PhantomData,
        })
    }

    /// What loading the page takes, with `edges` to issue each row's token too (Relay).
    pub(crate) fn load(self, edges: bool) -> Result<(Q, usize, Load), Error> {
        let limit = crate::request::served_limit(self.limit, self.max_limit)?;
        Ok((self.query, self.index, Load { start: self.start, limit, codec: self.codec, edges }))
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

/// What a page in a chosen order takes to load, besides the query and the connection. (Named in
/// the drivers' hidden methods only.)
#[doc(hidden)]
pub struct Load {
    pub(crate) start: Start,
    /// The page size served.
    pub(crate) limit: u32,
    pub(crate) codec: Codec,
    /// Whether to issue each row's token too, for Relay's edges.
    pub(crate) edges: bool,
}
