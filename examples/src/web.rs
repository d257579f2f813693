//! The JSON web service: keyset pages over HTTP with axum.
//!
//! - `GET /posts?sort=&dir=&limit=&after=&before=`: `200` with
//!   `{"items": [..], "next_cursor": .., "prev_cursor": ..}` (a missing neighbour is `null`,
//!   never `""`); `?last=true` for the last page. `sort` is `new` (`created_at DESC, id DESC`,
//!   the default), `top` (`score DESC, created_at DESC, id DESC`) or `title`
//!   (`title ASC, id ASC`); `dir` (`asc` or `desc`) is the direction of the order's first key,
//!   the other direction reversing every key; without it, the order as declared. Each item is
//!   `{"id", "author_id", "created_at", "score", "title"}`. `from` starts the page at a value of
//!   the order's first key instead (`?sort=new&from=2024-03-01`: the newest posts at or before
//!   that day; `?sort=title&from=M`: titles from M on), `past` strictly past it;
//!   `around=42` opens the listing at post 42 (its first row), in the order chosen;
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
//!   than a feed takes): `400`;
//! - a post the database cannot store (a title over 255 characters, or holding a NUL, which
//!   PostgreSQL's text refuses; any value the database refuses as invalid): `422`;
//! - a query string over [`MAX_QUERY_LEN`] bytes: `414`;
//! - no database connection free within the pool's wait timeout
//!   ([`PoolOptions`](crate::pool::PoolOptions), 2 s by default): `503` with `Retry-After`, at
//!   once rather than queued for as long as the database is blocked;
//! - the server's own failure: `500`, the detail logged and not shown.
//!
//! Each page carries its neighbours in a `Link` header too (`next`, `prev`, `first`, `last`),
//! other query parameters kept. Each error, 4xx or 5xx, is an RFC 9457 problem
//! (`application/problem+json`, [`Problem`]: `type`, `title`, `status`, `detail`), keyset's
//! extractors' and axum's alike.

use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{Json, OriginalUri, Path, Query, Request, State};
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, put};
use axum::Router;
use keyset_runtime::http::{Linked, Problem, Sorted};
use serde::Deserialize;

use utoipa::{IntoParams, OpenApi, ToSchema};

use crate::db::{self, Db, Fault, Post, PostOrder};
use crate::openapi::{ApiDoc, AroundResponses, Created, NoContent, PageResponses};

/// The service's routes, on the posts database. Each request takes a connection from the pool
/// for as long as its statements run, and awaits them: nothing blocks an async thread (SQLite's
/// calls run on tokio's blocking threads inside diesel-async's wrapper).
pub fn router(db: Db) -> Router {
    Router::new()
        .route("/posts", get(list_posts).post(create_post))
        .route("/feed", get(feed))
        .route("/users/{id}/feed", get(user_feed))
        .route("/users/{id}/follows/{author}", put(follow))
        .route("/openapi.json", get(openapi))
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
        Some(message) => Problem::uri_too_long(message).into_response(),
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

/// `GET /openapi.json`: this service's OpenAPI document ([`ApiDoc`]).
async fn openapi() -> Json<utoipa::openapi::OpenApi> {
    Json(ApiDoc::openapi())
}

/// `GET /posts?sort=top&dir=asc&limit=..&after=..`: one page of posts in the order the client
/// chose. A token of another order or direction is refused by keyset.
#[utoipa::path(get, path = "/posts", tag = "posts", params(Around, Sorted<PostOrder>), responses(AroundResponses))]
pub(crate) async fn list_posts(
    State(db): State<Db>,
    OriginalUri(uri): OriginalUri,
    around: Result<Query<Around>, QueryRejection>,
    page: Sorted<PostOrder>,
) -> Result<Linked<Post>, Problem> {
    let around = around.map_err(|err| Problem::invalid_parameter("around", err.body_text()))?;
    let around = around.0.around;
    Ok(Linked::new(&uri, db.page(page.sort, page.dir, &page.request, around).await?))
}

/// `GET /posts`' own parameter: a post to open the listing at.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct Around {
    /// A post's id: the first page starts with that post, in the order chosen (a deep link);
    /// its `prev` and `next` tokens page around it. A post that does not exist: `404`.
    around: Option<i64>,
}

/// `GET /feed`'s own parameter: author ids separated by commas; none (absent or empty), an
/// empty feed.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct Authors {
    /// Author ids separated by commas, e.g. `1,2,3`; none, an empty feed.
    #[serde(default)]
    authors: String,
}

/// `GET /feed?authors=1,2,3`: one page of those authors' posts, in the order the client chose.
#[utoipa::path(
    get,
    path = "/feed",
    tag = "feeds",
    params(Authors, Sorted<PostOrder>),
    responses(PageResponses)
)]
pub(crate) async fn feed(
    State(db): State<Db>,
    OriginalUri(uri): OriginalUri,
    authors: Result<Query<Authors>, QueryRejection>,
    page: Sorted<PostOrder>,
) -> Result<Linked<Post>, Problem> {
    // axum's rejections convert into problems, as keyset's extractors' are.
    let Query(Authors { authors }) = authors?;
    let authors = parse_authors(&authors)?;
    Ok(Linked::new(&uri, db.feed(page.sort, page.dir, &authors, &page.request).await?))
}

/// `/users/{id}/..`: deserialized by name, so that a refusal names the segment.
#[derive(Deserialize)]
pub(crate) struct User {
    id: i64,
}

/// `/users/{id}/follows/{author}`.
#[derive(Deserialize)]
pub(crate) struct Follow {
    id: i64,
    author: i64,
}

/// `GET /users/{id}/feed`: one page of the posts of the authors user `id` follows.
#[utoipa::path(
    get,
    path = "/users/{id}/feed",
    tag = "feeds",
    params(("id" = i64, Path, description = "The user"), Sorted<PostOrder>),
    responses(PageResponses)
)]
pub(crate) async fn user_feed(
    State(db): State<Db>,
    OriginalUri(uri): OriginalUri,
    user: Result<Path<User>, PathRejection>,
    page: Sorted<PostOrder>,
) -> Result<Linked<Post>, Problem> {
    let Path(User { id: user }) = user?;
    Ok(Linked::new(&uri, db.follows_feed(page.sort, page.dir, user, &page.request).await?))
}

/// `PUT /users/{id}/follows/{author}`: `204`, whether or not user `id` followed `author` before.
#[utoipa::path(
    put,
    path = "/users/{id}/follows/{author}",
    tag = "feeds",
    params(
        ("id" = i64, Path, description = "The user"),
        ("author" = i64, Path, description = "The author they follow")
    ),
    responses(NoContent)
)]
pub(crate) async fn follow(
    State(db): State<Db>,
    path: Result<Path<Follow>, PathRejection>,
) -> Result<StatusCode, Problem> {
    let Path(Follow { id: user, author }) = path?;
    db.follow(user, author).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `1,2,3` as author ids (spaces around each allowed); `""`, none. Anything else is a `400` that
/// names the first id that is not one. How many there may be is the feed's to say
/// ([`MAX_FEED_AUTHORS`](crate::db::feed::MAX_FEED_AUTHORS)), once parsed.
fn parse_authors(authors: &str) -> Result<Vec<i64>, Problem> {
    if authors.trim().is_empty() {
        return Ok(Vec::new());
    }
    let parse = |(index, id): (usize, &str)| {
        id.trim().parse::<i64>().map_err(|err| {
            let number = index + 1;
            let detail = format!(
                "takes author ids separated by commas, e.g. `authors=1,2,3`: `{id}`, its value \
                 number {number}, is not an id ({err})"
            );
            Problem::invalid_parameter("authors", detail)
        })
    };
    authors.split(',').enumerate().map(parse).collect()
}

/// The body of `POST /posts`.
#[derive(Deserialize, ToSchema)]
pub(crate) struct NewPost {
    /// At most 255 characters, without NUL.
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
#[utoipa::path(post, path = "/posts", tag = "posts", request_body = NewPost, responses(Created))]
pub(crate) async fn create_post(
    State(db): State<Db>,
    post: Result<Json<NewPost>, JsonRejection>,
) -> Result<(StatusCode, Json<Post>), Problem> {
    let Json(post) = post?;
    if post.title.chars().count() > Post::MAX_TITLE_LEN {
        let max = Post::MAX_TITLE_LEN;
        return Err(Problem::invalid_body(
            422,
            format!("the title is longer than {max} characters"),
        ));
    }
    if let Some(at) = post.title.chars().position(|c| c == '\0') {
        return Err(Problem::invalid_body(
            422,
            format!(
                "the title holds a NUL character (U+0000) at character {at}: PostgreSQL cannot \
             store one in a text, so no database here is given one; remove it"
            ),
        ));
    }
    let post = db.insert_by(post.author_id, db::now(), post.score, &post.title).await?;
    Ok((StatusCode::CREATED, Json(post)))
}

/// The database's errors, by whose fault they are ([`db::Error::fault`]): a refused page
/// request keyset's problem, a refused value `422`, a busy pool `503`, the rest ours (`500`,
/// logged, not shown).
impl From<db::Error> for Problem {
    fn from(err: db::Error) -> Self {
        match (err.fault(), err) {
            (Fault::BadRequest, db::Error::Page(err)) => Problem::from(err),
            (Fault::InvalidData, err) => Problem::invalid_body(422, err),
            (Fault::Busy, err) => {
                // Logged: a pool that runs dry is worth knowing about.
                tracing::warn!(%err, "busy");
                Problem::busy(RETRY_AFTER_SECS)
            }
            (_, err) => Problem::internal(err),
        }
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
