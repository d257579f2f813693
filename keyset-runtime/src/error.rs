//! The errors of a page request.

pub use crate::request::RequestError;
pub use crate::token::error::CursorError;

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
    /// A row of the page has sort keys too long for a token of its listing, so the page's
    /// cursor cannot be issued: the server's data or configuration, never the client's request.
    /// Raise the model's limit with `#[keyset(max_token_len = ..)]` (see
    /// [`Keyset::MAX_TOKEN_LEN`](crate::Keyset::MAX_TOKEN_LEN)), or sort by shorter keys.
    #[error(
        "cannot issue a cursor for {model}: its key `{key}` takes {key_len} bytes, and the token \
         would be {len} characters long, over the {max} this listing accepts; raise the limit \
         with `#[keyset(max_token_len = ..)]` on the model, or sort by a shorter key"
    )]
    KeysTooLong {
        /// The model and its sort order ([`Keyset::SORT_ORDER`](crate::Keyset::SORT_ORDER)).
        model: &'static str,
        /// The longest key of the row: its field's name.
        key: &'static str,
        /// The bytes that key takes in the token.
        key_len: usize,
        /// The length the token would have, in characters.
        len: usize,
        /// The most the listing accepts ([`Keyset::MAX_TOKEN_LEN`](crate::Keyset::MAX_TOKEN_LEN)).
        max: usize,
    },
    /// Two rows of the query have the same sort keys, so its order is not total and pages would
    /// skip or repeat rows at a boundary between them: the query's fault, never the client's.
    /// With the model's primary key as tiebreaker this means the query repeats the model's rows,
    /// as a join one-to-many from the model's table does (authors joined with their posts, paged
    /// by author). Page the table on the many side instead (posts with their author), or
    /// declare a model of the join's rows whose order ends with keys unique in the join (see the
    /// crate docs on joins). Through MariaDB's Spider it also means the model lacks
    /// `#[keyset(spider)]`: Spider sent a seek of two index ranges to its data nodes as
    /// statements that read the first range twice.
    #[error(
        "two rows of the query have the same sort keys ({sort_order}), so pages would skip or \
         repeat rows: the query repeats rows of the model (a join one-to-many from its table?); \
         page the many side of the join, or sort by keys unique in the join (through MariaDB's \
         Spider, declare `#[keyset(spider)]` on the model)"
    )]
    RepeatedKeys {
        /// The sort order whose keys repeat ([`Keyset::SORT_ORDER`](crate::Keyset::SORT_ORDER)).
        sort_order: &'static str,
    },
    /// A shard of a [sharded page](crate::Paginated::load_page_sharded) failed: the page is not
    /// served short of its rows. `source` says why (a database error, as a rule).
    #[error("shard {shard} failed: {source}")]
    Shard {
        /// The shard's index, in the order the connections were given.
        shard: usize,
        /// Its error.
        source: Box<Error>,
    },
    /// Rows of two shards have the same sort keys, so the merged order is not total and pages
    /// would skip or repeat rows at a boundary between them: the tiebreaker is unique within
    /// each shard only (one id sequence per shard). Make it unique across shards: a UUID, ids
    /// from disjoint ranges, or the shard's number as a key before the id.
    #[error(
        "rows of shards {} and {} have the same sort keys ({sort_order}): the tiebreaker must be \
         unique across shards, not only within each; use a UUID, ids from disjoint ranges, or \
         the shard's number as a key before the id",
        shards.0,
        shards.1
    )]
    ShardKeysCollide {
        /// The sort order ([`Keyset::SORT_ORDER`](crate::Keyset::SORT_ORDER)).
        sort_order: &'static str,
        /// The two shards, by index, the lower first.
        shards: (usize, usize),
    },
    /// A [sharded page](crate::Paginated::load_page_sharded) was asked of no shard at all: the
    /// server's configuration, which an empty page would hide.
    #[error("a sharded page needs at least one shard; none was given")]
    NoShards,
}

impl Error {
    /// Whether the client sent something invalid (HTTP 400), rather than the server failing
    /// (a database error, [`Error::KeysTooLong`], [`Error::RepeatedKeys`] or a shard's error:
    /// 500).
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
