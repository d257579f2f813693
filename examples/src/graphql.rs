//! The Relay GraphQL API: the posts as a Relay connection, with async-graphql.
//!
//! ```graphql
//! {
//!   posts(first: 3, after: "..") {
//!     edges { cursor node { id title createdAt } }
//!     pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
//!   }
//! }
//! ```
//!
//! Served at `POST /graphql` (a JSON body `{"query": "..", "variables": {..}}`), by
//! [`router`].

use async_graphql::connection::Connection;
use async_graphql::{
    Context, EmptyMutation, EmptySubscription, ErrorExtensions, Object, Schema, SimpleObject,
};
use axum::routing::post;
use axum::{Json, Router};
use chrono::NaiveDateTime;
use diesel::{QueryDsl, SelectableHelper};
use keyset_runtime::relay::{load_connection_map_async, ConnectionArgs};
use keyset_runtime::{AsyncPageQuery, Paginate};

use crate::db::{posts, Backend, Db, Post, PostsQuery};
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
    /// When it was created (UTC).
    pub created_at: NaiveDateTime,
}

impl From<Post> for PostNode {
    fn from(post: Post) -> Self {
        PostNode { id: post.id, title: post.title, created_at: post.created_at }
    }
}

/// The root of queries.
pub struct QueryRoot;

#[Object]
impl QueryRoot {
    /// Posts, newest first: a Relay connection. Page forward with `first` and `after`, backward
    /// with `last` and `before`; any edge's `cursor` works with either.
    async fn posts(
        &self,
        ctx: &Context<'_>,
        after: Option<String>,
        before: Option<String>,
        first: Option<i32>,
        last: Option<i32>,
    ) -> async_graphql::Result<Connection<String, PostNode>> {
        let args = ConnectionArgs::new(after, before, first, last).map_err(|err| err.extend())?;
        let db = ctx.data::<Db>()?;
        let connection = match db.backend() {
            Backend::Sqlite(pool) => {
                connection(&mut *pool.get().await.map_err(unavailable)?, &args).await
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(pool) => {
                connection(&mut *pool.get().await.map_err(unavailable)?, &args).await
            }
            #[cfg(feature = "mysql")]
            Backend::Mysql(pool) => {
                connection(&mut *pool.get().await.map_err(unavailable)?, &args).await
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

/// One page of posts as a connection, on any connection keyset can page posts on: the resolver's
/// code, written once for every backend.
async fn connection<C>(
    conn: &mut C,
    args: &ConnectionArgs,
) -> Result<Connection<String, PostNode>, keyset_runtime::Error>
where
    C: diesel_async::AsyncConnectionCore,
    PostsQuery<C::Backend>: AsyncPageQuery<'static, C> + Paginate<Model = Post>,
{
    let query = posts::table.select(Post::as_select());
    load_connection_map_async(query, args, conn, PostNode::from).await
}
