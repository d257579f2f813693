//! The `axum` feature: [`PageRequest`] and [`Sorted`] as extractors whose rejection is a
//! [`Problem`], a `Problem` (and keyset's [`Error`]) as a response, axum's own rejections as
//! problems, and [`Linked`]: a page as JSON with its `Link` header.

use std::str::FromStr;

use axum::extract::path::ErrorKind;
use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, HeaderValue, Uri};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;

use super::{link_header, page_request, Problem, Sorted};
use crate::error::Error;
use crate::orders::named::{Orders, ParseOrderError};
use crate::page::{CamelCase, Page};
use crate::request::PageRequest;

/// A page of the listing in the model's order, read from the query string (`limit`, `after`,
/// `before`, `last`; see [`page_request`]): any bad parameter is a `400` [`Problem`].
impl<S: Send + Sync> FromRequestParts<S> for PageRequest {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Problem> {
        page_request(parts.uri.query()).map_err(Problem::from)
    }
}

/// A page of the listing in a named order, read from the query string (`sort`, `dir`, and
/// the page's: see [`Sorted::from_query`]): any bad parameter is a `400` [`Problem`].
impl<O, S> FromRequestParts<S> for Sorted<O>
where
    O: Orders + Default + FromStr<Err = ParseOrderError> + Send,
    S: Send + Sync,
{
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Problem> {
        Sorted::from_query(parts.uri.query()).map_err(Problem::from)
    }
}

/// `application/problem+json`, with `Retry-After` where the problem gives one.
impl IntoResponse for Problem {
    fn into_response(self) -> Response {
        let retry_after = self.retry_after();
        let mut response = self.into_details().into_response();
        if let Some(seconds) = retry_after {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

/// Keyset's error as its [`Problem`]: a handler may return `Result<_, keyset_runtime::Error>`.
impl IntoResponse for Error {
    fn into_response(self) -> Response {
        Problem::from(self).into_response()
    }
}

/// A path segment that does not parse (`/users/abc/feed`), as a `400` of type
/// [`INVALID_PARAMETER`](super::problems::INVALID_PARAMETER) with axum's reason; a route whose parameters do not fit its handler is
/// the server's (`500`). Take the path as `Result<Path<T>, PathRejection>` (or with `axum_extra`'s
/// `WithRejection<Path<T>, Problem>`) and `?` it.
///
/// A path deserialized into a struct names each segment (`Path<User>` with `id: i64` for
/// `/users/{id}`): the detail then names the parameter, `` `id`: takes a `i64`, not `ten` ``.
impl From<PathRejection> for Problem {
    fn from(rejection: PathRejection) -> Self {
        if rejection.status().is_server_error() {
            return Problem::internal(rejection.body_text());
        }
        let PathRejection::FailedToDeserializePathParams(failed) = &rejection else {
            return Problem::invalid_parameter("path", rejection.body_text());
        };
        let takes = |expected: &str, value: &str| format!("takes a `{expected}`, not `{value}`");
        match failed.kind() {
            ErrorKind::ParseErrorAtKey { key, value, expected_type } => {
                Problem::invalid_parameter(key, takes(expected_type, value))
            }
            ErrorKind::ParseErrorAtIndex { index, value, expected_type } => {
                let segment = format!("path parameter {}", index + 1);
                Problem::invalid_parameter(&segment, takes(expected_type, value))
            }
            ErrorKind::ParseError { value, expected_type } => {
                Problem::invalid_parameter("path parameter", takes(expected_type, value))
            }
            _ => Problem::invalid_parameter("path", rejection.body_text()),
        }
    }
}

/// A service's own query parameters (`Query<Filters>`) that do not parse, as a `400` of type
/// [`INVALID_PARAMETER`](super::problems::INVALID_PARAMETER) with axum's reason.
impl From<QueryRejection> for Problem {
    fn from(rejection: QueryRejection) -> Self {
        Problem::invalid_parameter("query", rejection.body_text())
    }
}

/// A JSON body that cannot be read, as type [`INVALID_BODY`](super::problems::INVALID_BODY) with axum's status (`400` for bad
/// JSON, `415` without its content type, `422` for a field of the wrong type) and reason.
impl From<JsonRejection> for Problem {
    fn from(rejection: JsonRejection) -> Self {
        Problem::invalid_body(rejection.status().as_u16(), rejection.body_text())
    }
}

/// A page as JSON, with its `Link` header ([`link_header`]): what a handler returns.
///
/// ```
/// use axum::response::IntoResponse;
/// use keyset_runtime::http::Linked;
/// use keyset_runtime::Page;
///
/// let page = Page::new(vec![1], Some("AQ".into()), None);
/// let response = Linked::new(&"/posts?limit=1".parse().unwrap(), page).into_response();
/// let link = response.headers()["link"].to_str().unwrap();
/// assert!(link.starts_with(r#"</posts?limit=1&after=AQ>; rel="next""#), "{link}");
/// ```
#[derive(Debug, Clone)]
pub struct Linked<T> {
    page: Page<T>,
    link: HeaderValue,
    camel_case: bool,
}

impl<T> Linked<T> {
    /// `page`, served at `uri`: the request's URI as the client sent it (axum's `OriginalUri`
    /// behind a nested router).
    pub fn new(uri: &Uri, page: Page<T>) -> Self {
        Linked { link: link_header(uri, &page), page, camel_case: false }
    }

    /// The body in camelCase ([`CamelCase`]): `nextCursor`, `prevCursor`.
    pub fn camel_case(self) -> Self {
        Linked { camel_case: true, ..self }
    }
}

impl<T: Serialize> IntoResponse for Linked<T> {
    fn into_response(self) -> Response {
        let headers = [(header::LINK, self.link)];
        match self.camel_case {
            true => (headers, Json(CamelCase(self.page))).into_response(),
            false => (headers, Json(self.page)).into_response(),
        }
    }
}
