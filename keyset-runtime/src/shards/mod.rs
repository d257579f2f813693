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

mod merge;
mod order;

#[doc(hidden)]
pub use order::{MergeKeys, TextInByteOrder};
pub use order::{ShardOrder, Shardable};

use crate::driver::PageQuery;
use crate::page::{Paginate, Paginated};
use crate::request::served_limit;
use crate::{Error, Page};

impl<Q: Paginate> Paginated<Q> {
    /// Loads the page from several databases holding parts of the listing (shards, each a
    /// connection): every shard runs this page, with its statements and binds, and their rows are
    /// merged in the model's order into one page of at most the limit. Its tokens are the
    /// model's own: the next request pages on over the same shards, in any order of
    /// connections. The query runs on each shard as written: it is cloned for each, so it is
    /// `Clone`, as Diesel's select statements are (a boxed query is not), and holds no shard's
    /// own filter.
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
    pub fn load_page_sharded<'query, 'shard, Conn, Shards>(
        self,
        shards: Shards,
    ) -> Result<Page<Q::Item>, Error>
    where
        Shards: IntoIterator<Item = &'shard mut Conn>,
        Conn: 'shard,
        Q: PageQuery<'query, Conn> + Clone,
        Q::Model: Shardable,
    {
        let limit = served_limit(self.limit, self.max_limit)?;
        let (position, shard_limit, skip) = merge::per_shard(&self.position, limit)?;
        let mut fetched = Vec::new();
        for (shard, conn) in shards.into_iter().enumerate() {
            let rows = self.query.clone().fetch_page_at(position.clone(), shard_limit, conn);
            fetched.push(rows.map_err(|source| Error::Shard { shard, source: Box::new(source) })?);
        }
        let merged = merge::merge(self.position, (limit, skip), fetched)?;
        Ok(merged.finish(&self.codec, false)?.page)
    }
}

#[cfg(feature = "diesel-async")]
mod asynchronous;
