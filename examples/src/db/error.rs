//! What went wrong with the database or a request, and whose fault it is: the one place the
//! services' status codes (web) and error codes (GraphQL) are decided from.

use diesel::result::{DatabaseErrorKind, Error as QueryError};

use crate::pool::PoolError;

/// What went wrong with the database, or with the page a client asked for.
#[derive(Debug)]
pub enum Error {
    /// No connection could be had.
    Pool(PoolError),
    /// A statement failed.
    Query(QueryError),
    /// Keyset refused the request (a bad cursor, a zero limit: the client's error), or its
    /// page's statements failed.
    Page(keyset_runtime::Error),
    /// The database URL cannot be served by this build; the message says what to do instead.
    Url(String),
}

/// Whose fault an [`Error`] is, and so how a service answers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// A bad page request (a malformed or foreign cursor, a zero limit): `400`, with the reason.
    BadRequest,
    /// The database refused a value the client sent as invalid for its column (a NUL in a
    /// PostgreSQL text, a string too long for MySQL's column, a `CHECK`): `422`, with the reason.
    InvalidData,
    /// No connection came free, or none could be opened, in time: `503` with `Retry-After`.
    Busy,
    /// The server's own failure: `500`, the detail logged and not shown.
    Server,
}

/// The English messages (PostgreSQL's and MariaDB's default `lc_messages`) of the data errors a
/// client's value causes. diesel reports no SQLSTATE (class `22`, "data exception", on
/// PostgreSQL) nor MySQL's error number for them, only its own kinds, which have none of these:
/// so the message it is. A backstop: the handlers refuse what they can before any query.
const DATA_ERRORS: &[&str] = &[
    // PostgreSQL: 22021 (a NUL in a text), 22001, 22003 and 22008, 22P02.
    "invalid byte sequence for encoding",
    "value too long for type",
    "out of range",
    "invalid input syntax for type",
    // MariaDB and MySQL, in strict mode: 1406, 1366, 1264, 1292.
    "Data too long for column",
    "Incorrect string value",
    "Out of range value",
    "Incorrect datetime value",
];

impl Error {
    /// Whose fault it is: what to answer.
    pub fn fault(&self) -> Fault {
        match self {
            Error::Page(err) if err.is_client_error() => Fault::BadRequest,
            Error::Pool(err) if err.is_busy() => Fault::Busy,
            Error::Query(QueryError::DatabaseError(kind, info)) => match kind {
                DatabaseErrorKind::NotNullViolation | DatabaseErrorKind::CheckViolation => {
                    Fault::InvalidData
                }
                DatabaseErrorKind::Unknown
                    if DATA_ERRORS.iter().any(|text| info.message().contains(text)) =>
                {
                    Fault::InvalidData
                }
                _ => Fault::Server,
            },
            _ => Fault::Server,
        }
    }

    /// Whether the client caused it (answer 4xx), not the server (5xx).
    pub fn is_client_error(&self) -> bool {
        matches!(self.fault(), Fault::BadRequest | Fault::InvalidData)
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Pool(err) => err.fmt(f),
            Error::Query(QueryError::DatabaseError(_, info)) if self.is_client_error() => {
                write!(f, "the database refused a value: {}", info.message())
            }
            Error::Query(err) => write!(f, "query failed: {err}"),
            Error::Page(err) => err.fmt(f),
            Error::Url(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {}

impl From<PoolError> for Error {
    fn from(err: PoolError) -> Self {
        Error::Pool(err)
    }
}

impl From<QueryError> for Error {
    fn from(err: QueryError) -> Self {
        Error::Query(err)
    }
}

impl From<keyset_runtime::Error> for Error {
    fn from(err: keyset_runtime::Error) -> Self {
        Error::Page(err)
    }
}
