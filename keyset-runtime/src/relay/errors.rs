//! The page's errors as GraphQL errors, with the `extensions.code` Apollo's clients read.

use async_graphql::ErrorExtensions;

use super::ConnectionArgsError;
use crate::error::Error;

/// GraphQL errors with a machine-readable `extensions.code`, as Apollo's clients read them:
/// `BAD_USER_INPUT` for a bad cursor or request, `INTERNAL_SERVER_ERROR` for a database failure
/// (whose message is not shown to the client).
///
/// ```
/// use async_graphql::ErrorExtensions;
/// use keyset_runtime::{CursorError, Error};
///
/// let error = Error::from(CursorError::Empty).extend();
/// assert_eq!(error.message, "invalid cursor: the cursor is empty");
/// assert!(format!("{:?}", error.extensions).contains("BAD_USER_INPUT"));
/// ```
impl ErrorExtensions for Error {
    fn extend(&self) -> async_graphql::Error {
        if self.is_client_error() {
            async_graphql::Error::new(self.to_string())
                .extend_with(|_, e| e.set("code", "BAD_USER_INPUT"))
        } else {
            async_graphql::Error::new("internal error: the page could not be loaded")
                .extend_with(|_, e| e.set("code", "INTERNAL_SERVER_ERROR"))
        }
    }
}

/// The arguments' error as a GraphQL error with `extensions.code` `BAD_USER_INPUT`.
impl ErrorExtensions for ConnectionArgsError {
    fn extend(&self) -> async_graphql::Error {
        async_graphql::Error::new(self.to_string())
            .extend_with(|_, e| e.set("code", "BAD_USER_INPUT"))
    }
}
