//! [`Problem`]: an error response as RFC 9457 problem details, one `type` per class of a
//! client's mistake, and a server's fault that shows nothing of itself.

use std::fmt;

use http::{StatusCode, Uri};
use problem_details::{ProblemDetails, ProblemType};

use super::problems;
use crate::error::{CursorError, Error, RequestError};

/// An error response as RFC 9457 problem details (`application/problem+json`): `type`,
/// `title`, `status` and `detail`. Every refusal of a client's request is a `400` whose `type`
/// says which kind of mistake it is (one of [`problems`](super::problems)); a fault of the
/// server is a `500` whose detail is logged (`tracing`, at error level) and not shown.
///
/// With the `axum` feature a `Problem` is a response, and every rejection of keyset's
/// extractors is one. A service with its own error type keeps it and converts:
/// [`status`](Self::status), [`type_uri`](Self::type_uri), [`title`](Self::title) and
/// [`detail`](Self::detail) are what to show, or [`into_details`](Self::into_details) the body
/// as `problem_details` has it.
///
/// ```
/// use keyset_runtime::http::{problems, Problem};
/// use keyset_runtime::{CursorError, Error, RequestError};
///
/// let problem = Problem::from(Error::from(CursorError::Malformed));
/// assert_eq!(problem.status(), 400);
/// assert_eq!(problem.type_uri(), problems::MALFORMED_TOKEN);
/// assert_eq!(problem.title(), "Malformed cursor token");
///
/// let problem = Problem::from(Error::from(RequestError::ZeroLimit));
/// assert_eq!(problem.type_uri(), problems::INVALID_LIMIT);
/// assert_eq!(problem.detail(), Some("invalid page request: `limit` must be at least 1"));
///
/// // The server's fault: logged, not shown.
/// let problem = Problem::from(Error::from(diesel::result::Error::NotFound));
/// assert_eq!((problem.status(), problem.detail()), (500, None));
/// assert_eq!(problem.type_uri(), "about:blank");
///
/// let json = serde_json::to_value(Problem::busy(1).into_details()).unwrap();
/// assert_eq!(json["status"], 503);
/// ```
#[derive(Debug, Clone)]
pub struct Problem {
    details: ProblemDetails,
    retry_after: Option<u64>,
}

impl Problem {
    /// A problem of type `uri` (one of [`problems`]).
    fn of(status: StatusCode, uri: &'static str, title: &str, detail: String) -> Self {
        let uri = Uri::from_static(uri);
        let details = ProblemDetails::new()
            .with_type(uri)
            .with_status(status)
            .with_title(title)
            .with_detail(detail);
        Problem { details, retry_after: None }
    }

    /// A status whose meaning is the status itself (`type` is `about:blank`).
    fn plain(status: StatusCode, detail: Option<String>) -> Self {
        // `type` written out, though absent means the same (RFC 9457, 4.2.1): every problem has one.
        let mut details =
            ProblemDetails::from_status_code(status).with_type(ProblemType::default());
        details.detail = detail;
        Problem { details, retry_after: None }
    }

    /// `400`, type [`INVALID_PARAMETER`](problems::INVALID_PARAMETER): a service's own parameter (a path segment, a filter)
    /// that cannot be read. `detail` should say what it takes.
    ///
    /// ```
    /// # use keyset_runtime::http::Problem;
    /// let problem = Problem::invalid_parameter("author", "`abc` is no author id: a whole number");
    /// assert_eq!(problem.detail(), Some("`author`: `abc` is no author id: a whole number"));
    /// ```
    pub fn invalid_parameter(name: &str, detail: impl fmt::Display) -> Self {
        let detail = format!("`{name}`: {detail}");
        Problem::of(
            StatusCode::BAD_REQUEST,
            problems::INVALID_PARAMETER,
            "Invalid parameter",
            detail,
        )
    }

    /// Type [`INVALID_BODY`](problems::INVALID_BODY): a body that cannot be read (`400`, or `415` for one of another
    /// media type) or that holds a value the service or its database refuses (`422`).
    ///
    /// ```
    /// # use keyset_runtime::http::Problem;
    /// let problem = Problem::invalid_body(422, "the title is longer than 255 characters");
    /// assert_eq!(problem.status(), 422);
    /// ```
    pub fn invalid_body(status: u16, detail: impl fmt::Display) -> Self {
        let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST);
        Problem::of(status, problems::INVALID_BODY, "Invalid request body", detail.to_string())
    }

    /// `503` with `Retry-After: retry_after` (seconds): the service is busy (no database
    /// connection came free in time), and the request may be retried as it is.
    pub fn busy(retry_after: u64) -> Self {
        let detail = "the service is busy: no database connection came free in time; retry".into();
        Problem {
            retry_after: Some(retry_after),
            ..Problem::plain(StatusCode::SERVICE_UNAVAILABLE, Some(detail))
        }
    }

    /// `414`: the request's URI (its query string) is longer than the service reads.
    pub fn uri_too_long(detail: impl fmt::Display) -> Self {
        Problem::plain(StatusCode::URI_TOO_LONG, Some(detail.to_string()))
    }

    /// `500`: the server's own fault. `error` is logged (`tracing`, at error level) and not
    /// shown: its text may hold SQL, table names or values.
    pub fn internal(error: impl fmt::Display) -> Self {
        tracing::error!(%error, "keyset: internal error");
        Problem::plain(StatusCode::INTERNAL_SERVER_ERROR, None)
    }

    /// The HTTP status.
    pub fn status(&self) -> u16 {
        self.details.status.unwrap_or(StatusCode::INTERNAL_SERVER_ERROR).as_u16()
    }

    /// The `type` URI: which kind of problem (one of [`problems`]), or `about:blank`.
    pub fn type_uri(&self) -> String {
        self.details.r#type.clone().unwrap_or_default().to_string()
    }

    /// The title: the same for every problem of its type.
    pub fn title(&self) -> &str {
        self.details.title.as_deref().unwrap_or_default()
    }

    /// What went wrong with this request, for its client: none for a fault of the server.
    pub fn detail(&self) -> Option<&str> {
        self.details.detail.as_deref()
    }

    /// The seconds a client is told to wait before retrying (`Retry-After`), if any.
    pub fn retry_after(&self) -> Option<u64> {
        self.retry_after
    }

    /// The body, as `problem_details` has it.
    pub fn into_details(self) -> ProblemDetails {
        self.details
    }
}

/// A client's mistake is a `400` of its type, with the error's message as the detail; the
/// server's fault a `500`, logged.
impl From<Error> for Problem {
    fn from(error: Error) -> Self {
        let (slug, title) = match &error {
            Error::Cursor(cursor) => token_class(cursor),
            Error::Request(RequestError::RowNotListed) => {
                let (slug, title) = (problems::ROW_NOT_LISTED, "Row not in the listing");
                return Problem::of(StatusCode::NOT_FOUND, slug, title, error.to_string());
            }
            Error::Request(request) => request_class(request),
            _ => return Problem::internal(error),
        };
        Problem::of(StatusCode::BAD_REQUEST, slug, title, error.to_string())
    }
}

impl From<RequestError> for Problem {
    fn from(error: RequestError) -> Self {
        Problem::from(Error::from(error))
    }
}

/// The type of a refused token.
fn token_class(error: &CursorError) -> (&'static str, &'static str) {
    match error {
        CursorError::ForeignSortOrder
        | CursorError::OtherOrder { .. }
        | CursorError::OtherScope => {
            (problems::FOREIGN_TOKEN, "Cursor token of another listing or order")
        }
        CursorError::WrongDirection { .. } => {
            (problems::TOKEN_WRONG_WAY, "Cursor token sent the wrong way")
        }
        _ => (problems::MALFORMED_TOKEN, "Malformed cursor token"),
    }
}

/// The type of a refused request.
fn request_class(error: &RequestError) -> (&'static str, &'static str) {
    match error {
        RequestError::ZeroLimit | RequestError::InvalidParameter { name: "limit", .. } => {
            (problems::INVALID_LIMIT, "Invalid page size")
        }
        RequestError::InvalidParameter { name: "sort" | "dir", .. } => {
            (problems::INVALID_SORT, "Unknown sort order or direction")
        }
        RequestError::AfterAndBefore
        | RequestError::LastWithCursor
        | RequestError::StartWithPosition
        | RequestError::RepeatedParameter { .. } => {
            (problems::CONFLICTING_PARAMETERS, "Conflicting page parameters")
        }
        RequestError::ZeroPageNumber | RequestError::PageNumberTooLarge { .. } => {
            (problems::INVALID_PAGE_NUMBER, "Invalid page number")
        }
        RequestError::SetTooLarge { .. } | RequestError::SetValue { .. } => {
            (problems::INVALID_SET, "Invalid set of values")
        }
        RequestError::CountRefused { .. }
        | RequestError::InvalidParameter { name: "count", .. } => {
            (problems::INVALID_COUNT, "Count not served")
        }
        RequestError::StartRefused { .. }
        | RequestError::RowNotListed
        | RequestError::InvalidParameter { name: "from" | "past", .. } => {
            (problems::INVALID_START, "Invalid start of a page")
        }
        RequestError::InvalidParameter { .. } => (problems::INVALID_PARAMETER, "Invalid parameter"),
    }
}
