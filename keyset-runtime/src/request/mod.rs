//! [`PageRequest`]: which page a client asks for, as written in a URL.

mod error;
mod start;
mod wire;

pub use error::RequestError;
pub(crate) use start::Starts;

use serde::Deserialize;

use crate::count::Count;
use crate::token::direction::Direction;
use crate::token::format::scope_hash;
use crate::token::CursorValue;

/// Which page to load: the first or last `limit` rows, or the `limit` rows after or before a
/// cursor token.
///
/// Build one in code, or deserialize it from query parameters (`?after=..&limit=..`,
/// `?before=..&limit=..`, `?last=true&limit=..`, or just `?limit=..` for the first page):
///
/// ```
/// use keyset_runtime::PageRequest;
///
/// let request: PageRequest = serde_json::from_str(r#"{"after": "AQ...", "limit": 50}"#).unwrap();
/// assert_eq!(request, PageRequest::after("AQ...", 50));
///
/// // `after` and `before` together are ambiguous, and refused.
/// let both = serde_json::from_str::<PageRequest>(r#"{"after": "a", "before": "b"}"#);
/// assert!(both.unwrap_err().to_string().contains("not both"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "wire::RawPageRequest")]
pub struct PageRequest {
    position: RequestedPosition,
    limit: Option<u32>,
    /// The hash of the scope given with [`scoped`](Self::scoped).
    scope: Option<u32>,
    /// The count asked for with the page, if any.
    count: Option<Count>,
}

/// The rows a request starts from, tokens still encoded. (Named in the drivers' hidden methods
/// only; not exported.)
#[doc(hidden)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestedPosition {
    First,
    After(String),
    Before(String),
    Last,
    /// Page `n` (from 1), by OFFSET.
    Number(u32),
    /// At (`inclusive`) or strictly past the values of the order's first keys, as text.
    Start {
        values: Vec<String>,
        inclusive: bool,
    },
}

impl PageRequest {
    /// Page size when the request names none.
    pub const DEFAULT_LIMIT: u32 = 20;
    /// Largest page served unless [`Paginated::max_limit`](crate::Paginated::max_limit) says
    /// otherwise; larger requests are clamped to it.
    pub const DEFAULT_MAX_LIMIT: u32 = 100;
    /// Most values a page among a set ([`Paginate::among`](crate::Paginate::among)) takes
    /// unless [`Among::max_set`](crate::Among::max_set) says otherwise; a larger set is
    /// refused ([`RequestError::SetTooLarge`]), not cut.
    pub const DEFAULT_MAX_SET: usize = 1_000;
    /// The largest bound [`Among::max_set`](crate::Among::max_set) sets. On SQLite and
    /// MariaDB a page runs one branch per value (padded to a power of two) in one statement, each
    /// binding the value, the cursor and the limit: 2,048 of them leave SQLite's 32,766 binds
    /// per statement room for 15 per branch, and MariaDB's 65,535 for 31.
    pub const MAX_SET: usize = 2_048;

    /// The first `limit` rows.
    ///
    /// ```
    /// # use keyset_runtime::PageRequest;
    /// assert_eq!(PageRequest::first(50).limit(), Some(50));
    /// ```
    pub fn first(limit: u32) -> Self {
        PageRequest {
            position: RequestedPosition::First,
            limit: Some(limit),
            scope: None,
            count: None,
        }
    }

    /// The last `limit` rows, returned in the model's order.
    ///
    /// ```
    /// # use keyset_runtime::PageRequest;
    /// let from_url: PageRequest = serde_json::from_str(r#"{"last": true, "limit": 10}"#).unwrap();
    /// assert_eq!(from_url, PageRequest::last(10));
    /// ```
    pub fn last(limit: u32) -> Self {
        PageRequest {
            position: RequestedPosition::Last,
            limit: Some(limit),
            scope: None,
            count: None,
        }
    }

    /// The `limit` rows after the row a `next_cursor` token points to.
    ///
    /// ```
    /// # use keyset_runtime::{Page, PageRequest};
    /// # let page = Page::<()>::new(vec![], Some("AQ".to_owned()), None);
    /// if let Some(token) = page.next_cursor {
    ///     let next = PageRequest::after(token, 20);
    /// #   assert_eq!(next.limit(), Some(20));
    /// }
    /// ```
    pub fn after(token: impl Into<String>, limit: u32) -> Self {
        PageRequest {
            position: RequestedPosition::After(token.into()),
            limit: Some(limit),
            scope: None,
            count: None,
        }
    }

    /// The `limit` rows before the row a `prev_cursor` token points to, returned in the model's
    /// order.
    ///
    /// ```
    /// # use keyset_runtime::{Page, PageRequest};
    /// # let page = Page::<()>::new(vec![], None, Some("AQ".to_owned()));
    /// if let Some(token) = page.prev_cursor {
    ///     let previous = PageRequest::before(token, 20);
    /// #   assert_eq!(previous.limit(), Some(20));
    /// }
    /// ```
    pub fn before(token: impl Into<String>, limit: u32) -> Self {
        PageRequest {
            position: RequestedPosition::Before(token.into()),
            limit: Some(limit),
            scope: None,
            count: None,
        }
    }

    /// Page `number` (counting from 1) of `limit` rows, for the rare grid that must jump to a
    /// page: OFFSET `(number - 1) * limit`, in the model's order.
    ///
    /// **The expensive path.** The database reads and discards every row before the page, so
    /// page `n` costs O(n × limit) and deep pages get slow (measured on PostgreSQL: about 0.5 s
    /// at a depth of a million rows, where a keyset page takes 0.2 ms); and rows inserted or
    /// deleted meanwhile shift the pages. The page it returns has the usual `next_cursor` and
    /// `prev_cursor`, so after the jump, paging on is keyset again. Page number 0 is refused with
    /// [`RequestError::ZeroPageNumber`]. Never deserialized from query parameters: a handler
    /// that offers page numbers opts in here, and should cap them.
    ///
    /// ```
    /// # use diesel::prelude::*;
    /// # use keyset_runtime::{Keyset, PageRequest, Paginate};
    /// # diesel::table! { posts (id) { id -> BigInt } }
    /// # #[derive(Queryable, Selectable, Keyset, Debug)]
    /// # struct Post { #[sort(asc)] #[tiebreaker] id: i64 }
    /// # let mut conn = SqliteConnection::establish(":memory:").unwrap();
    /// # diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY)").execute(&mut conn).unwrap();
    /// # diesel::sql_query("INSERT INTO posts VALUES (1), (2), (3), (4), (5), (6), (7)").execute(&mut conn).unwrap();
    /// let query = || posts::table.select(Post::as_select());
    /// let third = query().paginate(&PageRequest::page_number(3, 2))?.load_page(&mut conn)?;
    /// assert_eq!(third.items.iter().map(|post| post.id).collect::<Vec<_>>(), [5, 6]);
    ///
    /// // From there on, the tokens page by keyset.
    /// let fourth = query().paginate(&PageRequest::after(third.next_cursor.unwrap(), 2))?.load_page(&mut conn)?;
    /// assert_eq!(fourth.items.iter().map(|post| post.id).collect::<Vec<_>>(), [7]);
    /// # Ok::<(), keyset_runtime::Error>(())
    /// ```
    pub fn page_number(number: u32, limit: u32) -> Self {
        PageRequest {
            position: RequestedPosition::Number(number),
            limit: Some(limit),
            scope: None,
            count: None,
        }
    }

    /// The requested page size, if the request named one.
    ///
    /// ```
    /// # use keyset_runtime::PageRequest;
    /// let from_url: PageRequest = serde_json::from_str(r#"{"after": "AQ"}"#).unwrap();
    /// assert_eq!(from_url.limit(), None); // served as PageRequest::DEFAULT_LIMIT rows
    /// ```
    pub fn limit(&self) -> Option<u32> {
        self.limit
    }

    pub(crate) fn position(&self) -> &RequestedPosition {
        &self.position
    }

    /// Scopes the request's tokens to `scope`: the values that tell this listing from the other
    /// listings of the same model, such as the parent's id of `/authors/:id/posts`, or an
    /// endpoint's name. The page's tokens carry its hash, and a token issued in another scope,
    /// or without one, is refused before any query
    /// ([`CursorError::OtherScope`](crate::CursorError::OtherScope), 400), as a scoped token is
    /// by an unscoped request; tokens issued unscoped keep paging unscoped requests. A second
    /// call replaces the scope; several values go in a tuple (`&(tenant_id, author_id)`).
    ///
    /// Without a scope, a model's token pages every listing of that model (the query's filters
    /// keep each to its rows, so that is harmless, but a token of author 7's posts then starts
    /// a page of author 8's at 7's position). The scope is hashed in the token format's own
    /// encoding of the values ([`CursorValue`]), the same on every build and platform, into 32
    /// bits: not a secret, and a check against mistakes, not access control (keep that in the
    /// query). A client can rewrite the hash of an unsigned token; a signed or encrypted one's
    /// is authenticated with the rest ([`TokenKeys`](crate::TokenKeys)).
    ///
    /// ```
    /// # use diesel::prelude::*;
    /// # use keyset_runtime::{CursorError, Error, Keyset, PageRequest, Paginate};
    /// # diesel::table! { posts (id) { id -> BigInt, author_id -> BigInt } }
    /// # #[derive(Queryable, Selectable, Keyset)]
    /// # struct Post { #[sort(asc)] #[tiebreaker] id: i64 }
    /// # let mut conn = SqliteConnection::establish(":memory:").unwrap();
    /// # diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY, author_id BIGINT NOT NULL)").execute(&mut conn).unwrap();
    /// # diesel::sql_query("INSERT INTO posts VALUES (1, 7), (2, 8), (3, 7), (4, 7)").execute(&mut conn).unwrap();
    /// // GET /authors/:author_id/posts
    /// let posts_of = |author_id: i64, request: PageRequest| {
    ///     posts::table
    ///         .filter(posts::author_id.eq(author_id))
    ///         .select(Post::as_select())
    ///         .paginate(&request.scoped(&author_id))
    /// };
    /// let first = posts_of(7, PageRequest::first(2))?.load_page(&mut conn)?;
    /// let after = PageRequest::after(first.next_cursor.unwrap(), 2);
    /// assert_eq!(posts_of(7, after.clone())?.load_page(&mut conn)?.items.len(), 1);
    ///
    /// // Author 7's token, sent to author 8's posts: refused, 400.
    /// assert!(matches!(posts_of(8, after).err(), Some(Error::Cursor(CursorError::OtherScope))));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn scoped<S: CursorValue>(mut self, scope: &S) -> Self {
        self.scope = Some(scope_hash(scope));
        self
    }

    pub(crate) fn scope(&self) -> Option<u32> {
        self.scope
    }

    /// Asks for the listing's row count with the page, as `count` says: the page reports it in
    /// [`Page::total`](crate::Page::total). An exact count is served only where the listing
    /// allows it ([`Paginated::allow_exact_count`](crate::Paginated::allow_exact_count)), else
    /// refused before any query ([`RequestError::CountRefused`], 400); a bounded count reads at
    /// most the listing's cap of rows ([`Paginated::count_cap`](crate::Paginated::count_cap));
    /// an estimate is one planner call. See [`Count`] for what each runs. From a query string:
    /// `count=exact`, `count=bounded` or `count=estimated`.
    ///
    /// ```
    /// # use diesel::prelude::*;
    /// use keyset_runtime::{Count, Keyset, PageRequest, Paginate, TotalKind};
    /// # diesel::table! { posts (id) { id -> BigInt } }
    /// # #[derive(Queryable, Selectable, Keyset)]
    /// # struct Post { #[sort(asc)] #[tiebreaker] id: i64 }
    /// # let mut conn = SqliteConnection::establish(":memory:").unwrap();
    /// # diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY)").execute(&mut conn).unwrap();
    /// # diesel::sql_query("INSERT INTO posts VALUES (1), (2), (3), (4), (5)").execute(&mut conn).unwrap();
    /// let request = PageRequest::first(2).count(Count::Bounded);
    /// let page = posts::table.select(Post::as_select()).paginate(&request)?.count_cap(3).load_page(&mut conn)?;
    /// let total = page.total.unwrap();
    /// assert_eq!((total.kind, total.count), (TotalKind::AtLeast, 3)); // "3+"
    /// # Ok::<(), keyset_runtime::Error>(())
    /// ```
    pub fn count(mut self, count: Count) -> Self {
        self.count = Some(count);
        self
    }

    /// The count asked for with the page ([`count`](Self::count)), if any.
    ///
    /// ```
    /// # use keyset_runtime::{Count, PageRequest};
    /// let from_url: PageRequest = serde_json::from_str(r#"{"count": "estimated"}"#).unwrap();
    /// assert_eq!(from_url.requested_count(), Some(Count::Estimated));
    /// assert_eq!(PageRequest::first(10).requested_count(), None);
    /// ```
    pub fn requested_count(&self) -> Option<Count> {
        self.count
    }

    /// The cursor token the request pages from, and which way: `after` or `before`. `None` for
    /// the first and last pages and for a page number.
    ///
    /// ```
    /// use keyset_runtime::{Direction, PageRequest};
    ///
    /// assert_eq!(PageRequest::before("AQ", 10).cursor(), Some((Direction::Before, "AQ")));
    /// assert_eq!(PageRequest::last(10).cursor(), None);
    /// ```
    pub fn cursor(&self) -> Option<(Direction, &str)> {
        match &self.position {
            RequestedPosition::After(token) => Some((Direction::After, token)),
            RequestedPosition::Before(token) => Some((Direction::Before, token)),
            _ => None,
        }
    }

    /// Whether the request asks for the last page (`?last=true`).
    ///
    /// ```
    /// # use keyset_runtime::PageRequest;
    /// assert!(PageRequest::last(10).is_last() && !PageRequest::first(10).is_last());
    /// ```
    pub fn is_last(&self) -> bool {
        self.position == RequestedPosition::Last
    }

    /// The page number, for a request built with [`page_number`](Self::page_number).
    ///
    /// ```
    /// # use keyset_runtime::PageRequest;
    /// assert_eq!(PageRequest::page_number(3, 10).number(), Some(3));
    /// assert_eq!(PageRequest::first(10).number(), None);
    /// ```
    pub fn number(&self) -> Option<u32> {
        match self.position {
            RequestedPosition::Number(number) => Some(number),
            _ => None,
        }
    }

    /// The page size served for this request: the requested one (or
    /// [`DEFAULT_LIMIT`](Self::DEFAULT_LIMIT)) clamped to `max_limit` (at least 1). A zero limit
    /// is refused, as `paginate` refuses it.
    ///
    /// ```
    /// # use keyset_runtime::{PageRequest, RequestError};
    /// assert_eq!(PageRequest::first(500).served_limit(100), Ok(100));
    /// assert_eq!(PageRequest::default().served_limit(100), Ok(PageRequest::DEFAULT_LIMIT));
    /// assert_eq!(PageRequest::first(0).served_limit(100), Err(RequestError::ZeroLimit));
    /// ```
    pub fn served_limit(&self, max_limit: u32) -> Result<u32, RequestError> {
        Ok(Limit::new(self.limit)?.at_most(max_limit).served())
    }
}

/// How many rows a page serves: the count asked for (or [`PageRequest::DEFAULT_LIMIT`]), at most
/// the listing's largest page (at least 1). Every front door (a [`PageRequest`], the Relay
/// arguments) builds one, and the page reads [`served`](Self::served) once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limit {
    requested: Option<u32>,
    max: u32,
}

impl Limit {
    /// The limit a request asks for, under the default largest page: a requested zero is refused
    /// here, the one place it is.
    pub(crate) fn new(requested: Option<u32>) -> Result<Self, RequestError> {
        match requested {
            Some(0) => Err(RequestError::ZeroLimit),
            requested => Ok(Limit { requested, max: PageRequest::DEFAULT_MAX_LIMIT }),
        }
    }

    /// The limit of a page that asked for `requested` rows, where zero asks only whether rows
    /// lie that way (Relay's `first: 0`): one row is fetched for it.
    #[cfg_attr(not(feature = "async-graphql"), allow(dead_code))]
    pub(crate) fn at_least_one(requested: Option<u32>) -> Self {
        let requested = requested.map(|requested| requested.max(1));
        Limit { requested, max: PageRequest::DEFAULT_MAX_LIMIT }
    }

    /// The same limit, under the largest page `max` (at least 1).
    pub(crate) fn at_most(self, max: u32) -> Self {
        Limit { max: max.max(1), ..self }
    }

    /// The page size served.
    pub(crate) fn served(self) -> u32 {
        self.requested.unwrap_or(PageRequest::DEFAULT_LIMIT).min(self.max)
    }
}

impl Default for PageRequest {
    /// The first page of [`DEFAULT_LIMIT`](Self::DEFAULT_LIMIT) rows.
    fn default() -> Self {
        PageRequest { position: RequestedPosition::First, limit: None, scope: None, count: None }
    }
}
