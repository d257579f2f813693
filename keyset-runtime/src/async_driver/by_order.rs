//! Pages in an order chosen at run time on a diesel-async connection (`PaginatedBy`): the async
//! counterpart of the sync driver's `PageQueryBy`, walking the list of orders to the chosen one
//! and running its page as [`RunStatementAsync`] does any other.

use std::future::Future;

use crate::fetched::Loaded;
use crate::order::{no_order, Nil, OrderList, Orders, SortOrder};
use crate::ordered::{Load, PaginatedBy};
use crate::page::Paginate;
use crate::position::decode;
use crate::{Error, Page};

use super::{PageFuture, RunStatementAsync};

impl<Q: Paginate, O: Orders<Row = Q::Model>> PaginatedBy<Q, O> {
    /// [`load_page`](Self::load_page) on a diesel-async connection: the same statements, the same
    /// `Page` and the same tokens, as
    /// [`Paginated::load_page_async`](crate::Paginated::load_page_async) is to
    /// [`Paginated::load_page`](crate::Paginated::load_page). The future is `Send`.
    pub fn load_page_async<'query: 'conn, 'conn, Conn>(
        self,
        conn: &'conn mut Conn,
    ) -> impl Future<Output = Result<Page<Q::Item>, Error>> + Send + 'conn
    where
        Q: AsyncPageQueryBy<'query, Conn, O> + 'conn,
        Q::Item: Send,
    {
        let loaded = self.load_edges_async(conn, false);
        async move { Ok(loaded.await?.page) }
    }

    /// The page, and with `edges` each row's own token (Relay's edges).
    pub(crate) fn load_edges_async<'query: 'conn, 'conn, Conn>(
        self,
        conn: &'conn mut Conn,
        edges: bool,
    ) -> PageFuture<'conn, Loaded<Q::Item>>
    where
        Q: AsyncPageQueryBy<'query, Conn, O> + 'conn,
        Q::Item: Send,
    {
        match self.load(edges) {
            Ok((query, index, load)) => query.load_page_in_async(index, load, conn),
            Err(error) => Box::pin(std::future::ready(Err(error))),
        }
    }
}

/// A query whose pages can be loaded on the diesel-async connection `Conn` in every order of
/// `O`, declared and reversed: the async counterpart of [`PageQueryBy`](crate::PageQueryBy).
/// Implemented for every such query.
#[diagnostic::on_unimplemented(
    message = "the query `{Self}` cannot be paged on `{Conn}` in the orders of `{O}`",
    note = "`load_page_async` takes a query that selects `Model::as_select()` (plain, filtered, joined or boxed), is `Send`, and that diesel-async can load on `{Conn}` with a filter, an ORDER BY and a LIMIT added"
)]
pub trait AsyncPageQueryBy<'query, Conn, O: Orders>: Paginate {
    /// Loads the page `load` asks for in the order at `index` of `O::List`.
    #[doc(hidden)]
    fn load_page_in_async<'conn>(
        self,
        index: usize,
        load: Load,
        conn: &'conn mut Conn,
    ) -> PageFuture<'conn, Loaded<Self::Item>>
    where
        Self: 'conn,
        'query: 'conn;
}

impl<'query, Conn, O, Q> AsyncPageQueryBy<'query, Conn, O> for Q
where
    O: Orders,
    Q: AsyncPageQueries<'query, Conn, O::List>,
{
    fn load_page_in_async<'conn>(
        self,
        index: usize,
        load: Load,
        conn: &'conn mut Conn,
    ) -> PageFuture<'conn, Loaded<Q::Item>>
    where
        Self: 'conn,
        'query: 'conn,
    {
        self.load_in_async(index, load, conn)
    }
}

/// [`AsyncPageQueryBy`] for one list of orders, by walking it to the chosen one.
#[doc(hidden)]
pub trait AsyncPageQueries<'query, Conn, List: OrderList>: Paginate {
    /// Loads the page in the order at `index` of `List`.
    fn load_in_async<'conn>(
        self,
        index: usize,
        load: Load,
        conn: &'conn mut Conn,
    ) -> PageFuture<'conn, Loaded<Self::Item>>
    where
        Self: 'conn,
        'query: 'conn;
}

impl<'query, Conn, Q, Row: 'static> AsyncPageQueries<'query, Conn, Nil<Row>> for Q
where
    Q: Paginate,
    Q::Item: Send,
{
    fn load_in_async<'conn>(
        self,
        _: usize,
        _: Load,
        _: &'conn mut Conn,
    ) -> PageFuture<'conn, Loaded<Q::Item>>
    where
        Self: 'conn,
        'query: 'conn,
    {
        Box::pin(std::future::ready(Err(no_order())))
    }
}

impl<'query, Conn, Q, O, Rest> AsyncPageQueries<'query, Conn, (O, Rest)> for Q
where
    O: SortOrder,
    Rest: OrderList<Row = O::Row>,
    Q: RunStatementAsync<'query, O, Conn> + AsyncPageQueries<'query, Conn, Rest>,
    Q::Item: Send,
{
    fn load_in_async<'conn>(
        self,
        index: usize,
        load: Load,
        conn: &'conn mut Conn,
    ) -> PageFuture<'conn, Loaded<Q::Item>>
    where
        Self: 'conn,
        'query: 'conn,
    {
        if index > 0 {
            return AsyncPageQueries::<'query, Conn, Rest>::load_in_async(
                self,
                index - 1,
                load,
                conn,
            );
        }
        match decode::<O>(&load.codec, &load.start.position, load.start.reading) {
            Ok(position) => {
                let fetched = self.load_at_async(position, load.limit, conn);
                Box::pin(async move { fetched.await?.finish(&load.codec, load.edges) })
            }
            Err(error) => Box::pin(std::future::ready(Err(error))),
        }
    }
}
