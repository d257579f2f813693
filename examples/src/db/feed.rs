//! Feeds: the posts of some authors, in any of [`Post`]'s orders, paged among the authors with
//! keyset's [`among`](keyset_runtime::Paginate::among) (a list the client sends) or
//! [`among_query`](keyset_runtime::Paginate::among_query) (the authors a user follows, read from
//! `follows`). Each page seeks the index `(author_id, <the order's keys>)` once per author at
//! most, whatever the authors and however old their posts; the page, its tokens and its errors
//! are those of any other listing of posts, and a token is a position in the order, not in the
//! set: it pages on after the user follows another author.

use diesel::dsl::{Eq, Filter, Select};
use diesel::{ExpressionMethods, QueryDsl, SelectableHelper};
use diesel_async::{AsyncConnectionCore, RunQueryDsl};
use keyset_runtime::{
    Among, AmongQuery, AsyncPageQuery, Page, PageRequest, Paginate, SortDirection,
};

use super::{follows, posts, Backend, Db, Error, Post, PostOrder, PostsQuery};

/// The most authors a client may list in one feed (`?authors=`): each costs a page up to one
/// index seek. More is the client's error, [`RequestError::SetTooLarge`] (400), before any
/// query. A user's follows are bounded by keyset's default,
/// [`PageRequest::DEFAULT_MAX_SET`] (1,000).
///
/// [`RequestError::SetTooLarge`]: keyset_runtime::RequestError::SetTooLarge
pub const MAX_FEED_AUTHORS: usize = 100;

impl Db {
    /// The page `request` asks for of the posts by `authors`, in `order` and `dir` (as
    /// [`page`](Db::page)). No authors is an empty page; more than [`MAX_FEED_AUTHORS`] is
    /// refused before any query ([`Error::fault`]: a bad request). A token of this feed pages
    /// any other feed of the same order and direction, and `/posts` too.
    pub async fn feed(
        &self,
        order: PostOrder,
        dir: Option<SortDirection>,
        authors: &[i64],
        request: &PageRequest,
    ) -> Result<Page<Post>, Error> {
        let authors = authors.to_vec();
        Ok(match self.backend() {
            Backend::Sqlite(pool) => {
                feed(&mut *pool.get().await?, order, dir, authors, request).await?
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(pool) => {
                feed(&mut *pool.get().await?, order, dir, authors, request).await?
            }
            #[cfg(feature = "mysql")]
            Backend::Mysql(pool) => {
                feed(&mut *pool.get().await?, order, dir, authors, request).await?
            }
        })
    }

    /// The page `request` asks for of the posts by the authors `user` follows, as
    /// [`feed`](Self::feed) of those authors: the page reads them first
    /// (`SELECT author_id FROM follows WHERE follower_id = ?`, the primary key's seek), at most
    /// one past [`PageRequest::DEFAULT_MAX_SET`]; a user who follows more is refused.
    pub async fn follows_feed(
        &self,
        order: PostOrder,
        dir: Option<SortDirection>,
        user: i64,
        request: &PageRequest,
    ) -> Result<Page<Post>, Error> {
        let followed = follows::table.filter(follows::follower_id.eq(user));
        let followed = followed.select(follows::author_id);
        Ok(match self.backend() {
            Backend::Sqlite(pool) => {
                follows_feed(&mut *pool.get().await?, order, dir, followed, request).await?
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(pool) => {
                follows_feed(&mut *pool.get().await?, order, dir, followed, request).await?
            }
            #[cfg(feature = "mysql")]
            Backend::Mysql(pool) => {
                follows_feed(&mut *pool.get().await?, order, dir, followed, request).await?
            }
        })
    }

    /// `user` follows `author` from now on; whether they did not before. Their feed's tokens
    /// stay valid: its next page is among the authors they follow then.
    pub async fn follow(&self, user: i64, author: i64) -> Result<bool, Error> {
        let row = (follows::follower_id.eq(user), follows::author_id.eq(author));
        let added = match self.backend() {
            Backend::Sqlite(pool) => {
                let insert = diesel::insert_or_ignore_into(follows::table).values(row);
                insert.execute(&mut *pool.get().await?).await?
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(pool) => {
                let insert = diesel::insert_into(follows::table).values(row);
                insert.on_conflict_do_nothing().execute(&mut *pool.get().await?).await?
            }
            #[cfg(feature = "mysql")]
            Backend::Mysql(pool) => {
                let insert = diesel::insert_or_ignore_into(follows::table).values(row);
                insert.execute(&mut *pool.get().await?).await?
            }
        };
        Ok(added > 0)
    }

    /// The authors `user` follows, in order (for checks, and for a client to show).
    pub async fn following(&self, user: i64) -> Result<Vec<i64>, Error> {
        let authors = follows::table
            .filter(follows::follower_id.eq(user))
            .select(follows::author_id)
            .order(follows::author_id);
        Ok(match self.backend() {
            Backend::Sqlite(pool) => authors.load(&mut *pool.get().await?).await?,
            #[cfg(feature = "postgres")]
            Backend::Postgres(pool) => authors.load(&mut *pool.get().await?).await?,
            #[cfg(feature = "mysql")]
            Backend::Mysql(pool) => authors.load(&mut *pool.get().await?).await?,
        })
    }
}

/// The authors a user follows: the subquery their feed pages among.
pub type Followed =
    Select<Filter<follows::table, Eq<follows::follower_id, i64>>, follows::author_id>;

/// A feed among a list of authors, on any connection keyset pages posts on: the handler's code,
/// written once for every backend, as [`page`](super::page) is. The query's type has a name,
/// [`Among`], so the bound can say so.
async fn feed<C>(
    conn: &mut C,
    order: PostOrder,
    dir: Option<SortDirection>,
    authors: Vec<i64>,
    request: &PageRequest,
) -> Result<Page<Post>, keyset_runtime::Error>
where
    C: AsyncConnectionCore,
    Among<PostsQuery<C::Backend>, posts::author_id, i64>:
        AsyncPageQuery<'static, C, PostOrder> + Paginate<Model = Post, Item = Post>,
{
    let query = posts::table.select(Post::as_select());
    let query = query.among(posts::author_id, authors).max_set(MAX_FEED_AUTHORS);
    query.paginate_by(order, dir, request)?.load_page_async(conn).await
}

/// A feed among the authors a user follows, on any connection keyset pages posts on.
async fn follows_feed<C>(
    conn: &mut C,
    order: PostOrder,
    dir: Option<SortDirection>,
    followed: Followed,
    request: &PageRequest,
) -> Result<Page<Post>, keyset_runtime::Error>
where
    C: AsyncConnectionCore,
    AmongQuery<PostsQuery<C::Backend>, posts::author_id, Followed>:
        AsyncPageQuery<'static, C, PostOrder> + Paginate<Model = Post, Item = Post>,
{
    let query = posts::table.select(Post::as_select()).among_query(posts::author_id, followed);
    query.paginate_by(order, dir, request)?.load_page_async(conn).await
}

/// Whom seeded user `user` (1 to [`Post::AUTHORS`]) follows: the next three authors, around.
pub fn seeded_follows(user: i64) -> impl Iterator<Item = i64> {
    (1..=3).map(move |next| 1 + (user - 1 + next) % Post::AUTHORS)
}
