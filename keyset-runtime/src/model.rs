//! The [`Keyset`] trait: what `#[derive(Keyset)]` generates for a model.

use crate::migration::IndexDdl;
use crate::orders::list::{Nil, OrderSet};
use crate::orders::SortOrder;
use crate::sql::{Backward, CursorKeys, Forward, KeyShape, OrderBy, Seek};
use crate::token::format::{fingerprint, MAX_TOKEN_LEN};
use crate::token::value::CursorValue;

/// A Diesel model that can be paged by keyset: its sort keys, ending in a unique tiebreaker, and
/// its typed cursor.
///
/// Implement it with `#[derive(Keyset)]` (see the [crate docs](crate) for the attributes); the
/// required items are the derive's business. The provided methods are the building blocks
/// [`paginate`](crate::Paginate::paginate) uses, public for hand-built queries. Their results are
/// Diesel expressions of types this crate does not name: pass them to `.filter()` and `.order()`
/// (of plain, joined or boxed queries), and let inference, `impl Trait` or `.into_boxed()` carry
/// them where a query's type would be written:
///
/// ```
/// # use diesel::prelude::*;
/// # use keyset_runtime::Keyset;
/// # diesel::table! { posts (id) { id -> BigInt, created_at -> BigInt, title -> Text } }
/// # #[derive(Queryable, Selectable, Keyset)]
/// # #[diesel(table_name = posts)]
/// # struct Post { #[sort(desc)] created_at: i64, #[sort(desc)] #[tiebreaker] id: i64, title: String }
/// let cursor = PostCursor { created_at: 1_700_000_000, id: 42 };
/// let query = posts::table
///     .filter(Post::after(&cursor))
///     .order(Post::order_by())
///     .limit(20)
///     .select(Post::as_select());
/// // On SQLite each cursor value is written `+?`, which its planner does not read: a bare `?`
/// // makes it prepare the cached statement anew whenever the value is bound again.
/// assert_eq!(
///     diesel::debug_query::<diesel::sqlite::Sqlite, _>(&query).to_string(),
///     "SELECT `posts`.`created_at`, `posts`.`id`, `posts`.`title` FROM `posts` \
///      WHERE (`posts`.`created_at` <= +? AND (`posts`.`created_at` < +? OR \
///      (`posts`.`created_at` = +? AND `posts`.`id` < +?))) \
///      ORDER BY `posts`.`created_at` DESC, `posts`.`id` DESC LIMIT ? \
///      -- binds: [1700000000, 1700000000, 1700000000, 42, 20]",
/// );
/// ```
pub trait Keyset: Sized + 'static {
    /// The generated `<Model>Cursor`: the sort-key values of one row, written into tokens as
    /// its fields' [`CursorValue`] forms in order.
    type Cursor: Clone + PartialEq + Send + CursorValue;
    /// The sort keys' columns and directions, as a type-level list.
    #[doc(hidden)]
    type Columns: KeyShape + Send;
    /// The same list holding a cursor's values.
    #[doc(hidden)]
    type Keys: CursorKeys + Send;
    /// The listing and its sort order in words, e.g. `posts: created_at DESC, id DESC`: the
    /// table (with the listing's name, `posts[admin]: ..`, when `#[keyset(listing = "admin")]`
    /// gives one), and each key's column, direction and NULL placement. Not the struct's name:
    /// renaming it keeps tokens valid.
    const SORT_ORDER: &'static str;
    /// A hash of [`SORT_ORDER`](Self::SORT_ORDER) carried in every token, so that a token issued
    /// for another listing or another sort order is rejected instead of paging wrongly.
    const FINGERPRINT: u32 = fingerprint(Self::SORT_ORDER);
    /// The fingerprint of this order's tokens in token format version 2 (which hashed the
    /// struct's name too), so that such a token is told its version rather than called junk.
    #[doc(hidden)]
    const LEGACY_FINGERPRINT: Option<u32> = None;
    /// The names under which the model's `as_select()` outputs its sort keys' columns, in
    /// order, when it selects nothing but its own table's columns (so that the names are
    /// distinct); else `None`. A page that runs its statements as one `UNION ALL` orders the
    /// union by them (see `sql/union.rs`).
    #[doc(hidden)]
    const SELECTED_NAMES: Option<&'static [&'static str]> = None;
    /// How many leading keys of the order are a joined table's, ending with its primary key,
    /// which the derive checks (`authors.name, authors.id` in `authors.name, authors.id,
    /// posts.created_at, posts.id`): the rows are then grouped by the joined row, and a page may
    /// walk the groups one at a time (see `SeekDialect::WALK_GROUPS`). 0 otherwise.
    #[doc(hidden)]
    const GROUP_KEYS: usize = 0;
    /// Whether the table is read through postgres_fdw (`#[keyset(postgres_fdw)]`): pages then
    /// write their seeks as postgres_fdw sends them on to the servers that hold the rows, with
    /// no row value (it sends none: each server would read the cursor's whole tie group, and
    /// the rows past it, for the coordinator to filter), and a tie level's equality as `=`.
    #[doc(hidden)]
    const POSTGRES_FDW: bool = false;
    /// Whether the table is a MariaDB Spider table (`#[keyset(spider)]`): pages past a cursor
    /// then run one statement per tie level, each one index range, where one predicate past
    /// the cursor is several ranges of the order's index, which Spider 10.11 sends each data
    /// node as one statement per range that each carry the whole predicate: rows of the first
    /// range come back twice.
    #[doc(hidden)]
    const SPIDER: bool = false;
    /// The indexes the sort order needs, with their DDL per backend (see [`crate::migration`]):
    /// the sort keys in order with their directions, one led by each `prefix(..)`, and a unique
    /// index for a `#[tiebreaker(unique)]` column. An order led by a joined table's keys gets a
    /// unique index of them on that table, and the prefix's with the model's own keys on the
    /// model's table.
    const INDEXES: &'static [IndexDdl] = &[];
    /// The longest token this listing issues and accepts, in characters:
    /// 1024 unless the model says `#[keyset(max_token_len = ..)]`.
    /// A longer token from a client is refused unread ([`CursorError::TooLong`](crate::CursorError::TooLong));
    /// a row whose keys need a longer one fails its page with
    /// [`Error::KeysTooLong`](crate::Error::KeysTooLong), the server's error.
    ///
    /// ```
    /// # use diesel::prelude::*;
    /// # use keyset_runtime::Keyset;
    /// # diesel::table! { articles (id) { id -> BigInt, title -> Text } }
    /// /// Sorted by title, which may be long: a token holds it whole.
    /// #[derive(Queryable, Selectable, Keyset)]
    /// #[keyset(max_token_len = 4096)]
    /// struct Article {
    ///     #[sort(asc)]
    ///     title: String,
    ///     #[sort(asc)]
    ///     #[tiebreaker]
    ///     id: i64,
    /// }
    ///
    /// assert_eq!(Article::MAX_TOKEN_LEN, 4096);
    /// ```
    const MAX_TOKEN_LEN: usize = MAX_TOKEN_LEN;

    /// The cursor pointing at this row.
    fn cursor(&self) -> Self::Cursor;
    /// The key list without values, for the ORDER BY.
    #[doc(hidden)]
    fn columns() -> Self::Columns;
    /// The key list holding `cursor`'s values, for the seek predicate.
    #[doc(hidden)]
    fn keys(cursor: Self::Cursor) -> Self::Keys;
    /// Each key's field name and the bytes its value takes in a token, in order: what
    /// [`Error::KeysTooLong`](crate::Error::KeysTooLong) names.
    #[doc(hidden)]
    fn key_lengths(cursor: &Self::Cursor) -> Vec<(&'static str, usize)> {
        let _ = cursor;
        Vec::new()
    }

    /// The predicate "rows strictly after `cursor`" in this model's order, as one SQL predicate
    /// (the example above), on every backend: the whole of it, for any query. A page loaded with
    /// [`load_page`](crate::Paginated::load_page) on SQLite runs it one tie level at a time
    /// instead (`created_at = ? AND id < ?`, then `created_at < ?`), because SQLite seeks only
    /// the leading column of the single predicate; on PostgreSQL, in mixed directions, it runs
    /// every tie level in one statement, their `UNION ALL`, for the same reason (a query that
    /// selects the model alone, see [the SQL guide](crate::guide::sql)).
    ///
    /// **Not always an index seek with a nullable leading key.** When the NULLs of a nullable
    /// leading key lie past the cursor, the predicate has to take them too (`.. OR due IS
    /// NULL`), and no engine seeks an index on an OR across the NULL boundary: PostgreSQL and
    /// SQLite filter the index from its start, MariaDB sorts. For a seek, page with
    /// [`paginate`](crate::Paginate::paginate) and [`load_page`](crate::Paginated::load_page),
    /// which split such a page at the boundary into two seeks, one per side, the second only
    /// when the first leaves the page short (a boxed query, which cannot run twice, gets the
    /// single predicate there too).
    fn after(cursor: &Self::Cursor) -> Seek<Self, Forward> {
        Seek::new(cursor.clone())
    }

    /// The predicate "rows strictly before `cursor`" in this model's order: the mirror image of
    /// [`after`](Self::after), tie levels on SQLite included.
    fn before(cursor: &Self::Cursor) -> Seek<Self, Backward> {
        Seek::new(cursor.clone())
    }

    /// The model's ORDER BY, every key in its declared direction.
    fn order_by() -> OrderBy<Self, Forward> {
        OrderBy::new()
    }

    /// The exact reverse of [`order_by`](Self::order_by), for fetching pages backward.
    fn reverse_order_by() -> OrderBy<Self, Backward> {
        OrderBy::new()
    }
}

impl<M: Keyset> SortOrder for M {
    type Row = M;
    type Cursor = M::Cursor;
    type Columns = M::Columns;
    type Keys = M::Keys;
    const SORT_ORDER: &'static str = M::SORT_ORDER;
    const FINGERPRINT: u32 = M::FINGERPRINT;
    const LEGACY_FINGERPRINT: Option<u32> = M::LEGACY_FINGERPRINT;
    const MAX_TOKEN_LEN: usize = M::MAX_TOKEN_LEN;
    const SELECTED_NAMES: Option<&'static [&'static str]> = M::SELECTED_NAMES;
    const GROUP_KEYS: usize = M::GROUP_KEYS;
    const POSTGRES_FDW: bool = M::POSTGRES_FDW;
    const SPIDER: bool = M::SPIDER;

    fn cursor(row: &M) -> M::Cursor {
        row.cursor()
    }

    fn columns() -> M::Columns {
        M::columns()
    }

    fn keys(cursor: M::Cursor) -> M::Keys {
        M::keys(cursor)
    }

    fn key_lengths(cursor: &M::Cursor) -> Vec<(&'static str, usize)> {
        M::key_lengths(cursor)
    }
}

/// A model's own order is a list of one.
impl<M: Keyset> OrderSet for M {
    type Row = M;
    type List = (M, Nil<M>);
}
