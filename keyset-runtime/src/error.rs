//! The errors of a page request.

pub use crate::request::RequestError;
pub use crate::token::CursorError;

/// Why a page could not be loaded.
///
/// [`Error::is_client_error`] tells a web handler whether to answer 400 (a bad token or request)
/// or 500 (the database failed).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The cursor token is malformed, foreign or used in the wrong direction.
    #[error("invalid cursor: {0}")]
    Cursor(#[from] CursorError),
    /// The page request itself is invalid (e.g. a zero limit).
    #[error("invalid page request: {0}")]
    Request(#[from] RequestError),
    /// The query failed.
    #[error("database error: {0}")]
    Database(#[from] diesel::result::Error),
}

impl Error {
    /// Whether the client sent something invalid (HTTP 400), rather than the server failing.
    ///
    /// A cursor that cannot be issued because its keys are too long
    /// ([`CursorError::TooLong`] while loading a page) is reported as a `Cursor` error too, but is
    /// the server's: it only arises from keys of over a kilobyte.
    ///
    /// ```
    /// use keyset_runtime::{CursorError, Error, RequestError};
    ///
    /// assert!(Error::from(CursorError::ForeignSortOrder).is_client_error()); // 400
    /// assert!(Error::from(RequestError::ZeroLimit).is_client_error()); // 400
    /// assert!(!Error::from(diesel::result::Error::NotFound).is_client_error()); // 500
    /// ```
    pub fn is_client_error(&self) -> bool {
        matches!(self, Error::Cursor(_) | Error::Request(_))
    }
}
