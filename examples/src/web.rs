//! The JSON web service: keyset pages over HTTP with axum.
//!
//! - `GET /posts?sort=&dir=&limit=&after=&before=`: `200` with
//!   `{"items": [..], "next_cursor": .., "prev_cursor": ..}` (a missing neighbour is `null`,
//!   never `""`); `?last=true` for the last page. `sort` is `new` (`created_at DESC, id DESC`,
//!   the default), `top` (`score DESC, created_at DESC, id DESC`) or `title`
//!   (`title ASC, id ASC`); `dir` (`asc` or `desc`) is the direction of the order's first key,
//!   the other direction reversing every key; without it, the order as declared. Each item is
//!   `{"id", "created_at", "score", "title"}`;
//! - `POST /posts` with `{"title": ".."}` (and an optional `"score"`, default 0): `201` with the
//!   new post (it lists first in `new`);
//! - any bad request (an unknown `sort` or `dir`, a malformed or foreign cursor, a cursor of
//!   another sort or direction, a cursor sent the wrong way, `after` with `before`, a limit that
//!   is `0`, negative or not a number): `400` with `{"error": ".."}`;
//! - a post the database cannot store (a title over 255 characters, or holding a NUL, which
//!   PostgreSQL's text refuses; any value the database refuses as invalid): `422`;
//! - a query string over [`MAX_QUERY_LEN`] bytes: `414`;
//! - no database connection free within the pool's wait timeout
//!   ([`PoolOptions`](crate::pool::PoolOptions), 2 s by default): `503` with `Retry-After`, at
//!   once rather than queued for as long as the database is blocked;
//! - the server's own failure: `500` with `{"error": "internal error"}`, the detail logged.
//!
//! Each of these errors, 4xx or 5xx, is `{"error": ".."}`.

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Query, Request, State};
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
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

/// The body of `POST /posts`.
#[derive(Deserialize)]
struct NewPost {
    title: String,
    #[serde(default)]
    score: i32,
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
    let post = db.insert_scored(db::now(), post.score, &post.title).await?;
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
