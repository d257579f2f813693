//! The `type` of each [`Problem`](super::Problem) a client's request gets: one URI per kind of
//! mistake, each the page of its constant here, so that a client (or a test) can tell them
//! apart without reading the detail.
//!
//! ```
//! use keyset_runtime::http::{problems, Problem};
//! use keyset_runtime::{CursorError, Error};
//!
//! let problem = Problem::from(Error::from(CursorError::Malformed));
//! assert_eq!(problem.type_uri(), problems::MALFORMED_TOKEN);
//! ```

/// Where the constants' pages are.
macro_rules! problem_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        pub const $name: &str = concat!(
            "https://docs.rs/keyset-runtime/latest/keyset_runtime/http/problems/constant.",
            stringify!($name),
            ".html"
        );
    };
}

problem_type! {
    /// `after` or `before` is no token of this service, or was edited: not base64, truncated,
    /// of an unknown version, a signature that does not verify, values that do not decode.
    MALFORMED_TOKEN
}
problem_type! {
    /// A token of another listing, or of another order or direction of this one (`sort`,
    /// `dir`): page from the token's own listing, or start again from the first page.
    FOREIGN_TOKEN
}
problem_type! {
    /// A `next_cursor` sent as `before`, or a `prev_cursor` as `after`.
    TOKEN_WRONG_WAY
}
problem_type! {
    /// `limit` is no whole number from 1.
    INVALID_LIMIT
}
problem_type! {
    /// `sort` names no order of the listing, or `dir` is neither `asc` nor `desc`.
    INVALID_SORT
}
problem_type! {
    /// `after` with `before`, `last=true` with a cursor, `from` or `past` with either or with
    /// each other, or a page parameter given twice.
    CONFLICTING_PARAMETERS
}
problem_type! {
    /// A page number of 0, or one whose OFFSET does not fit a `BIGINT`.
    INVALID_PAGE_NUMBER
}
problem_type! {
    /// A feed's set holds more values than the listing pages among, or a value the database
    /// cannot bind.
    INVALID_SET
}
problem_type! {
    /// `count` is none of `exact`, `bounded` and `estimated`, or asks for a count the listing
    /// does not serve (an exact one, where it does not allow that).
    INVALID_COUNT
}
problem_type! {
    /// `from` or `past` (a page that starts at values) holds a value its key's type cannot
    /// read, or more values than the order has keys, or the listing does not start pages at
    /// values: it has not opted in, or its tokens are signed.
    INVALID_START
}
problem_type! {
    /// A page around a row was asked for a row the listing does not hold (its filters leave it
    /// out, or it is gone): `404`.
    ROW_NOT_LISTED
}
problem_type! {
    /// Another parameter of the request that cannot be read: `last=maybe`, or a service's own
    /// path and query parameters
    /// ([`Problem::invalid_parameter`](super::Problem::invalid_parameter)).
    INVALID_PARAMETER
}
problem_type! {
    /// A request body that cannot be read, or that holds a value the service or its database
    /// refuses ([`Problem::invalid_body`](super::Problem::invalid_body)).
    INVALID_BODY
}
