//! The JSON web service: keyset pages over HTTP with axum.
//!
//! - `GET /posts?limit=&after=&before=`: `200` with `{"items": [..], "next_cursor": .., "prev_cursor": ..}`
//!   (a missing neighbour is `null`, never `""`); `?last=true` for the last page;
//! - `POST /posts` with `{"title": ".."}`: `201` with the new post (it lists first: newest first);
//! - any bad request (a malformed or foreign cursor, a cursor sent the wrong way, `after` with
//!   `before`, a limit that is `0`, negative or not a number): `400` with `{"error": ".."}`.

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Query, Request, State};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use keyset_runtime::{Page, PageRequest};
use serde::Deserialize;

use crate::db::{self, Db, Post};

/// The service's routes, on the posts database. Each request takes a connection from the pool
/// for as long as its statements run, and awaits them: nothing blocks an async thread (SQLite's
/// calls run on tokio's blocking threads inside diesel-async's wrapper).
pub fn router(db: Db) -> Router {
    Router::new().route("/posts", get(list_posts).post(create_post)).with_state(db)
}

/// `GET /posts`: one page of posts, newest first.
async fn list_posts(
    State(db): State<Db>,
    PageParams(request): PageParams,
) -> Result<Json<Page<Post>>, ApiError> {
    Ok(Json(db.page(&request).await?))
}

/// The body of `POST /posts`.
#[derive(Deserialize)]
struct NewPost {
    title: String,
}

/// `POST /posts`: adds a post, created now.
async fn create_post(
    State(db): State<Db>,
    JsonBody(post): JsonBody<NewPost>,
) -> Result<(StatusCode, Json<Post>), ApiError> {
    let post = db.insert(db::now(), &post.title).await?;
    Ok((StatusCode::CREATED, Json(post)))
}

/// The page a request asks for, read from its query string (`?after=..&limit=..`, `?before=..`,
/// `?last=true`). Unlike axum's `Query<PageRequest>`, whose rejection is plain text, any invalid
/// parameter (`limit=ten`, `limit=-1`, `limit=0`, `after` with `before`) is a JSON [`ApiError`].
pub struct PageParams(pub PageRequest);

impl<S: Send + Sync> FromRequestParts<S> for PageParams {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        match Query::<PageRequest>::from_request_parts(parts, state).await {
            Ok(Query(request)) => Ok(PageParams(request)),
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

/// `limit=ten`, `after` with `before`, ..: axum's message names the parameter and the reason.
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
