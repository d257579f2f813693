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
//!   is `0`, negative or not a number): `400` with `{"error": ".."}`.

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Query, Request, State};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use keyset_runtime::{Page, PageRequest, SortDirection};
use serde::Deserialize;

use crate::db::{self, Db, Post, PostOrder};

/// The service's routes, on the posts database. Each request takes a connection from the pool
/// for as long as its statements run, and awaits them: nothing blocks an async thread (SQLite's
/// calls run on tokio's blocking threads inside diesel-async's wrapper).
pub fn router(db: Db) -> Router {
    Router::new().route("/posts", get(list_posts).post(create_post)).with_state(db)
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

/// `POST /posts`: adds a post, created now.
async fn create_post(
    State(db): State<Db>,
    JsonBody(post): JsonBody<NewPost>,
) -> Result<(StatusCode, Json<Post>), ApiError> {
    if post.title.chars().count() > Post::MAX_TITLE_LEN {
        return Err(ApiError {
            status: StatusCode::UNPROCESSABLE_ENTITY,
            message: format!("the title is longer than {} characters", Post::MAX_TITLE_LEN),
        });
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

/// An error response: its status, and `{"error": message}`.
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

/// The same split for the database's errors: only a refused page request is the client's.
impl From<db::Error> for ApiError {
    fn from(err: db::Error) -> Self {
        match err {
            db::Error::Page(err) => ApiError::from(err),
            err => ApiError::internal(err),
        }
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
        (self.status, Json(serde_json::json!({ "error": self.message }))).into_response()
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
