//! Loading a page: [`Paginate::paginate`] turns a query and a [`PageRequest`] into a
//! [`Paginated`] query, and [`Paginated::load_page`] runs it and returns a [`Page`].
//!
//! One page is one query: the keyset filter is ANDed with the query's own filters, the ORDER BY
//! replaces the query's, and one row more than the page is fetched to learn whether another page
//! follows (that row is never returned). On SQLite a page after a cursor may take one query per
//! sort key instead, each an exact index seek (one per tie level).
//! Pages before a cursor are fetched in the reverse order and turned around in memory, so callers
//! always get rows in the model's order.

use diesel::dsl::{CountStar, Select};
use diesel::query_builder::Query;
use diesel::query_dsl::methods::SelectDsl;
use diesel::query_dsl::LoadQuery;
use diesel::RunQueryDsl;
use serde::Serialize;

use crate::order::{Orders, SortDirection};
use crate::ordered::PaginatedBy;
use crate::position::{decode, Position, Reading};
use crate::request::PageRequest;
use crate::selection::SelectsModel;
use crate::token::Codec;
use crate::{Error, Keyset};

/// One page of rows, in the model's order, with the tokens that lead to its neighbours.
///
/// Serializes as `{"items": [..], "next_cursor": .., "prev_cursor": ..}`, with `null` (never `""`)
/// for a page that does not exist:
///
/// ```
/// use keyset_runtime::Page;
///
/// let page = Page { items: vec![3, 2], next_cursor: Some("AQ".to_owned()), prev_cursor: None };
/// assert_eq!(
///     serde_json::to_string(&page).unwrap(),
///     r#"{"items":[3,2],"next_cursor":"AQ","prev_cursor":null}"#,
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Page<T> {
    /// The rows, in the model's order, at most the limit.
    pub items: Vec<T>,
    /// The token for [`PageRequest::after`]: `None` when this is the last page.
    pub next_cursor: Option<String>,
    /// The token for [`PageRequest::before`]: `None` when this is the first page.
    pub prev_cursor: Option<String>,
}

impl<T> Page<T> {
    /// Whether a page follows this one.
    ///
    /// ```
    /// # use keyset_runtime::Page;
    /// let last = Page { items: vec![1], next_cursor: None, prev_cursor: Some("AQ".to_owned()) };
    /// assert!(!last.has_next() && last.has_prev());
    /// ```
    pub fn has_next(&self) -> bool {
        self.next_cursor.is_some()
    }

    /// Whether a page precedes this one. For a page reached with `after`, this is true without
    /// a query: the row the cursor came from preceded it (even if it has since been deleted).
    ///
    /// ```
    /// # use keyset_runtime::Page;
    /// let first = Page { items: vec![1], next_cursor: Some("AQ".to_owned()), prev_cursor: None };
    /// assert!(first.has_next() && !first.has_prev());
    /// ```
    pub fn has_prev(&self) -> bool {
        self.prev_cursor.is_some()
    }

    /// The same page with every item converted, e.g. into a response type.
    ///
    /// ```
    /// # use keyset_runtime::Page;
    /// let page = Page { items: vec![1, 2], next_cursor: Some("AQ".to_owned()), prev_cursor: None };
    /// let page = page.map(|id| format!("post {id}"));
    /// assert_eq!(page.items, ["post 1", "post 2"]);
    /// assert_eq!(page.next_cursor.as_deref(), Some("AQ"));
    /// ```
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U> {
        Page {
            items: self.items.into_iter().map(f).collect(),
            next_cursor: self.next_cursor,
            prev_cursor: self.prev_cursor,
        }
    }
}

/// Adds keyset pagination to any Diesel query that selects a model with `Model::as_select()`:
/// plain, filtered, joined or boxed. [`paginate`](Self::paginate) pages in the order the model's
/// field attributes declare; [`paginate_by`](Self::paginate_by) in one of its named orders, chosen
/// at run time.
pub trait Paginate: Sized {
    /// The model the query selects, whose sort order pages it.
    type Model: Keyset;
    /// What a page holds: the model, or, for a query selecting a tuple led by the model
    /// (`(Post::as_select(), Author::as_select())`), the tuple (`(Post, Author)`).
    type Item;

    /// Whether the query selects the model alone, not a tuple led by it.
    #[doc(hidden)]
    const MODEL_ALONE: bool = false;

    /// The model within a row of the page, whose cursor the page's tokens carry.
    #[doc(hidden)]
    fn model(item: &Self::Item) -> &Self::Model;

    /// Prepares the page `request` asks for, in the model's order (for a model with only named
    /// orders, the first of them, as declared). Fails, before any query, when
    /// the request's token is malformed, foreign to this model's sort order, or used in the wrong
    /// direction, or when its limit (or [page number](PageRequest::page_number)) is zero.
    ///
    /// The page sets the query's LIMIT (and a page number's OFFSET): a query with a `.limit()` or
    /// `.offset()` of its own does not compile with `load_page`; a boxed one, whose clauses
    /// Diesel's types do not show, fails its page at the database (a server error, not the
    /// client's).
    ///
    /// ```
    /// # use diesel::prelude::*;
    /// # use keyset_runtime::{Keyset, PageRequest, Paginate};
    /// # diesel::table! { posts (id) { id -> BigInt } }
    /// # #[derive(Queryable, Selectable, Keyset)]
    /// # struct Post { #[sort(desc)] #[tiebreaker] id: i64 }
    /// // No connection in sight to infer the backend from, so the query's type names it.
    /// type Query = diesel::dsl::Select<posts::table, diesel::dsl::AsSelect<Post, diesel::sqlite::Sqlite>>;
    /// let query = || -> Query { posts::table.select(Post::as_select()) };
    /// assert!(query().paginate(&PageRequest::first(20)).is_ok());
    ///
    /// // A token the server did not issue is refused before any query runs: answer 400.
    /// let refused = query().paginate(&PageRequest::after("forged", 20)).err().unwrap();
    /// assert!(refused.is_client_error());
    /// ```
    fn paginate(self, request: &PageRequest) -> Result<Paginated<Self>, Error>;

    /// Like [`paginate`](Self::paginate), with signed tokens: the request's token must carry a
    /// valid signature under one of `keys`, and the page's tokens are signed with the current
    /// key. See [`TokenKeys`](crate::TokenKeys).
    #[cfg(feature = "signed")]
    fn paginate_signed(
        self,
        request: &PageRequest,
        keys: &crate::token::TokenKeys,
    ) -> Result<Paginated<Self>, Error>;

    /// Prepares the page `request` asks for, in the named order `order` of the model
    /// (`#[keyset(order(..))]`, see [`Orders`]) in direction `dir`: the direction of the order's
    /// first key, the other one reversing every key; `None` for the order as declared. Whatever
    /// the order, the page is a `Page<Model>`: one handler serves every order. A token is bound
    /// to its order and direction: one sent with another is refused before any query
    /// ([`CursorError::OtherOrder`](crate::CursorError::OtherOrder), 400), as is a malformed one.
    ///
    /// ```
    /// # use diesel::prelude::*;
    /// use keyset_runtime::{Keyset, PageRequest, Paginate, SortDirection};
    /// # diesel::table! { posts (id) { id -> BigInt, score -> Integer } }
    ///
    /// #[derive(Queryable, Selectable, Keyset)]
    /// #[keyset(order(new: id desc), order(top: score desc, id desc))]
    /// struct Post {
    ///     #[tiebreaker]
    ///     id: i64,
    ///     score: i32,
    /// }
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mut conn = SqliteConnection::establish(":memory:")?;
    /// diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY, score INTEGER NOT NULL)").execute(&mut conn)?;
    /// diesel::sql_query("INSERT INTO posts VALUES (1, 5), (2, 9), (3, 7)").execute(&mut conn)?;
    ///
    /// // `?sort=top&dir=asc`, as a handler reads it.
    /// let (sort, dir): (PostOrder, Option<SortDirection>) = ("top".parse()?, Some("asc".parse()?));
    /// let query = || posts::table.select(Post::as_select());
    /// let page = query().paginate_by(sort, dir, &PageRequest::first(2))?.load_page(&mut conn)?;
    /// assert_eq!(page.items.iter().map(|post| post.id).collect::<Vec<_>>(), [1, 3]);
    ///
    /// // Its token pages on in `top asc`, and only there.
    /// let after = PageRequest::after(page.next_cursor.unwrap(), 2);
    /// let next = query().paginate_by(PostOrder::Top, Some(SortDirection::Asc), &after)?.load_page(&mut conn)?;
    /// assert_eq!(next.items.iter().map(|post| post.id).collect::<Vec<_>>(), [2]);
    /// let refused = query().paginate_by(PostOrder::New, None, &after).err().unwrap();
    /// assert!(refused.is_client_error());
    /// assert!(refused.to_string().contains("`top asc`, not `new desc`"), "{refused}");
    /// # Ok(())
    /// # }
    /// ```
    fn paginate_by<O: Orders<Row = Self::Model>>(
        self,
        order: O,
        dir: Option<SortDirection>,
        request: &PageRequest,
    ) -> Result<PaginatedBy<Self, O>, Error>;

    /// Like [`paginate_by`](Self::paginate_by), with signed tokens (see
    /// [`paginate_signed`](Self::paginate_signed)).
    #[cfg(feature = "signed")]
    fn paginate_by_signed<O: Orders<Row = Self::Model>>(
        self,
        order: O,
        dir: Option<SortDirection>,
        request: &PageRequest,
        keys: &crate::token::TokenKeys,
    ) -> Result<PaginatedBy<Self, O>, Error>;
}

impl<Q> Paginate for Q
where
    Q: Query,
    Q::SqlType: SelectsModel,
    <Q::SqlType as SelectsModel>::Model: Keyset,
{
    type Model = <Q::SqlType as SelectsModel>::Model;
    type Item = <Q::SqlType as SelectsModel>::Item;
    const MODEL_ALONE: bool = <Q::SqlType as SelectsModel>::ALONE;

    fn model(item: &Self::Item) -> &Self::Model {
        <Q::SqlType as SelectsModel>::model(item)
    }

    fn paginate(self, request: &PageRequest) -> Result<Paginated<Self>, Error> {
        paginate_with(self, request, Codec::default())
    }

    #[cfg(feature = "signed")]
    fn paginate_signed(
        self,
        request: &PageRequest,
        keys: &crate::token::TokenKeys,
    ) -> Result<Paginated<Self>, Error> {
        paginate_with(self, request, Codec::signed(keys))
    }

    fn paginate_by<O: Orders<Row = Self::Model>>(
        self,
        order: O,
        dir: Option<SortDirection>,
        request: &PageRequest,
    ) -> Result<PaginatedBy<Self, O>, Error> {
        PaginatedBy::new(self, order, dir, request, Codec::default())
    }

    #[cfg(feature = "signed")]
    fn paginate_by_signed<O: Orders<Row = Self::Model>>(
        self,
        order: O,
        dir: Option<SortDirection>,
        request: &PageRequest,
        keys: &crate::token::TokenKeys,
    ) -> Result<PaginatedBy<Self, O>, Error> {
        PaginatedBy::new(self, order, dir, request, Codec::signed(keys))
    }
}

fn paginate_with<Q: Paginate>(
    query: Q,
    request: &PageRequest,
    codec: Codec,
) -> Result<Paginated<Q>, Error> {
    let position = decode::<Q::Model>(&codec, request.position(), Reading::Exact)?;
    request.served_limit(PageRequest::DEFAULT_MAX_LIMIT)?;
    Ok(Paginated {
        query,
        position,
        limit: request.limit(),
        max_limit: PageRequest::DEFAULT_MAX_LIMIT,
        codec,
    })
}

/// A query ready to load one page. Built by [`Paginate::paginate`].
#[must_use = "a paginated query does nothing until `load_page` runs it"]
pub struct Paginated<Q: Paginate> {
    pub(crate) query: Q,
    pub(crate) position: Position<<Q::Model as Keyset>::Cursor>,
    /// The page size asked for (`None`: the default), served clamped to `max_limit`.
    pub(crate) limit: Option<u32>,
    pub(crate) max_limit: u32,
    pub(crate) codec: Codec,
}

impl<Q: Paginate> Paginated<Q> {
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
        self.max_limit = max_limit.max(1);
        self
    }
}

impl<Q: Paginate> Paginated<Q> {
    /// The page of `limit` rows at a position already decoded, read with `codec`: for callers
    /// that read cursors themselves (the Relay layer reads a token as a row, either way).
    #[cfg_attr(not(feature = "async-graphql"), allow(dead_code))]
    pub(crate) fn from_position(
        query: Q,
        position: Position<<Q::Model as Keyset>::Cursor>,
        limit: u32,
        codec: Codec,
    ) -> Self {
        Paginated {
            query,
            position,
            limit: Some(limit),
            max_limit: PageRequest::DEFAULT_MAX_LIMIT,
            codec,
        }
    }
}

impl<Q: Paginate + Clone> Paginated<Q> {
    /// The number of rows the whole query matches, whatever the page: `SELECT COUNT(*)` with the
    /// query's own filters, and no cursor or limit.
    ///
    /// **The expensive path.** A count reads every matching row (or index entry) on every call,
    /// O(rows) where a keyset page is O(page): at a million rows it costs what OFFSET to the last
    /// page costs. Keyset needs no total to page (`next_cursor` says whether more follows); ask
    /// for one only where a grid must show "page 3 of 120", and consider caching it.
    ///
    /// ```
    /// # use diesel::prelude::*;
    /// # use keyset_runtime::{Keyset, PageRequest, Paginate};
    /// # diesel::table! { posts (id) { id -> BigInt, author_id -> BigInt } }
    /// # #[derive(Queryable, Selectable, Keyset)]
    /// # struct Post { #[sort(asc)] #[tiebreaker] id: i64, author_id: i64 }
    /// # let mut conn = SqliteConnection::establish(":memory:").unwrap();
    /// # diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY, author_id BIGINT NOT NULL)").execute(&mut conn).unwrap();
    /// # diesel::sql_query("INSERT INTO posts VALUES (1, 7), (2, 7), (3, 8), (4, 7)").execute(&mut conn).unwrap();
    /// let paginated = posts::table
    ///     .filter(posts::author_id.eq(7))
    ///     .select(Post::as_select())
    ///     .paginate(&PageRequest::first(2))?;
    /// assert_eq!(paginated.total_count(&mut conn)?, 3); // of author 7, not of the page
    /// assert_eq!(paginated.load_page(&mut conn)?.items.len(), 2);
    ///
    /// // A count alone: the connection says which backend `as_select()` is for.
    /// let all = posts::table.select(Post::as_select()).paginate(&PageRequest::first(2))?.total_count(&mut conn)?;
    /// assert_eq!(all, 4);
    /// # Ok::<(), keyset_runtime::Error>(())
    /// ```
    pub fn total_count<'query, Conn>(&self, conn: &mut Conn) -> Result<i64, Error>
    where
        Q: Query + SelectDsl<CountStar>,
        Q::SqlType: SelectsModel,
        Conn: diesel::Connection<Backend = <Q::SqlType as SelectsModel>::Backend>,
        Select<Q, CountStar>: LoadQuery<'query, Conn, i64>,
    {
        Ok(SelectDsl::select(self.query.clone(), diesel::dsl::count_star()).get_result(conn)?)
    }
}
