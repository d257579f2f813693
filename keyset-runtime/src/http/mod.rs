//! Where services meet keyset over HTTP (feature `http`; `axum` adds what follows as axum's
//! extractors and responses): the page parameters of a query string, read with errors that name
//! the parameter ([`page_request`], [`Sorted`]); errors as RFC 9457 problem details
//! ([`Problem`]); and `Link` headers (RFC 8288) for a page ([`link_header`]).
//!
//! The query string's contract, the same for every listing: `limit` (a whole number from 1;
//! the listing's default without it, its maximum above it), and at most one of `after` (a
//! page's `next_cursor`), `before` (its `prev_cursor`) or `last=true` (the last page); for a
//! listing in named orders, `sort` (an order's name) and `dir` (`asc` or `desc`). Every other
//! parameter is the listing's own (a filter), left alone here and kept in its links.
//!
//! With the `axum` feature, a handler is the query and one line:
//!
//! ```
//! # #[cfg(feature = "axum")] mod handler {
//! use axum::extract::OriginalUri;
//! use diesel::prelude::*;
//! use keyset_runtime::http::{Linked, Problem};
//! use keyset_runtime::{Keyset, PageRequest, Paginate};
//!
//! diesel::table! { posts (id) { id -> BigInt, title -> Text } }
//!
//! #[derive(Queryable, Selectable, Keyset, serde::Serialize)]
//! struct Post {
//!     #[sort(desc)]
//!     #[tiebreaker]
//!     id: i64,
//!     title: String,
//! }
//!
//! /// `GET /posts?limit=&after=&before=&last=`: a `400` problem for any bad parameter or token.
//! async fn list(OriginalUri(uri): OriginalUri, request: PageRequest) -> Result<Linked<Post>, Problem> {
//!     let mut conn = SqliteConnection::establish(":memory:").map_err(Problem::internal)?;
//!     let page = posts::table.select(Post::as_select()).paginate(&request)?.load_page(&mut conn)?;
//!     Ok(Linked::new(&uri, page))
//! }
//! # }
//! ```
//!
//! A handler's other extractors give the same problems: axum's path, query and JSON rejections
//! convert into [`Problem`] (`From`), so take them as `Result` (or with `axum_extra`'s
//! `WithRejection<Path<i64>, Problem>`), and a service's own mistakes are
//! [`Problem::invalid_parameter`] and [`Problem::invalid_body`]:
//!
//! ```
//! # #[cfg(feature = "axum")] mod handler {
//! use axum::extract::rejection::PathRejection;
//! use axum::extract::Path;
//! use keyset_runtime::http::Problem;
//! use keyset_runtime::PageRequest;
//!
//! /// `GET /authors/{id}/posts`: `/authors/abc/posts` is a `400` problem naming the segment.
//! async fn author_posts(
//!     author: Result<Path<i64>, PathRejection>,
//!     request: PageRequest,
//! ) -> Result<String, Problem> {
//!     let Path(author) = author?;
//!     if author <= 0 {
//!         return Err(Problem::invalid_parameter("id", "author ids start at 1"));
//!     }
//!     Ok(format!("the posts of {author}, {request:?}"))
//! }
//! # }
//! ```

#[cfg(feature = "axum")]
mod axum;
mod links;
#[cfg(feature = "utoipa")]
pub(crate) mod openapi;
mod params;
mod problem;
pub mod problems;

#[cfg(feature = "axum")]
pub use axum::Linked;
pub use links::link_header;
pub use params::{page_request, Sorted};
pub use problem::Problem;
