//! The front door: [`Paginate::paginate`] and [`Paginate::paginate_by`] turn a query and a
//! [`PageRequest`] into a [`Paginated`] query, resolved once (the position decoded in its order,
//! the limit, the token codec), which `load_page` (`run/`) then loads into a [`Page`](crate::Page).
//!
//! One page is one query: the keyset filter is ANDed with the query's own filters, the ORDER BY
//! replaces the query's, and one row more than the page is fetched to learn whether another page
//! follows (that row is never returned). Pages before a cursor are fetched in the reverse order
//! and turned around in memory, so callers always get rows in the model's order.

use diesel::expression::{AsExpression, TypedExpressionType};
use diesel::query_builder::Query;
use diesel::sql_types::SqlType;
use diesel::Column;

use crate::among::{Among, AmongQuery, Prefix, SetType};
use crate::count::Counting;
use crate::error::Error;
use crate::model::Keyset;
use crate::orders::list::{OrderList, OrderSet};
use crate::orders::named::{list_index, OrdersOf, SortDirection};
use crate::request::{Limit, PageRequest, Starts};
use crate::selection::SelectsModel;
use crate::token::codec::Codec;
#[cfg(feature = "signed")]
use crate::token::keys::TokenKeys;
use crate::token::CursorValue;

/// Adds keyset pagination to any Diesel query that selects a model with `Model::as_select()`:
/// plain, filtered, joined or boxed. [`paginate`](Self::paginate) pages in the order the model's
/// field attributes declare; [`paginate_by`](Self::paginate_by) in one of its named orders, chosen
/// at run time.
pub trait Paginate: Sized {
    /// The model the query selects, whose sort order pages it.
    type Model: Keyset;
    /// What a page holds: the model, or, for a query selecting a tuple led by the model
    /// (`(Post::as_select(), Author::as_select())`), the tuple (`(Post, Author)`).
    type Item: 'static;

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

    /// Like [`paginate`](Self::paginate), with tokens protected by `keys`: signed
    /// ([`TokenKeys::new`](crate::TokenKeys::new)), which stops forgery and edits but not
    /// reading, or encrypted ([`TokenKeys::encrypting`](crate::TokenKeys), feature
    /// `encrypted`), which stops reading too. The request's token must verify under one of
    /// `keys`, and the page's tokens are issued with the current key.
    ///
    /// ```
    /// # use diesel::prelude::*;
    /// # use keyset_runtime::{Keyset, PageRequest, Paginate, TokenKeys};
    /// # diesel::table! { posts (id) { id -> BigInt } }
    /// # #[derive(Queryable, Selectable, Keyset)]
    /// # struct Post { #[sort(asc)] #[tiebreaker] id: i64 }
    /// # let mut conn = SqliteConnection::establish(":memory:").unwrap();
    /// # diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY)").execute(&mut conn).unwrap();
    /// # diesel::sql_query("INSERT INTO posts VALUES (1), (2), (3)").execute(&mut conn).unwrap();
    /// # let key: [u8; 32] = std::array::from_fn(|i| i as u8 * 7);
    /// let keys = TokenKeys::new(key)?; // once, at startup, from the server's secrets
    /// let query = || posts::table.select(Post::as_select());
    /// let first = query().paginate_signed(&PageRequest::first(2), &keys)?.load_page(&mut conn)?;
    /// let after = PageRequest::after(first.next_cursor.unwrap(), 2);
    /// let next = query().paginate_signed(&after, &keys)?.load_page(&mut conn)?;
    /// assert_eq!(next.items.iter().map(|post| post.id).collect::<Vec<_>>(), [3]);
    ///
    /// // Where tokens are not signed, a signed one is refused (and the other way round).
    /// assert!(query().paginate(&after).err().unwrap().is_client_error());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "signed")]
    fn paginate_signed(
        self,
        request: &PageRequest,
        keys: &TokenKeys,
    ) -> Result<Paginated<Self>, Error>;

    /// Prepares the page `request` asks for, in the named order `order` of the model
    /// (`#[keyset(order(..))]`, see [`Orders`](crate::Orders)) in direction `dir`: the direction of the order's
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
    fn paginate_by<O: OrdersOf<Self::Model>>(
        self,
        order: O,
        dir: Option<SortDirection>,
        request: &PageRequest,
    ) -> Result<Paginated<Self, O::Set>, Error>;

    /// Like [`paginate_by`](Self::paginate_by), with tokens signed or encrypted by `keys` (see
    /// [`paginate_signed`](Self::paginate_signed)).
    #[cfg(feature = "signed")]
    fn paginate_by_signed<O: OrdersOf<Self::Model>>(
        self,
        order: O,
        dir: Option<SortDirection>,
        request: &PageRequest,
        keys: &TokenKeys,
    ) -> Result<Paginated<Self, O::Set>, Error>;

    /// This query among the rows whose `column` is one of `values`: the rows of
    /// `.filter(column.eq_any(values))`, paged in the same orders with the same tokens, at a
    /// cost bounded by the set and the page rather than by the data. A feed: the posts of the
    /// authors a user follows, the issues of a group's projects. It is a query like any other:
    /// [`paginate`](Self::paginate) pages it, [`relay`](crate::relay) loads it as a connection.
    ///
    /// The model declares the index such a page seeks, `#[keyset(prefix(column))]`, and its
    /// migration writes it: `(author_id, created_at DESC, id DESC)`. Each page then seeks it
    /// once per value, each seek at most one page long, and merges what they found (on
    /// PostgreSQL, a `LATERAL` join over the values as one array; on SQLite and MariaDB, a
    /// union of one branch per value: see [the feeds guide](crate::guide::feeds)). A query that
    /// cannot run such a statement (one that selects a tuple, or a boxed one) pages among the
    /// values with `IN (..)`, the same rows at the cost of the plain filter.
    ///
    /// A token is a position in the order, not in the set: it stays valid when the set changes
    /// (a user who follows one more author keeps scrolling), and pages the listing without a
    /// set too. An empty set is an empty page. More values than
    /// [`max_set`](crate::Among::max_set) (default [`PageRequest::DEFAULT_MAX_SET`]), or a value
    /// the database cannot bind, fail the page before any query with
    /// [`RequestError::SetTooLarge`](crate::RequestError::SetTooLarge) or [`RequestError::SetValue`](crate::RequestError::SetValue), the client's errors (400).
    ///
    /// ```
    /// # use diesel::prelude::*;
    /// # use keyset_runtime::{Keyset, PageRequest, Paginate};
    /// diesel::table! {
    ///     posts (id) {
    ///         id -> BigInt,
    ///         author_id -> BigInt,
    ///         created_at -> BigInt,
    ///     }
    /// }
    ///
    /// #[derive(Queryable, Selectable, Keyset)]
    /// #[keyset(prefix(author_id))] // the index a feed seeks: (author_id, created_at DESC, id DESC)
    /// struct Post {
    ///     #[sort(desc)]
    ///     created_at: i64,
    ///     #[sort(desc)]
    ///     #[tiebreaker]
    ///     id: i64,
    ///     author_id: i64,
    /// }
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let mut conn = SqliteConnection::establish(":memory:")?;
    /// # diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY, author_id BIGINT NOT NULL, created_at BIGINT NOT NULL)").execute(&mut conn)?;
    /// # diesel::sql_query("INSERT INTO posts VALUES (1, 7, 10), (2, 8, 20), (3, 9, 30), (4, 7, 40)").execute(&mut conn)?;
    /// let followed = vec![7, 9];
    /// let feed = || posts::table.select(Post::as_select()).among(posts::author_id, followed.clone());
    /// let first = feed().paginate(&PageRequest::first(2))?.load_page(&mut conn)?;
    /// assert_eq!(first.items.iter().map(|post| post.id).collect::<Vec<_>>(), [4, 3]);
    /// let after = PageRequest::after(first.next_cursor.unwrap(), 2);
    /// let next = feed().paginate(&after)?.load_page(&mut conn)?;
    /// assert_eq!(next.items.iter().map(|post| post.id).collect::<Vec<_>>(), [1]);
    /// assert!(!next.has_next());
    /// # Ok(())
    /// # }
    /// ```
    fn among<C, V>(self, column: C, values: impl IntoIterator<Item = V>) -> Among<Self, C, V>
    where
        Self::Model: Prefix<C>,
        C: Column<SqlType: SqlType + TypedExpressionType>,
        V: AsExpression<C::SqlType> + CursorValue,
    {
        Among::new(self, column, values.into_iter().collect())
    }

    /// This query among the rows whose `column` is one of the values the subquery `rows`
    /// yields: [`among`](Self::among) a list that each page reads first, at most one row past
    /// [`max_set`](crate::AmongQuery::max_set), in one statement more. `total_count` counts
    /// `column IN (subquery)`.
    ///
    /// ```
    /// # use diesel::prelude::*;
    /// # use keyset_runtime::{Keyset, PageRequest, Paginate};
    /// diesel::table! {
    ///     posts (id) { id -> BigInt, author_id -> BigInt }
    /// }
    /// diesel::table! {
    ///     follows (follower_id, author_id) { follower_id -> BigInt, author_id -> BigInt }
    /// }
    /// # diesel::allow_tables_to_appear_in_same_query!(posts, follows);
    ///
    /// #[derive(Queryable, Selectable, Keyset)]
    /// #[keyset(prefix(author_id))]
    /// struct Post {
    ///     #[sort(desc)]
    ///     #[tiebreaker]
    ///     id: i64,
    ///     author_id: i64,
    /// }
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let mut conn = SqliteConnection::establish(":memory:")?;
    /// # diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY, author_id BIGINT NOT NULL)").execute(&mut conn)?;
    /// # diesel::sql_query("CREATE TABLE follows (follower_id BIGINT NOT NULL, author_id BIGINT NOT NULL, PRIMARY KEY (follower_id, author_id))").execute(&mut conn)?;
    /// # diesel::sql_query("INSERT INTO posts VALUES (1, 7), (2, 8), (3, 9), (4, 7)").execute(&mut conn)?;
    /// # diesel::sql_query("INSERT INTO follows VALUES (1, 7), (1, 9), (2, 8)").execute(&mut conn)?;
    /// let me = 1;
    /// let followed = follows::table.filter(follows::follower_id.eq(me)).select(follows::author_id);
    /// let feed = posts::table
    ///     .select(Post::as_select())
    ///     .among_query(posts::author_id, followed)
    ///     .paginate(&PageRequest::first(20))?;
    /// assert_eq!(feed.total_count(&mut conn)?, 3);
    /// let page = feed.load_page(&mut conn)?;
    /// assert_eq!(page.items.iter().map(|post| post.id).collect::<Vec<_>>(), [4, 3, 1]);
    /// # Ok(())
    /// # }
    /// ```
    fn among_query<C, S>(self, column: C, rows: S) -> AmongQuery<Self, C, S>
    where
        Self::Model: Prefix<C>,
        C: Column<SqlType: SqlType + TypedExpressionType>,
        S: Query<SqlType: SetType<Value: AsExpression<C::SqlType> + CursorValue>>,
    {
        AmongQuery::new(self, column, rows)
    }
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
        Paginated::requested(self, 0, request, Codec::default())
    }

    #[cfg(feature = "signed")]
    fn paginate_signed(
        self,
        request: &PageRequest,
        keys: &TokenKeys,
    ) -> Result<Paginated<Self>, Error> {
        Paginated::requested(self, 0, request, Codec::default().signed(keys))
    }

    fn paginate_by<O: OrdersOf<Self::Model>>(
        self,
        order: O,
        dir: Option<SortDirection>,
        request: &PageRequest,
    ) -> Result<Paginated<Self, O::Set>, Error> {
        Paginated::requested(self, list_index(order.order(), dir), request, Codec::default())
    }

    #[cfg(feature = "signed")]
    fn paginate_by_signed<O: OrdersOf<Self::Model>>(
        self,
        order: O,
        dir: Option<SortDirection>,
        request: &PageRequest,
        keys: &TokenKeys,
    ) -> Result<Paginated<Self, O::Set>, Error> {
        let codec = Codec::default().signed(keys);
        Paginated::requested(self, list_index(order.order(), dir), request, codec)
    }
}

/// A query ready to load one page, in the model's order or (`O`) one of its named orders: the
/// request resolved, its token decoded. Built by [`Paginate::paginate`] and
/// [`Paginate::paginate_by`]; loaded with `load_page` (or `load_page_async`, or over shards),
/// into a `Page` of the model whatever the order.
#[must_use = "a paginated query does nothing until `load_page` runs it"]
pub struct Paginated<Q: Paginate, O: OrderSet = <Q as Paginate>::Model> {
    pub(crate) query: Q,
    /// The order chosen in `O`'s list, and the position there.
    pub(crate) chosen: <O::List as OrderList>::Chosen,
    pub(crate) limit: Limit,
    pub(crate) codec: Codec,
    /// The count asked for, and the listing's rules for it.
    pub(crate) counting: Counting,
    /// Whether the request starts at values, and whether the listing serves that.
    pub(crate) starts: Starts,
}
