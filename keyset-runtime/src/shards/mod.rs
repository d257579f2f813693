//! Pages of a listing spread over several databases (shards): every shard runs the same keyset
//! page after the same cursor, and the rows are merged in the model's order into one page with
//! one token, which works on every shard for the next request. See
//! [`Paginated::load_page_sharded`].
//!
//! The merge is exact when Rust orders the keys as the databases do ([`ShardOrder`]) and when
//! the order is total across the shards: the tiebreaker must be unique across all of them, not
//! only within each (a per-shard sequence collides; a UUID, or a key that holds the shard, does
//! not). Rows of two shards with the same keys fail the page ([`Error::ShardKeysCollide`]),
//! instead of skipping or repeating rows at a page boundary between them.

mod keys;
mod merge;

pub use keys::ShardOrder;
#[doc(hidden)]
pub use keys::{MergeKeys, TextInByteOrder};
use merge::MergeList;

use crate::error::Error;
use crate::orders::list::{OrderList, OrderSet};
use crate::page::Page;
use crate::paginate::{Paginate, Paginated};
use crate::run::{Ask, Blocking, Exec, PageQuery, Pages};

/// A model (for its own order) or the enum of its named orders whose every order merges pages
/// of several shards exactly: every sort key's type orders in Rust as in the databases
/// ([`ShardOrder`]), and its text keys, if any, sort in byte order on every shard
/// (`#[keyset(text_collation = "C")]`). Implemented for every such model and enum; you meet it
/// in the bounds of a helper generic over sharded pages:
///
/// ```
/// # use diesel::prelude::*;
/// use keyset_runtime::{Error, Page, PageQuery, PageRequest, Shardable};
///
/// /// The first page of any query, over every shard.
/// fn first_page<Q, Conn>(query: Q, shards: &mut [Conn]) -> Result<Page<Q::Item>, Error>
/// where
///     Q: PageQuery<'static, Conn> + Clone,
///     Q::Model: Shardable,
///     Q::Item: Send,
/// {
///     query.paginate(&PageRequest::first(20))?.load_page_sharded(shards)
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "pages of `{Self}` cannot be merged across shards",
    label = "a sort key of `{Self}` may order otherwise in Rust than in the databases",
    note = "every sort key's type must order in Rust as in the databases: see `keyset_runtime::ShardOrder`",
    note = "a `String` key sorts by its column's collation: if every shard's column sorts in byte order (PostgreSQL `COLLATE \"C\"`, SQLite's `BINARY`, MariaDB's `utf8mb4_nopad_bin`), say so on the model with `#[keyset(text_collation = \"C\")]`"
)]
pub trait Shardable: OrderSet<List: MergeList> {}

impl<O: OrderSet> Shardable for O where O::List: MergeList {}

impl<Q: Paginate, O: OrderSet> Paginated<Q, O> {
    /// Loads the page from several databases holding parts of the listing (shards, each a
    /// connection): every shard runs this page, with its statements and binds, and their rows are
    /// merged in the model's order into one page of at most the limit. Its tokens are the
    /// model's own: the next request pages on over the same shards, in any order of
    /// connections. The query runs on each shard as written: it is cloned for each, so it is
    /// `Clone`, as Diesel's select statements are (a boxed query is not), and holds no shard's
    /// own filter. Pages in a named order ([`Paginate::paginate_by`](crate::Paginate::paginate_by))
    /// merge alike.
    ///
    /// A page costs one page per shard, whatever its depth; a [page
    /// number](crate::PageRequest::page_number) reads its rows and every row before them on each
    /// shard. A shard that fails fails the page ([`Error::Shard`], with its index), never a short
    /// page; no shards at all is [`Error::NoShards`].
    ///
    /// **The order must be total across the shards.** With ids from one sequence per shard, two
    /// shards hold rows with the same keys, which the merge cannot order: such a page fails with
    /// [`Error::ShardKeysCollide`] rather than skip or repeat rows. Give the tiebreaker values
    /// unique across shards: a UUID, ids drawn from disjoint ranges, or the shard's number as a
    /// key before the id. Keys are compared in Rust, so their types must order as the databases
    /// do ([`ShardOrder`], [`Shardable`]); `String` keys need a byte-order collation on every shard, declared on
    /// the model with `#[keyset(text_collation = "C")]` (PostgreSQL's `"C"` or `"POSIX"`,
    /// SQLite's `"BINARY"`, MariaDB's `"utf8mb4_nopad_bin"`).
    ///
    /// ```
    /// # use diesel::prelude::*;
    /// use keyset_runtime::{Keyset, PageRequest, Paginate};
    /// # diesel::table! { posts (id) { id -> BigInt } }
    /// # #[derive(Queryable, Selectable, Keyset, Debug)]
    /// # struct Post { #[sort(desc)] #[tiebreaker] id: i64 }
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// // Two shards: posts with odd ids on one, even ids on the other.
    /// let mut shards = Vec::new();
    /// for ids in ["(1), (3), (5)", "(2), (4)"] {
    ///     let mut conn = SqliteConnection::establish(":memory:")?;
    ///     diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY)").execute(&mut conn)?;
    ///     diesel::sql_query(format!("INSERT INTO posts VALUES {ids}")).execute(&mut conn)?;
    ///     shards.push(conn);
    /// }
    /// let query = || posts::table.select(Post::as_select());
    ///
    /// let page = query().paginate(&PageRequest::first(3))?.load_page_sharded(&mut shards)?;
    /// assert_eq!(page.items.iter().map(|post| post.id).collect::<Vec<_>>(), [5, 4, 3]);
    /// let after = PageRequest::after(page.next_cursor.unwrap(), 3);
    /// let next = query().paginate(&after)?.load_page_sharded(&mut shards)?;
    /// assert_eq!(next.items.iter().map(|post| post.id).collect::<Vec<_>>(), [2, 1]);
    /// assert!(!next.has_next());
    /// # Ok(())
    /// # }
    /// ```
    pub fn load_page_sharded<'q, 'c, Conn, Shards>(
        self,
        shards: Shards,
    ) -> Result<Page<Q::Item>, Error>
    where
        Shards: IntoIterator<Item = &'c mut Conn>,
        Conn: 'c,
        Q: PageQuery<'q, Conn, O> + Clone + 'c,
        Q::Item: Send,
        O: Shardable,
        'q: 'c,
    {
        self.load_shards::<Conn, Blocking, _>(shards).into_inner()
    }

    /// [`load_page_sharded`](Self::load_page_sharded) on diesel-async connections: each shard's
    /// page runs at the same time as the others' (one future per shard, awaited together, so a
    /// page takes about as long as its slowest shard), and the rows merge as on the sync path,
    /// into the same page and tokens. A shard that fails fails the page ([`Error::Shard`], the
    /// first failing shard in the order given), once every shard's statement has finished: none
    /// is cut off midway, which would leave its connection in an unknown state (and
    /// diesel-async's `SyncConnectionWrapper` blocks, on a current-thread runtime panics, when a
    /// statement of its is dropped unfinished). Pooled connections go in as `&mut *pooled`. The
    /// future is `Send`.
    ///
    /// ```
    /// # use diesel::prelude::*;
    /// # use keyset_runtime::{Keyset, PageRequest, Paginate};
    /// use diesel_async::sync_connection_wrapper::SyncConnectionWrapper;
    /// use diesel_async::{AsyncConnection, RunQueryDsl};
    /// # diesel::table! { posts (id) { id -> BigInt } }
    /// # #[derive(Queryable, Selectable, Keyset, Debug)]
    /// # struct Post { #[sort(asc)] #[tiebreaker] id: i64 }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mut shards = Vec::new();
    /// for ids in ["(1), (4)", "(2), (5)", "(3)"] {
    ///     let mut conn = SyncConnectionWrapper::<SqliteConnection>::establish(":memory:").await?;
    ///     diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY)").execute(&mut conn).await?;
    ///     diesel::sql_query(format!("INSERT INTO posts VALUES {ids}")).execute(&mut conn).await?;
    ///     shards.push(conn);
    /// }
    /// let page = posts::table
    ///     .select(Post::as_select())
    ///     .paginate(&PageRequest::first(4))?
    ///     .load_page_sharded_async(&mut shards)
    ///     .await?;
    /// assert_eq!(page.items.iter().map(|post| post.id).collect::<Vec<_>>(), [1, 2, 3, 4]);
    /// assert!(page.has_next());
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(feature = "diesel-async")]
    pub fn load_page_sharded_async<'q: 'c, 'c, Conn, Shards>(
        self,
        shards: Shards,
    ) -> impl std::future::Future<Output = Result<Page<Q::Item>, Error>> + Send + 'c
    where
        Shards: IntoIterator<Item = &'c mut Conn>,
        Conn: 'c,
        Q: crate::run::AsyncPageQuery<'q, Conn, O> + Clone + 'c,
        Q::Item: Send,
        O: Shardable,
    {
        self.load_shards::<Conn, crate::run::Awaited, _>(shards)
    }

    /// Every shard's rows of this page, fetched by `X` (one after another on blocking
    /// connections, together on async ones), merged into one page.
    fn load_shards<'q, 'c, Conn, X, Shards>(
        self,
        shards: Shards,
    ) -> X::Page<'c, Result<Page<Q::Item>, Error>>
    where
        Shards: IntoIterator<Item = &'c mut Conn>,
        Conn: 'c,
        X: Exec,
        Q: Pages<'q, O::List, Conn, X> + Clone + 'c,
        Q::Item: Send,
        O: Shardable,
        'q: 'c,
    {
        let ask = match self.ask() {
            Ok(ask) => ask,
            Err(error) => return X::ready(Err(error)),
        };
        let limit = ask.limit;
        let (chosen, shard_limit, skip) = match O::List::per_shard(&self.chosen, limit) {
            Ok(planned) => planned,
            Err(error) => return X::ready(Err(error)),
        };
        let ask = Ask { limit: shard_limit, ..ask };
        let pages = shards.into_iter().enumerate().map(|(shard, conn)| {
            let page = self.query.clone().fetch_in(chosen.clone(), ask, conn);
            X::map(page, move |fetched| match fetched {
                Ok(fetched) => Ok(O::List::sendable(fetched)),
                Err(source) => Err(Error::Shard { shard, source: Box::new(source) }),
            })
        });
        let pages = X::join(pages.collect());
        let (chosen, codec) = (self.chosen, self.codec);
        X::map(pages, move |fetched| {
            let fetched = fetched.into_iter().collect::<Result<Vec<_>, _>>()?;
            let merged = O::List::merge(chosen, fetched, limit, skip)?;
            Ok(O::List::finish(merged, &codec, false)?.page)
        })
    }
}
