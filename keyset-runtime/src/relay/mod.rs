//! [Relay Cursor Connections](https://relay.dev/graphql/connections.htm) for
//! [async-graphql](https://docs.rs/async-graphql) (feature `async-graphql`).
//!
//! A GraphQL list field takes `first`/`after` (forward) or `last`/`before` (backward) and returns
//! a connection: `edges { cursor node }` and `pageInfo { hasNextPage hasPreviousPage startCursor
//! endCursor }`. [`ConnectionArgs::new`] validates the four arguments, and [`load_connection`]
//! (or [`load_connection_map`], to turn rows into GraphQL objects) runs one keyset page and
//! returns async-graphql's own [`Connection`](async_graphql::connection::Connection), so the
//! schema has the types Relay clients expect (`PostConnection`, `PostEdge`, `PageInfo`).
//!
//! ```
//! use diesel::prelude::*;
//! use keyset_runtime::relay::{load_connection, ConnectionArgs};
//! use keyset_runtime::Keyset;
//!
//! diesel::table! {
//!     posts (id) {
//!         id -> BigInt,
//!         title -> Text,
//!     }
//! }
//!
//! #[derive(Queryable, Selectable, Keyset, async_graphql::SimpleObject)]
//! struct Post {
//!     #[sort(desc)]
//!     #[tiebreaker]
//!     id: i64,
//!     title: String,
//! }
//!
//! /// The resolver's body: `posts(first: Int, after: String, last: Int, before: String)`.
//! fn posts(
//!     conn: &mut SqliteConnection,
//!     after: Option<String>,
//!     before: Option<String>,
//!     first: Option<i32>,
//!     last: Option<i32>,
//! ) -> async_graphql::Result<keyset_runtime::relay::CountedConnection<Post>> {
//!     let args = ConnectionArgs::new(after, before, first, last)?;
//!     Ok(load_connection(posts::table.select(Post::as_select()), &args, conn)?)
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut conn = SqliteConnection::establish(":memory:")?;
//! diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY, title TEXT NOT NULL)")
//!     .execute(&mut conn)?;
//! diesel::sql_query("INSERT INTO posts VALUES (1, 'a'), (2, 'b'), (3, 'c')").execute(&mut conn)?;
//!
//! let page = posts(&mut conn, None, None, Some(2), None).unwrap();
//! assert_eq!(page.edges.iter().map(|edge| edge.node.id).collect::<Vec<_>>(), [3, 2]);
//! assert!(page.has_next_page && !page.has_previous_page);
//!
//! // Any edge's cursor works both ways: here, the rows before the second edge.
//! let cursor = page.edges[1].cursor.clone();
//! let back = posts(&mut conn, None, Some(cursor), None, Some(5)).unwrap();
//! assert_eq!(back.edges.iter().map(|edge| edge.node.id).collect::<Vec<_>>(), [3]);
//! assert!(!back.has_previous_page && back.has_next_page);
//!
//! // The spec's rules are checked: a negative count is an error, not an empty list.
//! assert!(posts(&mut conn, None, None, Some(-1), None).is_err());
//! # Ok(())
//! # }
//! ```
//!
//! # Feeds
//!
//! A query narrowed to a set of values ([`Paginate::among`](crate::Paginate::among), or
//! [`among_query`](crate::Paginate::among_query) over a subquery) is a query like any other: a
//! connection loads it as it loads the listing, at one index seek per value at most, and its
//! cursors page it either way. A set over its bound is the client's error, before any query.
//!
//! ```
//! # use diesel::prelude::*;
//! use keyset_runtime::relay::{load_connection, ConnectionArgs};
//! use keyset_runtime::{Keyset, Paginate};
//! # diesel::table! { posts (id) { id -> BigInt, author_id -> BigInt } }
//!
//! #[derive(Queryable, Selectable, Keyset, async_graphql::SimpleObject)]
//! #[keyset(prefix(author_id))]
//! struct Post {
//!     #[sort(desc)]
//!     #[tiebreaker]
//!     id: i64,
//!     author_id: i64,
//! }
//!
//! /// `feed(authors: [Int!]!, first: Int, after: String, last: Int, before: String)`.
//! fn feed(
//!     conn: &mut SqliteConnection,
//!     authors: Vec<i64>,
//!     args: &ConnectionArgs,
//! ) -> Result<keyset_runtime::relay::CountedConnection<Post>, keyset_runtime::Error> {
//!     let query = posts::table.select(Post::as_select()).among(posts::author_id, authors);
//!     load_connection(query.max_set(100), args, conn)
//! }
//!
//! # let mut conn = SqliteConnection::establish(":memory:").unwrap();
//! # diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY, author_id BIGINT NOT NULL)").execute(&mut conn).unwrap();
//! # diesel::sql_query("INSERT INTO posts VALUES (1, 7), (2, 8), (3, 9), (4, 7)").execute(&mut conn).unwrap();
//! let first = ConnectionArgs::new(None, None, Some(2), None).unwrap();
//! let page = feed(&mut conn, vec![7, 9], &first)?;
//! assert_eq!(page.edges.iter().map(|edge| edge.node.id).collect::<Vec<_>>(), [4, 3]);
//! let end = page.edges.last().map(|edge| edge.cursor.clone());
//! let after = ConnectionArgs::new(end, None, Some(2), None).unwrap();
//! let next = feed(&mut conn, vec![7, 9], &after)?;
//! assert_eq!(next.edges.iter().map(|edge| edge.node.id).collect::<Vec<_>>(), [1]);
//! assert!(!next.has_next_page && next.has_previous_page);
//!
//! let refused = feed(&mut conn, (0..101).collect(), &first).err().unwrap();
//! assert!(refused.is_client_error());
//! # Ok::<(), keyset_runtime::Error>(())
//! ```
//!
//! # Cursors
//!
//! Each edge's cursor is the token of its row: the same token a REST page's `next_cursor` would be
//! if the page ended at that row (see [`token`](crate::token)), tied to the model and its sort
//! order. Relay uses one cursor in both directions (`after: endCursor`, `before: startCursor`, or
//! any edge's), so here a token names a row, and `after` and `before` read it alike; a REST
//! `prev_cursor` is accepted too. A malformed or foreign cursor is an [`Error::Cursor`](crate::Error::Cursor) before any
//! query runs.
//!
//! # `pageInfo`
//!
//! A page fetches one row more than asked, so the flag in the direction of
//! travel is exact: `hasNextPage` after `first`, `hasPreviousPage` after `last`. The flag behind
//! the page is what the spec allows a server to determine cheaply: with `after` (or `before`), a
//! page lies behind it, since the cursor's row was there when its cursor was issued, so
//! `hasPreviousPage` (or `hasNextPage`) is `true`; without a cursor, the page starts (or ends) the
//! list, and the flag is `false`. The one inexact case: when the cursor's row and every row behind
//! it have been deleted since, the flag still says `true`, and the page it leads to is empty.
//!
//! A page with no edges has no `startCursor` or `endCursor` to page on from. After a cursor whose
//! rows ahead were all deleted, `hasPreviousPage` is `true` and every row left lies behind the
//! page: `last: n` without `before` reads them (and `first: n` without `after` mirrors it for an
//! emptied `before` page). A REST page's tokens, an empty page's included, are accepted too.
//!
//! # Arguments
//!
//! | arguments | page |
//! |---|---|
//! | none, or `first` | the first `first` rows (default [`PageRequest::DEFAULT_LIMIT`]) |
//! | `after`, with or without `first` | the rows after the cursor |
//! | `last` | the last `last` rows |
//! | `before`, with or without `last` | the rows before the cursor |
//!
//! Counts are clamped to [`ConnectionArgs::max_limit`] (default
//! [`PageRequest::DEFAULT_MAX_LIMIT`]); a clamped page says `hasNextPage: true` when rows remain.
//! `first: 0` and `last: 0` return no edges and still answer whether rows lie in that direction.
//! Refused, with a [`ConnectionArgsError`]: a negative count (the spec requires an error), `first`
//! with `last` and `after` with `before` (the spec discourages them; a keyset page has one
//! direction and one start), and `first` with `before` or `last` with `after` (the first rows
//! before a cursor are not a keyset page; page from the cursor with the matching count instead).

mod errors;
mod load;

pub use load::{
    load_connection, load_connection_by, load_connection_map, ConnectionTotal, CountedConnection,
};
#[cfg(feature = "diesel-async")]
pub use load::{load_connection_async, load_connection_by_async, load_connection_map_async};

use crate::count::{Count, Counting};
use crate::request::{Limit, PageRequest, RequestedPosition};
use crate::token::codec::Codec;
use crate::token::format::scope_hash;
use crate::token::CursorValue;

/// The validated `first`, `after`, `last` and `before` arguments of a Relay connection field.
///
/// ```
/// use keyset_runtime::relay::{ConnectionArgs, ConnectionArgsError};
///
/// assert!(ConnectionArgs::new(Some("cursor".into()), None, Some(10), None).is_ok());
/// assert_eq!(
///     ConnectionArgs::new(None, None, Some(10), Some(10)).unwrap_err(),
///     ConnectionArgsError::FirstAndLast,
/// );
/// ```
#[derive(Debug, Clone)]
pub struct ConnectionArgs {
    /// Where the page starts, the cursor still encoded (never a page number).
    position: RequestedPosition,
    /// `first` or `last`, when given.
    count: Option<u32>,
    max_limit: u32,
    codec: Codec,
    /// The connection's `totalCount`, when asked for, and the rules for it.
    counting: Counting,
}

/// Why the arguments of a connection field were refused. Every variant is the client's mistake;
/// its message says what to send instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConnectionArgsError {
    /// `first` or `last` is negative.
    #[error("`{argument}` must not be negative, but is {value}")]
    Negative {
        /// `"first"` or `"last"`.
        argument: &'static str,
        /// The value sent.
        value: i32,
    },
    /// `first` and `last` were both given.
    #[error("give `first` (to page forward) or `last` (to page backward), not both")]
    FirstAndLast,
    /// `after` and `before` were both given.
    #[error("give `after` or `before`, not both")]
    AfterAndBefore,
    /// `first` was combined with `before`.
    #[error(
        "`first` pages forward and takes `after`; to page backward from `before`, give `last`"
    )]
    FirstWithBefore,
    /// `last` was combined with `after`.
    #[error(
        "`last` pages backward and takes `before`; to page forward from `after`, give `first`"
    )]
    LastWithAfter,
}

impl ConnectionArgs {
    /// Validates a connection field's arguments, in the order async-graphql's own
    /// `connection::query` takes them. See the [module docs](self) for what is accepted.
    ///
    /// ```
    /// use keyset_runtime::relay::{ConnectionArgs, ConnectionArgsError};
    ///
    /// let negative = ConnectionArgs::new(None, None, Some(-5), None).unwrap_err();
    /// assert_eq!(negative.to_string(), "`first` must not be negative, but is -5");
    /// let mixed = ConnectionArgs::new(None, Some("c".into()), Some(5), None).unwrap_err();
    /// assert_eq!(mixed, ConnectionArgsError::FirstWithBefore);
    /// ```
    pub fn new(
        after: Option<String>,
        before: Option<String>,
        first: Option<i32>,
        last: Option<i32>,
    ) -> Result<Self, ConnectionArgsError> {
        let count = |argument, value: Option<i32>| match value {
            Some(value) if value < 0 => Err(ConnectionArgsError::Negative { argument, value }),
            Some(value) => Ok(Some(value as u32)),
            None => Ok(None),
        };
        let (first, last) = (count("first", first)?, count("last", last)?);
        let (position, count) = match (first, last, after, before) {
            (Some(_), Some(_), _, _) => return Err(ConnectionArgsError::FirstAndLast),
            (_, _, Some(_), Some(_)) => return Err(ConnectionArgsError::AfterAndBefore),
            (Some(_), None, None, Some(_)) => return Err(ConnectionArgsError::FirstWithBefore),
            (None, Some(_), Some(_), None) => return Err(ConnectionArgsError::LastWithAfter),
            (None, Some(last), None, None) => (RequestedPosition::Last, Some(last)),
            (None, last, None, Some(before)) => (RequestedPosition::Before(before), last),
            (first, None, None, None) => (RequestedPosition::First, first),
            (first, None, Some(after), None) => (RequestedPosition::After(after), first),
        };
        Ok(ConnectionArgs {
            position,
            count,
            max_limit: PageRequest::DEFAULT_MAX_LIMIT,
            codec: Codec::default(),
            counting: Counting::default(),
        })
    }

    /// Serves at most `max_limit` edges (default [`PageRequest::DEFAULT_MAX_LIMIT`]); larger
    /// counts are clamped, not refused.
    ///
    /// ```
    /// # use keyset_runtime::relay::ConnectionArgs;
    /// let args = ConnectionArgs::new(None, None, Some(1000), None).unwrap().max_limit(500);
    /// assert_eq!(args.limit(), 500);
    /// ```
    pub fn max_limit(mut self, max_limit: u32) -> Self {
        self.max_limit = max_limit.max(1);
        self
    }

    /// Reads and writes the cursors signed or encrypted with `keys`, as
    /// [`paginate_signed`](crate::Paginate::paginate_signed) does for REST pages.
    #[cfg(feature = "signed")]
    pub fn signed(mut self, keys: &crate::TokenKeys) -> Self {
        self.codec = self.codec.signed(keys);
        self
    }

    /// Scopes the cursors to `scope`, as [`PageRequest::scoped`] does for REST pages: a cursor
    /// of another scope of the model, or an unscoped one, is refused
    /// ([`CursorError::OtherScope`](crate::CursorError::OtherScope)).
    ///
    /// ```
    /// # use keyset_runtime::relay::ConnectionArgs;
    /// # let author_id = 7i64;
    /// // `author(id: 7) { posts(first: 10) }`: the cursors of author 7's posts.
    /// let args = ConnectionArgs::new(None, None, Some(10), None)?.scoped(&author_id);
    /// # Ok::<(), keyset_runtime::relay::ConnectionArgsError>(())
    /// ```
    pub fn scoped<S: CursorValue>(mut self, scope: &S) -> Self {
        self.codec = self.codec.scoped(Some(scope_hash(scope)));
        self
    }

    /// Counts the listing's rows as `count` says, into the connection's `totalCount` (see
    /// [`ConnectionTotal`]), as [`PageRequest::count`] does for a REST page: a resolver passes the
    /// field's own argument (`Count` is a GraphQL enum, `EXACT`, `BOUNDED`, `ESTIMATED`), or
    /// asks for a count only when the query selects `totalCount`
    /// (`ctx.look_ahead().field("totalCount").exists()`). An exact count is refused unless
    /// [`allow_exact_count`](Self::allow_exact_count) allows it, a bounded one stops at the
    /// [`count_cap`](Self::count_cap).
    ///
    /// ```
    /// # use keyset_runtime::relay::ConnectionArgs;
    /// use keyset_runtime::Count;
    /// let args = ConnectionArgs::new(None, None, Some(10), None)?.count(Count::Estimated);
    /// # Ok::<(), keyset_runtime::relay::ConnectionArgsError>(())
    /// ```
    pub fn count(mut self, count: Count) -> Self {
        self.counting.asked = Some(count);
        self
    }

    /// Caps a bounded count at `cap` rows (default [`Count::DEFAULT_CAP`]), as
    /// [`Paginated::count_cap`](crate::Paginated::count_cap) does.
    pub fn count_cap(mut self, cap: u32) -> Self {
        self.counting.cap = cap;
        self
    }

    /// Serves exact counts, refused otherwise, as
    /// [`Paginated::allow_exact_count`](crate::Paginated::allow_exact_count) does.
    pub fn allow_exact_count(mut self) -> Self {
        self.counting.exact = true;
        self
    }

    /// The number of edges to serve: `first` or `last` (or [`PageRequest::DEFAULT_LIMIT`]),
    /// clamped to the [`max_limit`](Self::max_limit).
    ///
    /// ```
    /// # use keyset_runtime::relay::ConnectionArgs;
    /// assert_eq!(ConnectionArgs::new(None, None, None, Some(7)).unwrap().limit(), 7);
    /// assert_eq!(ConnectionArgs::new(None, None, None, None).unwrap().limit(), 20);
    /// ```
    pub fn limit(&self) -> u32 {
        match self.count {
            Some(0) => 0,
            _ => self.fetched_limit().served(),
        }
    }

    /// The limit of the page the arguments ask for: `first: 0` and `last: 0` still fetch one
    /// row, to tell whether any lie that way.
    fn fetched_limit(&self) -> Limit {
        Limit::at_least_one(self.count).at_most(self.max_limit)
    }

    /// Whether the page runs backward (`last` or `before`), against the model's order. Its edges
    /// are still in the model's order.
    ///
    /// ```
    /// # use keyset_runtime::relay::ConnectionArgs;
    /// assert!(ConnectionArgs::new(None, None, None, Some(7)).unwrap().is_backward());
    /// assert!(!ConnectionArgs::new(Some("c".into()), None, None, None).unwrap().is_backward());
    /// ```
    pub fn is_backward(&self) -> bool {
        matches!(self.position, RequestedPosition::Last | RequestedPosition::Before(_))
    }

    /// Whether the arguments named a cursor.
    fn has_cursor(&self) -> bool {
        matches!(self.position, RequestedPosition::After(_) | RequestedPosition::Before(_))
    }
}
