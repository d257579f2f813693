//! The JSON web service: keyset pages over HTTP with axum.
//!
//! - `GET /posts?sort=&dir=&limit=&after=&before=`: `200` with
//!   `{"items": [..], "next_cursor": .., "prev_cursor": ..}` (a missing neighbour is `null`,
//!   never `""`); `?last=true` for the last page. `sort` is `new` (`created_at DESC, id DESC`,
//!   the default), `top` (`score DESC, created_at DESC, id DESC`) or `title`
//!   (`title ASC, id ASC`); `dir` (`asc` or `desc`) is the direction of the order's first key,
//!   the other direction reversing every key; without it, the order as declared. Each item is
//!   `{"id", "author_id", "created_at", "score", "title"}`;
//! - `GET /feed?authors=1,2,3&sort=&dir=&limit=&after=&before=`: the same pages of the posts of
//!   those authors only (a feed); no authors, an empty page; at most
//!   [`MAX_FEED_AUTHORS`](crate::db::feed::MAX_FEED_AUTHORS) of them;
//! - `GET /users/{id}/feed?sort=&dir=&limit=&after=&before=`: the feed of the authors user `id`
//!   follows; `PUT /users/{id}/follows/{author}`: `204`, user `id` follows `author` (again is
//!   no change). A feed's token is a position in its order, not in its authors: it pages on
//!   after a follow, and on `/posts`, and `/posts`' on a feed;
//! - `POST /posts` with `{"title": ".."}` (and an optional `"score"`, default 0, and
//!   `"author_id"`, default 1): `201` with the new post (it lists first in `new`);
//! - any bad request (an unknown `sort` or `dir`, a malformed or foreign cursor, a cursor of
//!   another sort or direction, a cursor sent the wrong way, `after` with `before`, a limit that
//!   is `0`, negative or not a number, an author or user id that is not a number, more authors
//!   than a feed takes): `400` with `{"error": ".."}`;
//! - a post the database cannot store (a title over 255 characters, or holding a NUL, which
//!   PostgreSQL's text refuses; any value the database refuses as invalid): `422`;
//! - a query string over [`MAX_QUERY_LEN`] bytes: `414`;
//! - no database connection free within the pool's wait timeout
//!   ([`PoolOptions`](crate::pool::PoolOptions), 2 s by default): `503` with `Retry-After`, at
//!   once rather than queued for as long as the database is blocked;
//! - the server's own failure: `500` with `{"error": "internal error"}`, the detail logged.
//!
//! Each of these errors, 4xx or 5xx, is `{"error": ".."}`.

use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Path, Query, Request, State};
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, put};
use axum::{Json, Router};
use keyset_runtime::{Page, PageRequest, SortDirection};
use serde::Deserialize;

use crate::db::{self, Db, Fault, Post, PostOrder};

/// The service's routes, on the posts database. Each request takes a connection from the pool
/// for as long as its statements run, and awaits them: nothing blocks an async thread (SQLite's
/// calls run on tokio's blocking threads inside diesel-async's wrapper).
pub fn router(db: Db) -> Router {
    Router::new()
        .route("/posts", get(list_posts).post(create_post))
        .route("/feed", get(feed))
        .route("/users/{id}/feed", get(user_feed))
        .route("/users/{id}/follows/{author}", put(follow))
        .layer(middleware::from_fn(limit_query))
        .with_state(db)
}

/// The longest query string served, in bytes: 8 KiB, what most proxies and servers allow a whole
/// request line. The longest request here (`sort`, `dir`, `limit` and a title-order token of
/// 2 048 characters) is a quarter of it. hyper itself refuses only URIs over 64 KiB.
pub const MAX_QUERY_LEN: usize = 8 * 1024;

/// Seconds a client is told to wait (`Retry-After`) when no connection came free: about the
/// time a burst takes to drain, short of the pool's wait.
pub const RETRY_AFTER_SECS: u64 = 1;

/// A query string over [`MAX_QUERY_LEN`] is `414 URI Too Long`, before any handler parses it.
async fn limit_query(request: Request, next: Next) -> Response {
    match query_too_long(&request) {
        Some(message) => ApiError { status: StatusCode::URI_TOO_LONG, message }.into_response(),
        None => next.run(request).await,
    }
}

/// Why `request`'s query string is refused, when it is over [`MAX_QUERY_LEN`] (each service
/// answers `414` in its own error shape).
pub fn query_too_long(request: &Request) -> Option<String> {
    let len = request.uri().query().map_or(0, str::len);
    (len > MAX_QUERY_LEN).then(|| {
        format!("the query string is {len} bytes, over this server's limit of {MAX_QUERY_LEN}")
    })
}

/// What `GET /posts` reads from its query string: the order, its direction, and the page
/// (`?sort=top&dir=asc&limit=..&after=..`, `?before=..`, `?last=true`).
#[derive(Deserialize)]
pub struct ListParams {
    /// `new`, `top` or `title`; `new` when absent. Any other name is refused with the valid
    /// ones (serde's "unknown variant" message).
    #[serde(default)]
    pub sort: PostOrder,
    /// `asc` or `desc`: the direction of the order's first key; `None`, the order as declared.
    pub dir: Option<SortDirection>,
    /// `limit`, and `after`, `before` or `last`.
    #[serde(flatten)]
    pub page: PageRequest,
}

/// `GET /posts`: one page of posts in the order the client chose. One handler for every order:
/// the order is a value, and a token of another order or direction is refused by keyset.
async fn list_posts(
    State(db): State<Db>,
    QueryParams(params): QueryParams<ListParams>,
) -> Result<Json<Page<Post>>, ApiError> {
    Ok(Json(db.page(params.sort, params.dir, &params.page).await?))
}

/// What `GET /feed` reads from its query string: the authors, beside what `GET /posts` reads
/// (`?authors=1,2,3&sort=top&limit=..&after=..`).
#[derive(Deserialize)]
pub struct FeedParams {
    /// Author ids separated by commas; none (absent or empty), an empty feed.
    #[serde(default)]
    pub authors: String,
    /// The order, its direction and the page, as for `GET /posts`.
    #[serde(flatten)]
    pub list: ListParams,
}

/// `GET /feed?authors=1,2,3`: one page of those authors' posts, in the order the client chose.
async fn feed(
    State(db): State<Db>,
    QueryParams(params): QueryParams<FeedParams>,
) -> Result<Json<Page<Post>>, ApiError> {
    let authors = parse_authors(&params.authors)?;
    let ListParams { sort, dir, page } = params.list;
    Ok(Json(db.feed(sort, dir, &authors, &page).await?))
}

/// `GET /users/{id}/feed`: one page of the posts of the authors user `id` follows.
async fn user_feed(
    State(db): State<Db>,
    PathParams(user): PathParams<i64>,
    QueryParams(params): QueryParams<ListParams>,
) -> Result<Json<Page<Post>>, ApiError> {
    Ok(Json(db.follows_feed(params.sort, params.dir, user, &params.page).await?))
}

/// `PUT /users/{id}/follows/{author}`: `204`, whether or not user `id` followed `author` before.
async fn follow(
    State(db): State<Db>,
    PathParams((user, author)): PathParams<(i64, i64)>,
) -> Result<StatusCode, ApiError> {
    db.follow(user, author).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `1,2,3` as author ids (spaces around each allowed); `""`, none. Anything else is a `400` that
/// names the first id that is not one. How many there may be is the feed's to say
/// ([`MAX_FEED_AUTHORS`](crate::db::feed::MAX_FEED_AUTHORS)), once parsed.
fn parse_authors(authors: &str) -> Result<Vec<i64>, ApiError> {
    if authors.trim().is_empty() {
        return Ok(Vec::new());
    }
    authors
        .split(',')
        .enumerate()
        .map(|(index, id)| {
            id.trim().parse::<i64>().map_err(|err| ApiError {
                status: StatusCode::BAD_REQUEST,
                message: format!(
                    "`authors` takes author ids separated by commas, e.g. `authors=1,2,3`: \
                     `{id}`, its value number {}, is not an id ({err})",
                    index + 1
                ),
            })
        })
        .collect()
}

/// The body of `POST /posts`.
#[derive(Deserialize)]
struct NewPost {
    title: String,
    #[serde(default)]
    score: i32,
    #[serde(default = "default_author")]
    author_id: i64,
}

fn default_author() -> i64 {
    Post::DEFAULT_AUTHOR
}

/// `POST /posts`: adds a post, created now. A title every backend cannot store is refused
/// here, before any query, so that the backends accept the same posts: over 255 characters
/// (MySQL's column), or holding a NUL (PostgreSQL's text cannot; SQLite and MariaDB would store
/// it).
async fn create_post(
    State(db): State<Db>,
    JsonBody(post): JsonBody<NewPost>,
) -> Result<(StatusCode, Json<Post>), ApiError> {
    let invalid = |message: String| ApiError { status: StatusCode::UNPROCESSABLE_ENTITY, message };
    if post.title.chars().count() > Post::MAX_TITLE_LEN {
        let max = Post::MAX_TITLE_LEN;
        return Err(invalid(format!("the title is longer than {max} characters")));
    }
    if let Some(at) = post.title.chars().position(|c| c == '\0') {
        return Err(invalid(format!(
            "the title holds a NUL character (U+0000) at character {at}: PostgreSQL cannot \
             store one in a text, so no database here is given one; remove it"
        )));
    }
    let post = db.insert_by(post.author_id, db::now(), post.score, &post.title).await?;
    Ok((StatusCode::CREATED, Json(post)))
}

/// Parameters read from a query string ([`ListParams`]). Unlike axum's `Query`, whose rejection
/// is plain text, any invalid parameter (`sort=hot`, `dir=up`, `limit=ten`, `limit=-1`,
/// `limit=0`, `after` with `before`) is a JSON [`ApiError`].
pub struct QueryParams<T>(pub T);

impl<T: serde::de::DeserializeOwned, S: Send + Sync> FromRequestParts<S> for QueryParams<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        match Query::<T>::from_request_parts(parts, state).await {
            Ok(Query(params)) => Ok(QueryParams(params)),
            Err(rejection) => Err(ApiError::from(rejection)),
        }
    }
}

/// Parameters read from the path (`/users/{id}/feed`): a user or author id that is not a number
/// is a JSON [`ApiError`], not axum's plain text.
pub struct PathParams<T>(pub T);

impl<T: serde::de::DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for PathParams<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        match Path::<T>::from_request_parts(parts, state).await {
            Ok(Path(params)) => Ok(PathParams(params)),
            Err(rejection) => Err(ApiError::from(rejection)),
        }
    }
}

/// A JSON request body whose rejection is a JSON [`ApiError`].
struct JsonBody<T>(T);

impl<T: serde::de::DeserializeOwned, S: Send + Sync> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        match Json::<T>::from_request(request, state).await {
            Ok(Json(body)) => Ok(JsonBody(body)),
            Err(rejection) => Err(ApiError::from(rejection)),
        }
    }
}

/// An error response: its status, and `{"error": message}` (and `Retry-After` on a `503`).
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
}

impl ApiError {
    fn internal(detail: impl std::fmt::Display) -> Self {
        // The detail is for the server's log, not for the client.
        eprintln!("internal error: {detail}");
        ApiError { status: StatusCode::INTERNAL_SERVER_ERROR, message: "internal error".into() }
    }
}

/// A bad cursor or request is the client's (400, with the reason); a database failure is ours
/// (500, reason logged, not shown).
impl From<keyset_runtime::Error> for ApiError {
    fn from(err: keyset_runtime::Error) -> Self {
        if err.is_client_error() {
            ApiError { status: StatusCode::BAD_REQUEST, message: err.to_string() }
        } else {
            ApiError::internal(err)
        }
    }
}

/// The database's errors, by whose fault they are ([`db::Error::fault`]): a refused page
/// request 400, a refused value 422, a busy pool 503, the rest ours (500, reason logged).
impl From<db::Error> for ApiError {
    fn from(err: db::Error) -> Self {
        let status = match err.fault() {
            Fault::BadRequest => StatusCode::BAD_REQUEST,
            Fault::InvalidData => StatusCode::UNPROCESSABLE_ENTITY,
            Fault::Busy => {
                // Logged: a pool that runs dry is worth knowing about.
                eprintln!("busy: {err}");
                let message = "the database is busy: no connection came free in time; retry";
                return ApiError {
                    status: StatusCode::SERVICE_UNAVAILABLE,
                    message: message.into(),
                };
            }
            Fault::Server => return ApiError::internal(err),
        };
        ApiError { status, message: err.to_string() }
    }
}

/// `sort=hot`, `limit=ten`, `after` with `before`, ..: axum's message names the parameter and
/// the reason (for `sort` and `dir`, the valid names).
impl From<QueryRejection> for ApiError {
    fn from(rejection: QueryRejection) -> Self {
        ApiError { status: StatusCode::BAD_REQUEST, message: rejection.body_text() }
    }
}

/// `/users/ten/feed`: axum's message names the reason; a path that matched no route at all is
/// axum's `404`.
impl From<PathRejection> for ApiError {
    fn from(rejection: PathRejection) -> Self {
        ApiError { status: rejection.status(), message: rejection.body_text() }
    }
}

impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> Self {
        ApiError { status: rejection.status(), message: rejection.body_text() }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response =
            (self.status, Json(serde_json::json!({ "error": self.message }))).into_response();
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            response.headers_mut().insert(header::RETRY_AFTER, RETRY_AFTER_SECS.into());
        }
        response
    }
}

/// Ctrl-C or SIGTERM, for a server's graceful shutdown: the example binaries return from `main`,
/// so that a temporary SQLite file is removed.
pub async fn interrupted() {
    #[cfg(unix)]
    if let Ok(mut term) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
    {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
        return;
    }
    let _ = tokio::signal::ctrl_c().await;
}
