//! How a [`Paginated`] query is built and tuned: its page request resolved (the position decoded
//! in its order, the limit, the token codec), and the count the request asked for under the
//! listing's rules for counts. The type itself is declared beside [`Paginate`], which names it.

use crate::count::Counting;
use crate::error::Error;
use crate::orders::list::{decode_chosen, OrderSet};
use crate::paginate::{Paginate, Paginated};
use crate::position::Reading;
use crate::request::Starts;
use crate::request::{Limit, PageRequest, RequestError, RequestedPosition};
use crate::token::codec::Codec;

impl<Q: Paginate, O: OrderSet> Paginated<Q, O> {
    /// The page `request` asks for in the order at `index` of `O`'s list, its token read with
    /// `codec`, in the request's scope, only in the direction it was issued for.
    pub(crate) fn requested(
        query: Q,
        index: usize,
        request: &PageRequest,
        codec: Codec,
    ) -> Result<Self, Error> {
        let (position, limit) = (request.position(), Limit::new(request.limit()));
        let codec = codec.scoped(request.scope());
        let counting = Counting { asked: request.requested_count(), ..Counting::default() };
        Paginated::resolve(query, index, (position, Reading::Exact), limit, (codec, counting))
    }

    /// The page at `position` (read as `reading` says) in the order at `index` of `O`'s list, of
    /// `limit` rows: the one place a request, REST or Relay, is resolved. Fails, before any
    /// query, when the token is not one of that order's or the page number is zero, then when
    /// the limit is refused.
    pub(crate) fn resolve(
        query: Q,
        index: usize,
        (position, reading): (&RequestedPosition, Reading),
        limit: Result<Limit, RequestError>,
        (codec, counting): (Codec, Counting),
    ) -> Result<Self, Error> {
        let chosen = decode_chosen::<O::List>(index, &codec, position, reading)?;
        let asked = matches!(position, RequestedPosition::Start { .. });
        let starts = Starts { asked, signed: codec.protected(), ..Starts::default() };
        Ok(Paginated { query, chosen, limit: limit?, codec, counting, starts })
    }

    /// Serves at most `max_limit` rows per page (default
    /// [`PageRequest::DEFAULT_MAX_LIMIT`]); larger requests are clamped, not refused.
    ///
    /// ```
    /// # use diesel::prelude::*;
    /// # use keyset_runtime::{Keyset, PageRequest, Paginate};
    /// # diesel::table! { posts (id) { id -> BigInt } }
    /// # #[derive(Queryable, Selectable, Keyset)]
    /// # struct Post { #[sort(asc)] #[tiebreaker] id: i64 }
    /// # let mut conn = SqliteConnection::establish(":memory:").unwrap();
    /// # diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY)").execute(&mut conn).unwrap();
    /// # diesel::sql_query("INSERT INTO posts VALUES (1), (2), (3)").execute(&mut conn).unwrap();
    /// let page = posts::table
    ///     .select(Post::as_select())
    ///     .paginate(&PageRequest::first(1_000))? // asks for more than this listing serves
    ///     .max_limit(2)
    ///     .load_page(&mut conn)?;
    /// assert_eq!(page.items.len(), 2);
    /// assert!(page.has_next());
    /// # Ok::<(), keyset_runtime::Error>(())
    /// ```
    pub fn max_limit(mut self, max_limit: u32) -> Self {
        self.limit = self.limit.at_most(max_limit);
        self
    }

    /// Caps a bounded count at `cap` rows (default [`Count::DEFAULT_CAP`](crate::Count::DEFAULT_CAP)): it reads at most
    /// `cap + 1` of the listing's rows, and reports "at least `cap`" past it. Also the cap of an
    /// estimated count on SQLite, which is a bounded one, and wherever a plan gives no
    /// estimate.
    ///
    /// ```
    /// # use diesel::prelude::*;
    /// use keyset_runtime::{Count, Keyset, PageRequest, Paginate, TotalCount, TotalKind};
    /// # diesel::table! { posts (id) { id -> BigInt } }
    /// # #[derive(Queryable, Selectable, Keyset)]
    /// # struct Post { #[sort(asc)] #[tiebreaker] id: i64 }
    /// # let mut conn = SqliteConnection::establish(":memory:").unwrap();
    /// # diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY)").execute(&mut conn).unwrap();
    /// # diesel::sql_query("INSERT INTO posts VALUES (1), (2), (3)").execute(&mut conn).unwrap();
    /// let request = PageRequest::first(2).count(Count::Bounded);
    /// let mut page = |cap| posts::table.select(Post::as_select()).paginate(&request)?.count_cap(cap).load_page(&mut conn);
    /// assert_eq!(page(3)?.total, Some(TotalCount { kind: TotalKind::Exact, count: 3, page: None, pages: None }));
    /// assert_eq!(page(2)?.total, Some(TotalCount { kind: TotalKind::AtLeast, count: 2, page: None, pages: None }));
    /// # Ok::<(), keyset_runtime::Error>(())
    /// ```
    pub fn count_cap(mut self, cap: u32) -> Self {
        self.counting.cap = cap;
        self
    }

    /// Serves exact counts ([`Count::Exact`](crate::Count::Exact)), which are otherwise refused
    /// ([`RequestError::CountRefused`], 400): an exact count reads every row the listing
    /// matches on every request that asks, so a listing allows it where its rows are few, or
    /// where only trusted callers reach it.
    ///
    /// ```
    /// # use diesel::prelude::*;
    /// use keyset_runtime::{Count, Error, Keyset, PageRequest, Paginate, RequestError, TotalKind};
    /// # diesel::table! { posts (id) { id -> BigInt } }
    /// # #[derive(Queryable, Selectable, Keyset, Debug)]
    /// # struct Post { #[sort(asc)] #[tiebreaker] id: i64 }
    /// # let mut conn = SqliteConnection::establish(":memory:").unwrap();
    /// # diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY)").execute(&mut conn).unwrap();
    /// # diesel::sql_query("INSERT INTO posts VALUES (1), (2), (3)").execute(&mut conn).unwrap();
    /// let request = PageRequest::first(2).count(Count::Exact);
    /// let query = || posts::table.select(Post::as_select());
    /// let refused = query().paginate(&request)?.load_page(&mut conn).unwrap_err();
    /// assert!(matches!(refused, Error::Request(RequestError::CountRefused { count: Count::Exact })));
    /// assert!(refused.is_client_error());
    ///
    /// let page = query().paginate(&request)?.allow_exact_count().load_page(&mut conn)?;
    /// assert_eq!(page.total.map(|total| (total.kind, total.count)), Some((TotalKind::Exact, 3)));
    /// # Ok::<(), keyset_runtime::Error>(())
    /// ```
    pub fn allow_exact_count(mut self) -> Self {
        self.counting.exact = true;
        self
    }
}
