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
use diesel::prelude::*;
use keyset_runtime::relay::{load_connection_map, ConnectionArgs};

use crate::db::{posts, Conn, Db, Post};
use crate::web::run;

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
        let db = ctx.data::<Db>()?.clone();
        let connection = run(db, move |conn| connection(conn, &args))
            .await
            .map_err(|_| async_graphql::Error::new("internal error"))?;
        connection.map_err(|err| err.extend())
    }
}

/// One page of posts as a connection, on whichever backend the database is.
fn connection(
    conn: &mut Conn,
    args: &ConnectionArgs,
) -> Result<Connection<String, PostNode>, keyset_runtime::Error> {
    match conn {
        Conn::Sqlite(conn) => {
            load_connection_map(posts::table.select(Post::as_select()), args, conn, PostNode::from)
        }
        #[cfg(feature = "postgres")]
        Conn::Postgres(conn) => {
            load_connection_map(posts::table.select(Post::as_select()), args, conn, PostNode::from)
        }
    }
}
