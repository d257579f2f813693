//! [`CursorError`]: every way a token can be refused.

use super::direction::Direction;

/// Why a cursor token was refused. Every variant is the client's mistake (HTTP 400). (A row too
/// long to issue a token for is the server's: [`Error::KeysTooLong`](crate::Error::KeysTooLong).)
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CursorError {
    /// The token is the empty string.
    #[error("the cursor is empty")]
    Empty,
    /// The token is longer than its listing accepts
    /// ([`Keyset::MAX_TOKEN_LEN`](crate::Keyset::MAX_TOKEN_LEN), by default 1024 characters).
    #[error("the cursor is {len} characters long; at most {max} are accepted")]
    TooLong {
        /// The token's length, in characters.
        len: usize,
        /// The longest accepted.
        max: usize,
    },
    /// The token is not URL-safe base64 without padding.
    #[error("the cursor is not a token this server issued (not URL-safe base64)")]
    NotBase64,
    /// The string is not a token this server issued: it is too short for a token's header, or
    /// its header is not this listing's and its first byte is no format version of ours.
    #[error("the cursor is not a token this server issued")]
    Malformed,
    /// The token ends before its values or its signature are complete.
    #[error("the cursor is truncated")]
    Truncated,
    /// The token was written in a format version this server does not read.
    #[error("the cursor has format version {found}; this server reads version {supported}")]
    UnsupportedVersion {
        /// The token's version.
        found: u8,
        /// The version this server reads.
        supported: u8,
    },
    /// The token was issued for another model or another sort order.
    #[error("the cursor was issued for another listing or sort order")]
    ForeignSortOrder,
    /// The token was issued for another of the model's named sort orders, or for the same one in
    /// the other direction: `top desc` sent with `new desc`, or with `top asc`.
    #[error(
        "the cursor was issued for the sort order `{issued}`, not `{requested}`: send it with \
         `{issued}`, or start again from the first page of `{requested}`"
    )]
    OtherOrder {
        /// The order and direction the token was issued for, e.g. `top desc`.
        issued: &'static str,
        /// The order and direction it was sent with.
        requested: &'static str,
    },
    /// The token was issued for another listing of this model: another scope
    /// ([`PageRequest::scoped`](crate::PageRequest::scoped)), such as another parent's rows or
    /// another endpoint, or a scoped token sent where none is given, or the other way round.
    #[error(
        "the cursor was issued for another listing of this model (another scope, such as another \
         parent's rows): start again from the first page, without a cursor"
    )]
    OtherScope,
    /// A `prev_cursor` was sent as `after`, or a `next_cursor` as `before`.
    #[error("the cursor points {found} its row but was sent as `{expected}`")]
    WrongDirection {
        /// The direction the token was sent as.
        expected: Direction,
        /// The direction it was issued for.
        found: Direction,
    },
    /// The key values do not decode as this model's cursor (wrong types, trailing bytes).
    #[error("the cursor's values are invalid: {0}")]
    InvalidValues(String),
    /// The token is signed (or encrypted), but its signature (or its encryption's tag) matches
    /// none of the server's keys: it was modified, forged, or issued with a key the server no
    /// longer accepts.
    #[error(
        "the cursor's signature is invalid: it was modified, or issued with a key this server no \
         longer accepts; start again from the first page"
    )]
    BadSignature,
    /// The server requires signed tokens and this one is not signed.
    #[error("the cursor is not signed; this server accepts only signed cursors")]
    MissingSignature,
    /// The token is signed but the server reads unsigned tokens here (signing is off for this
    /// listing): it was not issued by this listing's configuration.
    #[error("the cursor is signed; this server accepts only unsigned cursors here")]
    UnexpectedSignature,
    /// The server requires encrypted tokens here (`TokenKeys::encrypting`, feature `encrypted`)
    /// and this one is plain or only signed: it was not issued by this listing's configuration.
    #[error(
        "the cursor is not encrypted; this server accepts only encrypted cursors here: start \
         again from the first page"
    )]
    NotEncrypted,
    /// The token is encrypted but this listing reads plain or signed tokens: it was not issued by
    /// this listing's configuration.
    #[error(
        "the cursor is encrypted; this server accepts only unencrypted cursors here: start again \
         from the first page"
    )]
    UnexpectedEncryption,
}
