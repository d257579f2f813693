//! [`Paginated::load_page_sharded_async`]: the shards' pages on diesel-async connections, run
//! concurrently, merged as the sync path merges them.

use std::future::Future;

use futures_util::future::join_all;

use super::{merge, Shardable};
use crate::async_driver::AsyncPageQuery;
use crate::page::{Paginate, Paginated};
use crate::request::served_limit;
use crate::{Error, Keyset, Page};

impl<Q: Paginate> Paginated<Q> {
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
    pub fn load_page_sharded_async<'query: 'conn, 'conn, Conn, Shards>(
        self,
        shards: Shards,
    ) -> impl Future<Output = Result<Page<Q::Item>, Error>> + Send + 'conn
    where
        Shards: IntoIterator<Item = &'conn mut Conn>,
        Conn: 'conn,
        Q: AsyncPageQuery<'query, Conn> + Clone + 'conn,
        Q::Item: Send,
        <Q::Model as Keyset>::Cursor: Send,
        Q::Model: Shardable,
    {
        // Everything but the awaiting happens here, so the future holds only `Send` parts.
        let planned = served_limit(self.limit, self.max_limit)
            .and_then(|limit| Ok((limit, merge::per_shard(&self.position, limit)?)));
        let pages = planned.map(|(limit, (position, shard_limit, skip))| {
            let pages = shards.into_iter().enumerate().map(|(shard, conn)| {
                let page =
                    self.query.clone().fetch_page_at_async(position.clone(), shard_limit, conn);
                async move {
                    page.await.map_err(|source| Error::Shard { shard, source: Box::new(source) })
                }
            });
            (limit, skip, pages.collect::<Vec<_>>())
        });
        let (position, codec) = (self.position, self.codec);
        async move {
            let (limit, skip, pages) = pages?;
            let fetched = join_all(pages).await.into_iter().collect::<Result<Vec<_>, _>>()?;
            let merged = merge::merge(position, (limit, skip), fetched)?;
            Ok(merged.finish(&codec, false)?.page)
        }
    }
}
