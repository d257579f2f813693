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
//! `feed(authors: [1, 2, 3], ..)` takes the same arguments and pages the posts of those authors
//! (at most [`MAX_FEED_AUTHORS`] of them), one index seek per author at most, as `/feed` does; its
//! cursors page `posts` too, and the other way round.
//!
//! Served at `POST /graphql` (a JSON body `{"query": "..", "variables": {..}}`), by
//! [`router`]. Errors carry `extensions.code`: `BAD_USER_INPUT` (a bad cursor or argument, with
//! the reason), `SERVICE_UNAVAILABLE` (no database connection free within the pool's wait
//! timeout; `extensions.retryAfter` in seconds), `INTERNAL_SERVER_ERROR` (the detail logged, not
//! shown).
//!
//! HTTP status: a GraphQL response is `200` even with errors, as the GraphQL-over-HTTP spec asks
//! of `application/json` (a field's error is part of the result, beside the data that could be
//! had); but a response with no data at all because the database was busy is `503` with
//! `Retry-After` (and the same GraphQL body), since then the service could serve nothing, as a
//! proxy in front of it would say when overloaded: load balancers and clients' retry logic read
//! the status, not the body. A query string over [`MAX_QUERY_LEN`](crate::web::MAX_QUERY_LEN) is
//! `414`, its body a GraphQL error too.

use async_graphql::{
    Context, EmptyMutation, EmptySubscription, Enum, ErrorExtensions, Object, Schema, SimpleObject,
};
use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use chrono::NaiveDateTime;
use diesel::{QueryDsl, SelectableHelper};
use keyset_runtime::relay::{load_connection_by_async, ConnectionArgs, CountedConnection};
use keyset_runtime::{Among, AsyncPageQuery, Count, Paginate, SortDirection};

use crate::db::feed::MAX_FEED_AUTHORS;
use crate::db::{posts, Backend, Db, Post, PostOrder, PostsQuery};
use crate::pool::PoolError;
use crate::web::{query_too_long, RETRY_AFTER_SECS};

/// `extensions.code` when no database connection came free in time: retry later.
const SERVICE_UNAVAILABLE: &str = "SERVICE_UNAVAILABLE";

/// The schema: queries only.
pub type BlogSchema = Schema<QueryRoot, EmptyMutation, EmptySubscription>;

/// The schema, resolving against `db`.
pub fn schema(db: Db) -> BlogSchema {
    Schema::build(QueryRoot, EmptyMutation, EmptySubscription).data(db).finish()
}

/// `POST /graphql`, executing against `schema`.
pub fn router(schema: BlogSchema) -> Router {
    Router::new()
        .route("/graphql", post(execute))
        .layer(middleware::from_fn(limit_query))
        .with_state(schema)
}

/// Runs one request: `200` with the response, but `503` with `Retry-After` when the database
/// was too busy to give any data (see the module's documentation).
async fn execute(
    State(schema): State<BlogSchema>,
    Json(request): Json<async_graphql::Request>,
) -> Response {
    let response = schema.execute(request).await;
    let busy = response.errors.iter().any(|error| {
        let code = error.extensions.as_ref().and_then(|extensions| extensions.get("code"));
        code == Some(&async_graphql::Value::from(SERVICE_UNAVAILABLE))
    });
    if busy && response.data == async_graphql::Value::Null {
        let headers = [(header::RETRY_AFTER, RETRY_AFTER_SECS.to_string())];
        return (StatusCode::SERVICE_UNAVAILABLE, headers, Json(response)).into_response();
    }
    Json(response).into_response()
}

/// A query string over the web service's limit is `414`, with a GraphQL error as its body.
async fn limit_query(request: Request, next: Next) -> Response {
    let Some(message) = query_too_long(&request) else { return next.run(request).await };
    let mut error = async_graphql::ServerError::new(message, None);
    let mut extensions = async_graphql::ErrorExtensionValues::default();
    extensions.set("code", "URI_TOO_LONG");
    error.extensions = Some(extensions);
    let response = async_graphql::Response::from_errors(vec![error]);
    (StatusCode::URI_TOO_LONG, Json(response)).into_response()
}

/// A post, as the schema shows it. (Named `Post`, so its connection is `PostConnection` and its
/// edges `PostEdge`.)
#[derive(SimpleObject)]
#[graphql(name = "Post")]
pub struct PostNode {
    /// The post's id.
    pub id: i64,
    /// Its author's id.
    pub author_id: i64,
    /// Its title.
    pub title: String,
    /// Its score.
    pub score: i32,
    /// When it was created (UTC).
    pub created_at: NaiveDateTime,
}

impl From<Post> for PostNode {
    fn from(post: Post) -> Self {
        PostNode {
            id: post.id,
            author_id: post.author_id,
            title: post.title,
            score: post.score,
            created_at: post.created_at,
        }
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
    /// edge's `cursor` works with either, in the same order and direction. `totalCount` counts
    /// the posts as `count` says (`BOUNDED` up to 1,000 when it is selected without `count`;
    /// `EXACT` is refused).
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
        count: Option<Count>,
    ) -> async_graphql::Result<CountedConnection<PostNode>> {
        let args = ConnectionArgs::new(after, before, first, last).map_err(|err| err.extend())?;
        let args = counted(ctx, args, count);
        resolve(ctx, (order_by, direction), &args, None).await
    }

    /// The posts of `authors` (at most [`MAX_FEED_AUTHORS`]; none is an empty connection), as
    /// [`posts`](Self::posts) pages them: a feed, each page at most one index seek per author.
    /// Its cursors are those of `posts` in the same order and direction.
    #[allow(clippy::too_many_arguments)]
    async fn feed(
        &self,
        ctx: &Context<'_>,
        authors: Vec<i64>,
        order_by: Option<PostOrderBy>,
        direction: Option<Direction>,
        after: Option<String>,
        before: Option<String>,
        first: Option<i32>,
        last: Option<i32>,
        count: Option<Count>,
    ) -> async_graphql::Result<CountedConnection<PostNode>> {
        let args = ConnectionArgs::new(after, before, first, last).map_err(|err| err.extend())?;
        let args = counted(ctx, args, count);
        resolve(ctx, (order_by, direction), &args, Some(authors)).await
    }
}

/// `args` with the count `count` asks for, or a bounded one where the query selects
/// `totalCount` without saying which: no count runs unless the client reads it.
fn counted(ctx: &Context<'_>, args: ConnectionArgs, count: Option<Count>) -> ConnectionArgs {
    let selected = ctx.look_ahead().field("totalCount").exists();
    match count.or(selected.then_some(Count::Bounded)) {
        Some(count) => args.count(count),
        None => args,
    }
}

/// The connection `args` asks for of the posts (of `authors` only, given them) in the order
/// chosen, on a connection of the backend's pool.
async fn resolve(
    ctx: &Context<'_>,
    (order_by, direction): (Option<PostOrderBy>, Option<Direction>),
    args: &ConnectionArgs,
    authors: Option<Vec<i64>>,
) -> async_graphql::Result<CountedConnection<PostNode>> {
    let order = (PostOrder::from(order_by.unwrap_or_default()), direction.map(SortDirection::from));
    let db = ctx.data::<Db>()?;
    let connection = match db.backend() {
        Backend::Sqlite(pool) => {
            connection(&mut *pool.get().await.map_err(unavailable)?, order, args, authors).await
        }
        #[cfg(feature = "postgres")]
        Backend::Postgres(pool) => {
            connection(&mut *pool.get().await.map_err(unavailable)?, order, args, authors).await
        }
        #[cfg(feature = "mysql")]
        Backend::Mysql(pool) => {
            connection(&mut *pool.get().await.map_err(unavailable)?, order, args, authors).await
        }
    };
    // A bad cursor or too many authors is `BAD_USER_INPUT` with the reason; a database failure
    // is logged, and the client is told no more (`INTERNAL_SERVER_ERROR`).
    connection.map_err(|err| {
        if !err.is_client_error() {
            eprintln!("internal error: {err}");
        }
        err.extend()
    })
}

/// No connection. Busy (the pool's wait ran out): `SERVICE_UNAVAILABLE`, retry after
/// [`RETRY_AFTER_SECS`]. Otherwise logged, and the client is told no more.
fn unavailable(err: PoolError) -> async_graphql::Error {
    if err.is_busy() {
        eprintln!("busy: {err}");
        return async_graphql::Error::new(
            "the database is busy: no connection came free in time; retry",
        )
        .extend_with(|_, e| {
            e.set("code", SERVICE_UNAVAILABLE);
            e.set("retryAfter", RETRY_AFTER_SECS);
        });
    }
    eprintln!("internal error: {err}");
    async_graphql::Error::new("internal error: no database connection")
        .extend_with(|_, e| e.set("code", "INTERNAL_SERVER_ERROR"))
}

/// One page of posts in `order` (of `authors` only, given them) as a connection, on any
/// connection keyset can page posts on: the resolver's code, written once for every backend and
/// every order.
async fn connection<C>(
    conn: &mut C,
    (order, direction): (PostOrder, Option<SortDirection>),
    args: &ConnectionArgs,
    authors: Option<Vec<i64>>,
) -> Result<CountedConnection<PostNode>, keyset_runtime::Error>
where
    C: diesel_async::AsyncConnectionCore,
    PostsQuery<C::Backend>:
        AsyncPageQuery<'static, C, PostOrder> + Paginate<Model = Post, Item = Post>,
    Among<PostsQuery<C::Backend>, posts::author_id, i64>:
        AsyncPageQuery<'static, C, PostOrder> + Paginate<Model = Post, Item = Post>,
{
    let query = posts::table.select(Post::as_select());
    match authors {
        None => load_connection_by_async(query, order, direction, args, conn, PostNode::from).await,
        Some(authors) => {
            let feed = query.among(posts::author_id, authors).max_set(MAX_FEED_AUTHORS);
            load_connection_by_async(feed, order, direction, args, conn, PostNode::from).await
        }
    }
}
