//! Loading a connection: one keyset page, sync or async, turned into async-graphql's
//! [`Connection`] with a cursor per edge and `pageInfo`.

use async_graphql::connection::{Connection, Edge};
use async_graphql::{OutputType, SimpleObject};

use super::ConnectionArgs;
use crate::count::TotalCount;
use crate::error::Error;
use crate::fetched::Loaded;
use crate::orders::list::OrderSet;
use crate::orders::named::{list_index, OrdersOf, SortDirection};
use crate::paginate::{Paginate, Paginated};
use crate::position::Reading;
use crate::run::PageQuery;

/// The field a keyset connection adds to Relay's: `totalCount`, the listing's rows with the
/// kind of number it is (`totalCount { kind count page pages }`, see [`TotalCount`]), `null`
/// unless the arguments asked for a count ([`ConnectionArgs::count`]).
///
/// ```
/// # use diesel::prelude::*;
/// # use keyset_runtime::Keyset;
/// use keyset_runtime::relay::{load_connection, ConnectionArgs, CountedConnection};
/// use keyset_runtime::{Count, TotalKind};
/// # diesel::table! { posts (id) { id -> BigInt } }
/// # #[derive(Queryable, Selectable, Keyset, async_graphql::SimpleObject)]
/// # struct Post { #[sort(asc)] #[tiebreaker] id: i64 }
/// # let mut conn = SqliteConnection::establish(":memory:").unwrap();
/// # diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY)").execute(&mut conn).unwrap();
/// # diesel::sql_query("INSERT INTO posts VALUES (1), (2), (3)").execute(&mut conn).unwrap();
/// let args = ConnectionArgs::new(None, None, Some(2), None)?.count(Count::Bounded).count_cap(2);
/// let connection: CountedConnection<Post> =
///     load_connection(posts::table.select(Post::as_select()), &args, &mut conn)?;
/// let total = connection.additional_fields.total_count.unwrap();
/// assert_eq!((total.kind, total.count), (TotalKind::AtLeast, 2)); // "2+"
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, SimpleObject)]
pub struct ConnectionTotal {
    /// The listing's rows, when the arguments asked for a count.
    pub total_count: Option<TotalCount>,
}

/// The connection every `load_connection` function returns: async-graphql's own, its cursors
/// strings, with [`ConnectionTotal`]'s `totalCount`.
pub type CountedConnection<N> = Connection<String, N, ConnectionTotal>;

/// Loads the page `args` asks for as a Relay connection whose nodes are the model's rows.
///
/// `query` is any query [`paginate`](crate::Paginate::paginate) takes (plain, filtered, joined or
/// boxed, selecting `Model::as_select()`). Fails before any query when a cursor is malformed or
/// foreign; see the [module docs](crate::relay) for the cursors and `pageInfo`.
pub fn load_connection<'query, Q, Conn>(
    query: Q,
    args: &ConnectionArgs,
    conn: &mut Conn,
) -> Result<CountedConnection<Q::Item>, Error>
where
    Q: PageQuery<'query, Conn>,
    Q::Item: OutputType,
{
    load_connection_map(query, args, conn, |row| row)
}

/// Like [`load_connection`], with every row turned into a node by `node`, e.g. into a GraphQL
/// object that is not the Diesel model.
///
/// ```
/// # use diesel::prelude::*;
/// # use keyset_runtime::Keyset;
/// use keyset_runtime::relay::{load_connection_map, ConnectionArgs};
///
/// # diesel::table! { posts (id) { id -> BigInt, title -> Text } }
/// # #[derive(Queryable, Selectable, Keyset)]
/// # struct Post { #[sort(asc)] #[tiebreaker] id: i64, title: String }
/// # let mut conn = SqliteConnection::establish(":memory:").unwrap();
/// # diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY, title TEXT NOT NULL)").execute(&mut conn).unwrap();
/// # diesel::sql_query("INSERT INTO posts VALUES (1, 'a'), (2, 'b')").execute(&mut conn).unwrap();
/// /// What the schema shows of a post.
/// #[derive(async_graphql::SimpleObject)]
/// struct PostNode {
///     title: String,
/// }
///
/// let args = ConnectionArgs::new(None, None, None, Some(1)).unwrap();
/// let query = posts::table.select(Post::as_select());
/// let connection = load_connection_map(query, &args, &mut conn, |post| PostNode { title: post.title })?;
/// assert_eq!(connection.edges[0].node.title, "b");
/// assert!(connection.has_previous_page && !connection.has_next_page);
/// # Ok::<(), keyset_runtime::Error>(())
/// ```
pub fn load_connection_map<'query, Q, Conn, N>(
    query: Q,
    args: &ConnectionArgs,
    conn: &mut Conn,
    node: impl FnMut(Q::Item) -> N,
) -> Result<CountedConnection<N>, Error>
where
    Q: PageQuery<'query, Conn>,
    N: OutputType,
{
    connection(args.paginated::<Q, Q::Model>(query, 0)?.load_edges(conn)?, args, node)
}

/// Loads the page `args` asks for as a Relay connection, in the named order `order` of the model
/// in direction `dir` (see [`Paginate::paginate_by`](crate::Paginate::paginate_by)), with every
/// row turned into a node by `node` (`|row| row` for the model itself). An edge's cursor pages on
/// in the same order and direction only: sent with another, it is refused
/// ([`CursorError::OtherOrder`](crate::CursorError::OtherOrder)).
///
/// ```
/// # use diesel::prelude::*;
/// use keyset_runtime::relay::{load_connection_by, ConnectionArgs};
/// use keyset_runtime::{Keyset, SortDirection};
///
/// # diesel::table! { posts (id) { id -> BigInt, score -> Integer } }
/// #[derive(Queryable, Selectable, Keyset, async_graphql::SimpleObject)]
/// #[keyset(order(new: id desc), order(top: score desc, id desc))]
/// struct Post {
///     #[tiebreaker]
///     id: i64,
///     score: i32,
/// }
///
/// # let mut conn = SqliteConnection::establish(":memory:").unwrap();
/// # diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY, score INTEGER NOT NULL)").execute(&mut conn).unwrap();
/// # diesel::sql_query("INSERT INTO posts VALUES (1, 5), (2, 9), (3, 7)").execute(&mut conn).unwrap();
/// // `posts(orderBy: TOP, direction: ASC, first: 2)`
/// let args = ConnectionArgs::new(None, None, Some(2), None).unwrap();
/// let query = || posts::table.select(Post::as_select());
/// let (top, asc) = (PostOrder::Top, Some(SortDirection::Asc));
/// let page = load_connection_by(query(), top, asc, &args, &mut conn, |post| post)?;
/// assert_eq!(page.edges.iter().map(|edge| edge.node.id).collect::<Vec<_>>(), [1, 3]);
///
/// // `after: <last cursor>` pages on in `top asc`, and only there.
/// let after = ConnectionArgs::new(Some(page.edges[1].cursor.clone()), None, Some(2), None).unwrap();
/// let next = load_connection_by(query(), top, asc, &after, &mut conn, |post| post)?;
/// assert_eq!(next.edges.iter().map(|edge| edge.node.id).collect::<Vec<_>>(), [2]);
/// assert!(load_connection_by(query(), PostOrder::New, None, &after, &mut conn, |post| post).is_err());
/// # Ok::<(), keyset_runtime::Error>(())
/// ```
pub fn load_connection_by<'query, Q, Conn, O, N>(
    query: Q,
    order: O,
    dir: Option<SortDirection>,
    args: &ConnectionArgs,
    conn: &mut Conn,
    node: impl FnMut(Q::Item) -> N,
) -> Result<CountedConnection<N>, Error>
where
    Q: PageQuery<'query, Conn, <O as OrdersOf<<Q as Paginate>::Model>>::Set>,
    O: OrdersOf<<Q as Paginate>::Model>,
    N: OutputType,
{
    let paginated = args.paginated::<Q, O::Set>(query, list_index(order.order(), dir))?;
    connection(paginated.load_edges(conn)?, args, node)
}

impl ConnectionArgs {
    /// The page these arguments ask for, in the order at `index` of `O`'s list: a cursor is read
    /// as a row's either way (see the module docs).
    fn paginated<Q: Paginate, O: OrderSet<Row = Q::Model>>(
        &self,
        query: Q,
        index: usize,
    ) -> Result<Paginated<Q, O>, Error> {
        let (position, limit) = ((&self.position, Reading::EitherWay), Ok(self.fetched_limit()));
        Paginated::resolve(query, index, position, limit, (self.codec.clone(), self.counting))
    }
}

/// The connection of a page loaded for `args`: its edges, each with its row's cursor, and
/// `pageInfo`.
fn connection<Row, N: OutputType>(
    Loaded { page, edges }: Loaded<Row>,
    args: &ConnectionArgs,
    mut node: impl FnMut(Row) -> N,
) -> Result<CountedConnection<N>, Error> {
    let limit = args.limit();
    // Ahead, the probe row says; behind, a cursor says (its row lay there), even on an empty page.
    let (mut has_previous_page, mut has_next_page) = if args.is_backward() {
        (page.has_prev(), args.has_cursor())
    } else {
        (args.has_cursor(), page.has_next())
    };
    let mut rows = page.items;
    if limit == 0 {
        if args.is_backward() {
            has_previous_page = !rows.is_empty();
        } else {
            has_next_page = !rows.is_empty();
        }
        rows.clear();
    }
    let total = ConnectionTotal { total_count: page.total };
    let mut connection =
        Connection::with_additional_fields(has_previous_page, has_next_page, total);
    connection.edges.reserve(rows.len());
    for (row, cursor) in rows.into_iter().zip(edges) {
        connection.edges.push(Edge::new(cursor, node(row)));
    }
    Ok(connection)
}

/// [`load_connection`] on a diesel-async connection (feature `diesel-async`), for async
/// resolvers: the same page, statements and cursors.
///
/// ```
/// # use diesel::prelude::*;
/// # use keyset_runtime::Keyset;
/// use keyset_runtime::relay::{load_connection_async, ConnectionArgs};
/// # use diesel_async::sync_connection_wrapper::SyncConnectionWrapper;
/// # use diesel_async::{AsyncConnection, RunQueryDsl};
/// # diesel::table! { posts (id) { id -> BigInt } }
/// # #[derive(Queryable, Selectable, Keyset, async_graphql::SimpleObject)]
/// # struct Post { #[sort(asc)] #[tiebreaker] id: i64 }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let mut conn = SyncConnectionWrapper::<SqliteConnection>::establish(":memory:").await?;
/// # diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY)").execute(&mut conn).await?;
/// # diesel::sql_query("INSERT INTO posts VALUES (1), (2), (3)").execute(&mut conn).await?;
/// let args = ConnectionArgs::new(None, None, Some(2), None).unwrap();
/// let query = posts::table.select(Post::as_select());
/// let connection = load_connection_async(query, &args, &mut conn).await?;
/// assert_eq!(connection.edges.iter().map(|edge| edge.node.id).collect::<Vec<_>>(), [1, 2]);
/// assert!(connection.has_next_page);
/// # Ok(())
/// # }
/// ```
#[cfg(feature = "diesel-async")]
pub async fn load_connection_async<'query, Q, Conn>(
    query: Q,
    args: &ConnectionArgs,
    conn: &mut Conn,
) -> Result<CountedConnection<Q::Item>, Error>
where
    Q: crate::AsyncPageQuery<'query, Conn>,
    Q::Item: OutputType + Send,
{
    load_connection_map_async(query, args, conn, |row| row).await
}

/// [`load_connection_map`] on a diesel-async connection (feature `diesel-async`).
#[cfg(feature = "diesel-async")]
pub async fn load_connection_map_async<'query, Q, Conn, N>(
    query: Q,
    args: &ConnectionArgs,
    conn: &mut Conn,
    node: impl FnMut(Q::Item) -> N,
) -> Result<CountedConnection<N>, Error>
where
    Q: crate::AsyncPageQuery<'query, Conn>,
    Q::Item: Send,
    N: OutputType,
{
    let paginated = args.paginated::<Q, Q::Model>(query, 0)?;
    connection(paginated.load_edges_async(conn).await?, args, node)
}

/// [`load_connection_by`] on a diesel-async connection (feature `diesel-async`).
#[cfg(feature = "diesel-async")]
pub async fn load_connection_by_async<'query, Q, Conn, O, N>(
    query: Q,
    order: O,
    dir: Option<SortDirection>,
    args: &ConnectionArgs,
    conn: &mut Conn,
    node: impl FnMut(Q::Item) -> N,
) -> Result<CountedConnection<N>, Error>
where
    Q: crate::AsyncPageQuery<'query, Conn, <O as OrdersOf<<Q as Paginate>::Model>>::Set>,
    O: OrdersOf<<Q as Paginate>::Model>,
    Q::Item: Send,
    N: OutputType,
{
    let paginated = args.paginated::<Q, O::Set>(query, list_index(order.order(), dir))?;
    connection(paginated.load_edges_async(conn).await?, args, node)
}
