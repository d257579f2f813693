//! Pages that start at values, not at a row: "posts from 1 March", "names from M". A client
//! names the values as text (`?from=2024-03-01`, [`PageRequest::starting_at`]), which each key's
//! type reads; the server names the leading key's value typed ([`Paginated::start_at`]).
//!
//! A start is a position like a token's, with two differences the SQL layer renders (see
//! `sql/level.rs`): it compares only the keys it has values for, and it may keep the rows equal
//! to them. Its cursor is the order's own, the keys it has no value for holding placeholders
//! that no statement compares: the bytes of the values given, then zero bytes, read as the
//! order's cursor, so that every order's generated cursor serves as it is.
//!
//! [`PageRequest::starting_at`]: crate::PageRequest::starting_at

use crate::error::Error;
use crate::model::Keyset;
use crate::orders::list::{Either, OrderList, OrderSet, RowIds};
use crate::paginate::{Paginate, Paginated};
use crate::position::{padded, Position};
use crate::sql::{CursorKeys, Stop};
use crate::token::{CursorValue, Writer};

impl<Q: Paginate, O: OrderSet> Paginated<Q, O> {
    /// Serves requests that start at values the client names
    /// ([`PageRequest::starting_at`](crate::PageRequest::starting_at), `?from=`), otherwise
    /// refused ([`RequestError::StartRefused`](crate::RequestError::StartRefused), 400). A start lets a client choose a position
    /// that no row's token holds: harmless where every position is one the client may see, so
    /// a listing opts in. Listings whose tokens are signed refuse starts even so, since their
    /// positions are meant to come from the server.
    ///
    /// ```
    /// # use diesel::prelude::*;
    /// # use keyset_runtime::{Keyset, PageRequest, Paginate};
    /// # diesel::table! { posts (id) { id -> BigInt } }
    /// # #[derive(Queryable, Selectable, Keyset)]
    /// # struct Post { #[sort(asc)] #[tiebreaker] id: i64 }
    /// # let mut conn = SqliteConnection::establish(":memory:").unwrap();
    /// # diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY)").execute(&mut conn).unwrap();
    /// # diesel::sql_query("INSERT INTO posts VALUES (1), (2), (3), (4)").execute(&mut conn).unwrap();
    /// let request = PageRequest::starting_at(["3"], 10);
    /// let page = posts::table.select(Post::as_select()).paginate(&request)?.allow_starts().load_page(&mut conn)?;
    /// assert_eq!(page.items.iter().map(|post| post.id).collect::<Vec<_>>(), [3, 4]);
    /// assert!(page.has_prev()); // rows 1 and 2, by its token
    /// # Ok::<(), keyset_runtime::Error>(())
    /// ```
    pub fn allow_starts(mut self) -> Self {
        self.starts.allowed = true;
        self
    }
}

impl<Q: Paginate, O: OrderSet<Row = Q::Model>> Paginated<Q, O> {
    /// Opens the listing at `row`: the page starts with it, in the order chosen, with tokens
    /// both ways (a deep link to a post opens its listing there). Where the request asks for the
    /// first page only: a request with a position of its own (a token, the last page, a page
    /// number) keeps it, so that the page's links, which carry the handler's parameters beside
    /// a token, page on. The handler loads the row first, by its primary key, with the
    /// listing's selection: one statement beside the page's.
    ///
    /// A row the listing does not hold (its filters leave it out, or it was deleted since) fails
    /// the page with [`RequestError::RowNotListed`](crate::RequestError::RowNotListed) (`404` over HTTP), not a page that starts
    /// elsewhere.
    ///
    /// ```
    /// # use diesel::prelude::*;
    /// use keyset_runtime::{Error, Keyset, PageRequest, Paginate, RequestError};
    /// # diesel::table! { posts (id) { id -> BigInt, author_id -> BigInt } }
    /// # #[derive(Queryable, Selectable, Keyset)]
    /// # struct Post { #[sort(desc)] #[tiebreaker] id: i64, author_id: i64 }
    /// # let mut conn = SqliteConnection::establish(":memory:").unwrap();
    /// # diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY, author_id BIGINT NOT NULL)").execute(&mut conn).unwrap();
    /// # diesel::sql_query("INSERT INTO posts VALUES (1, 7), (2, 8), (3, 7), (4, 7), (5, 7)").execute(&mut conn).unwrap();
    /// // GET /authors/7/posts?around=3
    /// let row: Post = posts::table.find(3).select(Post::as_select()).first(&mut conn)?;
    /// let listing = || posts::table.filter(posts::author_id.eq(7)).select(Post::as_select());
    /// let page = listing().paginate(&PageRequest::first(2))?.at_row(&row).load_page(&mut conn)?;
    /// assert_eq!(page.items.iter().map(|post| post.id).collect::<Vec<_>>(), [3, 1]);
    /// let before = listing().paginate(&PageRequest::before(page.prev_cursor.unwrap(), 2))?.load_page(&mut conn)?;
    /// assert_eq!(before.items.iter().map(|post| post.id).collect::<Vec<_>>(), [5, 4]);
    ///
    /// // Post 2 is author 8's: not in this listing.
    /// let other: Post = posts::table.find(2).select(Post::as_select()).first(&mut conn)?;
    /// let refused = listing().paginate(&PageRequest::first(2))?.at_row(&other).load_page(&mut conn);
    /// assert!(matches!(refused, Err(Error::Request(RequestError::RowNotListed))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn at_row(mut self, row: &Q::Model) -> Self {
        if O::List::is_first(&self.chosen) {
            self.chosen = O::List::at_row(self.chosen, row);
        }
        self
    }
}

impl<Q: Paginate, O: OrderSet> Paginated<Q, O> {
    /// As [`at_row`](Self::at_row), for the row whose primary key is `id`, in one statement:
    /// what a handler of `?around=42` runs, without loading the row first. The page's
    /// statements read the row's other sort keys where they compare them, `created_at <=
    /// (SELECT created_at FROM posts WHERE id = ?)`, each one an index seek as a token's (the
    /// subquery a primary-key lookup that the engine runs once), so that the page costs what
    /// the page at a token costs, where `at_row` costs a round trip more.
    ///
    /// For orders of columns of the model's table that end in its one-column primary key (the
    /// `#[tiebreaker]`), `NOT NULL` but perhaps the leading one: in every named order, where the
    /// orders are named. Another order does not compile; [`at_row`](Self::at_row) serves it.
    /// With a nullable leading key, whose regions (its NULLs, its values) the row's id does not
    /// tell apart, the page's statements read both: on PostgreSQL as one union of their first
    /// statements, each guarded by the row's value, as many statements as a token's page;
    /// elsewhere the values' first, a row whose value is NULL costing one statement more (see
    /// the [navigation guide](crate::guide::navigation)). A row the listing
    /// does not hold, or none with that id, fails the page with
    /// [`RequestError::RowNotListed`](crate::RequestError::RowNotListed) (`404` over HTTP).
    /// A server error where a key's type of the user's own does not read zero bytes as a
    /// placeholder value (as for [starts](Self::allow_starts)), and on a sharded page (one shard
    /// holds the row, and the others would not find it), which `at_row` serves.
    ///
    /// ```
    /// # use diesel::prelude::*;
    /// use keyset_runtime::{Error, Keyset, PageRequest, Paginate, RequestError};
    /// # diesel::table! { posts (id) { id -> BigInt, author_id -> BigInt, day -> Integer } }
    /// #[derive(Queryable, Selectable, Keyset)]
    /// struct Post {
    ///     #[sort(desc)]
    ///     day: i32,
    ///     #[sort(desc)]
    ///     #[tiebreaker]
    ///     id: i64,
    ///     author_id: i64,
    /// }
    /// # let mut conn = SqliteConnection::establish(":memory:").unwrap();
    /// # diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY, author_id BIGINT NOT NULL, day INTEGER NOT NULL)").execute(&mut conn).unwrap();
    /// # diesel::sql_query("INSERT INTO posts VALUES (1, 7, 1), (2, 8, 2), (3, 7, 2), (4, 7, 3), (5, 7, 3)").execute(&mut conn).unwrap();
    /// // GET /authors/7/posts?around=3
    /// let listing = || posts::table.filter(posts::author_id.eq(7)).select(Post::as_select());
    /// let page = listing().paginate(&PageRequest::first(2))?.at_row_id(3)?.load_page(&mut conn)?;
    /// assert_eq!(page.items.iter().map(|post| post.id).collect::<Vec<_>>(), [3, 1]);
    /// let before = listing().paginate(&PageRequest::before(page.prev_cursor.unwrap(), 2))?;
    /// let before = before.load_page(&mut conn)?;
    /// assert_eq!(before.items.iter().map(|post| post.id).collect::<Vec<_>>(), [5, 4]);
    ///
    /// // Post 2 is author 8's, and there is no post 9: neither is in this listing.
    /// for id in [2, 9] {
    ///     let refused = listing().paginate(&PageRequest::first(2))?.at_row_id(id)?.load_page(&mut conn);
    ///     assert!(matches!(refused, Err(Error::Request(RequestError::RowNotListed))));
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn at_row_id(mut self, id: <O::List as RowIds>::Id) -> Result<Self, Error>
    where
        O::List: RowIds,
    {
        if O::List::is_first(&self.chosen) {
            let mut out = Writer::default();
            id.write(&mut out);
            self.chosen = O::List::at_row_id(self.chosen, &out.into_bytes())?;
        }
        Ok(self)
    }
}

impl<Q: Paginate> Paginated<Q>
where
    <Q::Model as Keyset>::Keys: CursorKeys<Leading: CursorValue>,
{
    /// Starts the page at `value` of the order's leading key, the rows equal to it included,
    /// where the request asks for the first page: the server's choice, typed (a value of
    /// another type does not compile), such as a date picker's date its handler read. A request
    /// with a position of its own (a token, the last page, a page number) keeps it, so that the
    /// page's links, which carry the handler's parameters beside a token, page on. For a
    /// nullable leading key the value is an `Option`: `None` starts at its NULLs.
    ///
    /// Fails only where a later key's type of the user's own does not read a placeholder (see
    /// [`PageRequest::starting_at`](crate::PageRequest::starting_at) for starts in general).
    ///
    /// ```
    /// # use diesel::prelude::*;
    /// # use keyset_runtime::{Keyset, PageRequest, Paginate};
    /// # diesel::table! { posts (id) { id -> BigInt, day -> Integer } }
    /// #[derive(Queryable, Selectable, Keyset)]
    /// struct Post {
    ///     #[sort(desc)]
    ///     day: i32,
    ///     #[sort(desc)]
    ///     #[tiebreaker]
    ///     id: i64,
    /// }
    /// # let mut conn = SqliteConnection::establish(":memory:").unwrap();
    /// # diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY, day INTEGER NOT NULL)").execute(&mut conn).unwrap();
    /// # diesel::sql_query("INSERT INTO posts VALUES (1, 1), (2, 2), (3, 2), (4, 3)").execute(&mut conn).unwrap();
    /// let query = || posts::table.select(Post::as_select());
    /// let page = query().paginate(&PageRequest::first(10))?.start_at(2)?.load_page(&mut conn)?;
    /// assert_eq!(page.items.iter().map(|post| post.id).collect::<Vec<_>>(), [3, 2, 1]);
    ///
    /// let page = query().paginate(&PageRequest::first(10))?.start_past(2)?.load_page(&mut conn)?;
    /// assert_eq!(page.items.iter().map(|post| post.id).collect::<Vec<_>>(), [1]);
    /// # Ok::<(), keyset_runtime::Error>(())
    /// ```
    pub fn start_at(
        self,
        value: <<Q::Model as Keyset>::Keys as CursorKeys>::Leading,
    ) -> Result<Self, Error> {
        self.start_typed(value, true)
    }

    /// As [`start_at`](Self::start_at), without the rows equal to `value`: the page starts
    /// strictly past it.
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
    /// let query = posts::table.select(Post::as_select());
    /// let page = query.paginate(&PageRequest::first(10))?.start_past(1)?.load_page(&mut conn)?;
    /// assert_eq!(page.items.iter().map(|post| post.id).collect::<Vec<_>>(), [2, 3]);
    /// # Ok::<(), keyset_runtime::Error>(())
    /// ```
    pub fn start_past(
        self,
        value: <<Q::Model as Keyset>::Keys as CursorKeys>::Leading,
    ) -> Result<Self, Error> {
        self.start_typed(value, false)
    }

    fn start_typed(
        mut self,
        value: <<Q::Model as Keyset>::Keys as CursorKeys>::Leading,
        inclusive: bool,
    ) -> Result<Self, Error> {
        if <Q::Model as OrderSet>::List::is_first(&self.chosen) {
            let mut out = Writer::default();
            value.write(&mut out);
            let cursor = padded::<Q::Model>(out)?;
            let stop = Stop { depth: 1, inclusive };
            self.chosen = Either::Here(Position::Start(cursor, stop));
        }
        Ok(self)
    }
}
