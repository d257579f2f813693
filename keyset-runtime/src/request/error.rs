//! [`RequestError`]: why a page request is refused, the client's mistake (400).

use crate::count::Count;

/// Why a page request is invalid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RequestError {
    /// `after` and `before` were both given.
    #[error("give `after` or `before`, not both")]
    AfterAndBefore,
    /// `last` was combined with a cursor.
    #[error("`last` starts from the end and takes no `after` or `before` cursor")]
    LastWithCursor,
    /// The limit is zero.
    #[error("`limit` must be at least 1")]
    ZeroLimit,
    /// [`PageRequest::page_number`](crate::PageRequest::page_number) was given page 0: pages count from 1.
    #[error("page numbers start at 1")]
    ZeroPageNumber,
    /// The rows before page `number` of `limit` rows (the page size served, after clamping) are
    /// more than an OFFSET can skip: a `BIGINT`, at most `i64::MAX`.
    #[error(
        "page {number} of {limit} rows lies beyond any table: its OFFSET does not fit a BIGINT"
    )]
    PageNumberTooLarge {
        /// The page number asked for.
        number: u32,
        /// The page size served.
        limit: u32,
    },
    /// A page among a set of values ([`Paginate::among`](crate::Paginate::among)) was given
    /// more values than the listing pages among
    /// ([`Among::max_set`](crate::Among::max_set)); `len` is `None` for a subquery,
    /// which is read no further than one row past the bound.
    #[error("{}", set_too_large(*.len, *.max))]
    SetTooLarge {
        /// The number of values given, when a list gave them.
        len: Option<usize>,
        /// The most the listing serves.
        max: usize,
    },
    /// A parameter of the page request in a query string cannot be read (`limit=ten`,
    /// `sort=hot`, `dir=up`, `last=maybe`): `expected` says what it takes. Read by
    /// [`http::page_request`](crate::http::page_request) and the `axum` extractors.
    #[error("`{name}={value}`: {expected}")]
    InvalidParameter {
        /// The parameter, as the query string names it.
        name: &'static str,
        /// Its value, as given (decoded).
        value: String,
        /// What it takes, e.g. "a whole number of rows from 1, e.g. `limit=20`".
        expected: String,
    },
    /// A parameter of the page request is given more than once (`limit=10&limit=20`): which
    /// one was meant is not for the server to guess.
    #[error("`{name}` is given more than once: give it once")]
    RepeatedParameter {
        /// The parameter, as the query string names it.
        name: &'static str,
    },
    /// The request asks for a count the listing does not serve: an exact one where the listing
    /// does not allow it ([`Paginated::allow_exact_count`](crate::Paginated::allow_exact_count)).
    #[error(
        "this listing does not serve {count} counts: ask for a `bounded` or `estimated` count"
    )]
    CountRefused {
        /// The count asked for.
        count: Count,
    },
    /// A start at values (`from`, `past`) was combined with another position (`after`,
    /// `before`, `last`, or each other): which one was meant is not for the server to guess.
    #[error("`from` and `past` start a page at values: give one of them, and no `after`, `before` or `last`")]
    StartWithPosition,
    /// The request starts at values ([`PageRequest::starting_at`](crate::PageRequest::starting_at),
    /// `?from=`) where the listing does not serve such starts: it did not opt in
    /// ([`Paginated::allow_starts`](crate::Paginated::allow_starts)), or its tokens are signed,
    /// where a client may not choose a position that no token of the server's holds.
    #[error("{}", if *.signed {
        "this listing's positions come from its signed tokens only: page from a token, not from values"
    } else {
        "this listing does not start pages at values: page from the first page or a token"
    })]
    StartRefused {
        /// Whether the listing's tokens are signed or encrypted.
        signed: bool,
    },
    /// A page around a row ([`Paginated::at_row`](crate::Paginated::at_row)) was asked for a
    /// row the listing does not hold: the listing's filters leave it out, or it was deleted
    /// meanwhile. A client's link to a row it may not list here: `404` over HTTP.
    #[error("the row is not in this listing: its filters leave it out, or it no longer exists")]
    RowNotListed,
    /// A value of the set cannot be bound on the database the page runs on (text with a NUL
    /// character on PostgreSQL, a date beyond its range, ..): the client's, like a token's.
    #[error("value {index} of the set cannot be bound: {reason}")]
    SetValue {
        /// Where in the set the value is, from 0.
        index: usize,
        /// Why.
        reason: String,
    },
}

fn set_too_large(len: Option<usize>, max: usize) -> String {
    match len {
        Some(len) => {
            format!("the set holds {len} values, more than the {max} this listing pages among")
        }
        None => format!("the set holds more than the {max} values this listing pages among"),
    }
}
