//! Loading a connection: one keyset page, sync or async, turned into async-graphql's
//! [`Connection`] with a cursor per edge and `pageInfo`.

use async_graphql::connection::{Connection, Edge};
use async_graphql::OutputType;

use super::ConnectionArgs;
use crate::driver::PageQuery;
use crate::page::Paginated;
use crate::token::{Anchor, Direction};
use crate::{Error, Keyset, Page};

/// Loads the page `args` asks for as a Relay connection whose nodes are the model's rows.
///
/// `query` is any query [`paginate`](crate::Paginate::paginate) takes (plain, filtered, joined or
/// boxed, selecting `Model::as_select()`). Fails before any query when a cursor is malformed or
/// foreign; see the [module docs](crate::relay) for the cursors and `pageInfo`.
pub fn load_connection<'query, Q, Conn>(
    query: Q,
    args: &ConnectionArgs,
    conn: &mut Conn,
) -> Result<Connection<String, Q::Model>, Error>
where
    Q: PageQuery<'query, Conn>,
    Q::Model: OutputType,
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
    node: impl FnMut(Q::Model) -> N,
) -> Result<Connection<String, N>, Error>
where
    Q: PageQuery<'query, Conn>,
    N: OutputType,
{
    connection(args.paginated(query)?.load_page(conn)?, args, node)
}

impl ConnectionArgs {
    /// The page these arguments ask for. `first: 0` / `last: 0` still fetch one row, to tell
    /// whether any lie that way.
    fn paginated<Q: crate::Paginate>(&self, query: Q) -> Result<Paginated<Q>, Error>
where {
        let position = self.position::<Q::Model>()?;
        Ok(Paginated::from_position(query, position, self.limit().max(1), self.codec.clone())
            .max_limit(self.max_limit))
    }
}

/// The connection of `page`, loaded for `args`: its edges, each with its row's cursor, and
/// `pageInfo`.
fn connection<M: Keyset, N: OutputType>(
    page: Page<M>,
    args: &ConnectionArgs,
    mut node: impl FnMut(M) -> N,
) -> Result<Connection<String, N>, Error> {
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
    let mut connection = Connection::new(has_previous_page, has_next_page);
    connection.edges.reserve(rows.len());
    for row in rows {
        let cursor = args.codec.issue::<M>(Direction::After, Anchor::Row(&row.cursor()))?;
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
) -> Result<Connection<String, Q::Model>, Error>
where
    Q: crate::AsyncPageQuery<'query, Conn>,
    Q::Model: OutputType + Send,
{
    load_connection_map_async(query, args, conn, |row| row).await
}

/// [`load_connection_map`] on a diesel-async connection (feature `diesel-async`).
#[cfg(feature = "diesel-async")]
pub async fn load_connection_map_async<'query, Q, Conn, N>(
    query: Q,
    args: &ConnectionArgs,
    conn: &mut Conn,
    node: impl FnMut(Q::Model) -> N,
) -> Result<Connection<String, N>, Error>
where
    Q: crate::AsyncPageQuery<'query, Conn>,
    Q::Model: Send,
    N: OutputType,
{
    connection(args.paginated(query)?.load_page_async(conn).await?, args, node)
}
