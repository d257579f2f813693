//! The Relay GraphQL API: the posts as a Relay connection, with async-graphql.
//!
//! ```graphql
//! {
//!   posts(orderBy: TOP, direction: ASC, first: 3, after: "..") {
//!     edges { cursor node { id title score createdAt } }
//!     pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
//!   }
//! }
//! ```
//!
//! `orderBy` is `NEW` (the default), `TOP` or `TITLE`, the model's named orders; `direction` is
//! that of the order's first key (without it, the order as declared), the other reversing every
//! key. A cursor pages on in its own order and direction only.
//!
//! Served at `POST /graphql` (a JSON body `{"query": "..", "variables": {..}}`), by
//! [`router`].

use async_graphql::connection::Connection;
use async_graphql::{
    Context, EmptyMutation, EmptySubscription, Enum, ErrorExtensions, Object, Schema, SimpleObject,
};
use axum::routing::post;
use axum::{Json, Router};
use chrono::NaiveDateTime;
use diesel::{QueryDsl, SelectableHelper};
use keyset_runtime::relay::{load_connection_by_async, ConnectionArgs};
use keyset_runtime::{AsyncPageQuery, Paginate, SortDirection};

use crate::db::{posts, Backend, Db, Post, PostOrder, PostsQuery};
use crate::pool::PoolError;

/// The schema: queries only.
pub type BlogSchema = Schema<QueryRoot, EmptyMutation, EmptySubscription>;

/// The schema, resolving against `db`.
pub fn schema(db: Db) -> BlogSchema {
    Schema::build(QueryRoot, EmptyMutation, EmptySubscription).data(db).finish()
}

/// `POST /graphql`, executing against `schema`.
pub fn router(schema: BlogSchema) -> Router {
    Router::new()
        .route(
            "/graphql",
            post(
                |axum::extract::State(schema): axum::extract::State<BlogSchema>,
                 Json(request): Json<async_graphql::Request>| async move {
                    Json(schema.execute(request).await)
                },
            ),
        )
        .with_state(schema)
}

/// A post, as the schema shows it. (Named `Post`, so its connection is `PostConnection` and its
/// edges `PostEdge`.)
#[derive(SimpleObject)]
#[graphql(name = "Post")]
pub struct PostNode {
    /// The post's id.
    pub id: i64,
    /// Its title.
    pub title: String,
    /// Its score.
    pub score: i32,
    /// When it was created (UTC).
    pub created_at: NaiveDateTime,
}

impl From<Post> for PostNode {
    fn from(post: Post) -> Self {
        PostNode { id: post.id, title: post.title, score: post.score, created_at: post.created_at }
    }
}

/// The orders a client chooses from: the model's named orders, as GraphQL names enum values.
#[derive(Enum, Clone, Copy, PartialEq, Eq, Default)]
#[graphql(name = "PostOrder")]
pub enum PostOrderBy {
    /// Newest first: `created_at DESC, id DESC`.
    #[default]
    New,
    /// Highest score first: `score DESC, created_at DESC, id DESC`.
    Top,
    /// By title: `title ASC, id ASC`.
    Title,
}

impl From<PostOrderBy> for PostOrder {
    fn from(order: PostOrderBy) -> Self {
        match order {
            PostOrderBy::New => PostOrder::New,
            PostOrderBy::Top => PostOrder::Top,
            PostOrderBy::Title => PostOrder::Title,
        }
    }
}

/// The direction of the order's first key.
#[derive(Enum, Clone, Copy, PartialEq, Eq)]
#[graphql(name = "Direction")]
pub enum Direction {
    /// Ascending.
    Asc,
    /// Descending.
    Desc,
}

impl From<Direction> for SortDirection {
    fn from(direction: Direction) -> Self {
        match direction {
            Direction::Asc => SortDirection::Asc,
            Direction::Desc => SortDirection::Desc,
        }
    }
}

/// The root of queries.
pub struct QueryRoot;

#[Object]
impl QueryRoot {
    /// Posts in the order `orderBy` (newest first by default) and `direction`: a Relay
    /// connection. Page forward with `first` and `after`, backward with `last` and `before`; any
    /// edge's `cursor` works with either, in the same order and direction.
    #[allow(clippy::too_many_arguments)]
    async fn posts(
        &self,
        ctx: &Context<'_>,
        order_by: Option<PostOrderBy>,
        direction: Option<Direction>,
        after: Option<String>,
        before: Option<String>,
        first: Option<i32>,
        last: Option<i32>,
    ) -> async_graphql::Result<Connection<String, PostNode>> {
        let args = ConnectionArgs::new(after, before, first, last).map_err(|err| err.extend())?;
        let order =
            (PostOrder::from(order_by.unwrap_or_default()), direction.map(SortDirection::from));
        let db = ctx.data::<Db>()?;
        let connection = match db.backend() {
            Backend::Sqlite(pool) => {
                connection(&mut *pool.get().await.map_err(unavailable)?, order, &args).await
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(pool) => {
                connection(&mut *pool.get().await.map_err(unavailable)?, order, &args).await
            }
            #[cfg(feature = "mysql")]
            Backend::Mysql(pool) => {
                connection(&mut *pool.get().await.map_err(unavailable)?, order, &args).await
            }
        };
        // A bad cursor is `BAD_USER_INPUT` with the reason; a database failure is logged, and
        // the client is told no more.
        connection.map_err(|err| {
            if !err.is_client_error() {
                eprintln!("internal error: {err}");
            }
            err.extend()
        })
    }
}

/// No connection: logged, and the client is told no more.
fn unavailable(err: PoolError) -> async_graphql::Error {
    eprintln!("internal error: {err}");
    async_graphql::Error::new("internal error: no database connection")
}

/// One page of posts in `order` as a connection, on any connection keyset can page posts on:
/// the resolver's code, written once for every backend and every order.
async fn connection<C>(
    conn: &mut C,
    (order, direction): (PostOrder, Option<SortDirection>),
    args: &ConnectionArgs,
) -> Result<Connection<String, PostNode>, keyset_runtime::Error>
where
    C: diesel_async::AsyncConnectionCore,
    PostsQuery<C::Backend>:
        AsyncPageQuery<'static, C, PostOrder> + Paginate<Model = Post, Item = Post>,
{
    let query = posts::table.select(Post::as_select());
    load_connection_by_async(query, order, direction, args, conn, PostNode::from).await
}
