//! Feeds: the posts of some authors, in any of [`Post`]'s orders, paged among the authors with
//! keyset's [`among`](keyset_runtime::Paginated::among) (a list the client sends) or
//! [`among_query`](keyset_runtime::Paginated::among_query) (the authors a user follows, read from
//! `follows`). Each page seeks the index `(author_id, <the order's keys>)` once per author at
//! most, whatever the authors and however old their posts; the page, its tokens and its errors
//! are those of any other listing of posts, and a token is a position in the order, not in the
//! set: it pages on after the user follows another author.

use diesel::{ExpressionMethods, QueryDsl, SelectableHelper};
use diesel_async::RunQueryDsl;
use keyset_runtime::{Page, PageRequest, Paginate, SortDirection};

use super::{follows, posts, Backend, Db, Error, Post, PostOrder};

/// The most authors a client may list in one feed (`?authors=`): each costs a page up to one
/// index seek. More is the client's error, [`RequestError::SetTooLarge`] (400), before any
/// query. A user's follows are bounded by keyset's default,
/// [`PageRequest::DEFAULT_MAX_SET`] (1,000).
///
/// [`RequestError::SetTooLarge`]: keyset_runtime::RequestError::SetTooLarge
pub const MAX_FEED_AUTHORS: usize = 100;

/// Runs `$body` on a connection of `$db`'s pool, `$conn`, one arm per backend: each arm builds
/// its own query, since a feed's query type (which names the backend) has no name to write a
/// generic bound with, as [`super::page`] does for plain pages.
macro_rules! on_connection {
    ($db:expr, |$conn:ident| $body:expr) => {
        match $db.backend() {
            Backend::Sqlite(pool) => {
                let $conn = &mut *pool.get().await?;
                $body
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(pool) => {
                let $conn = &mut *pool.get().await?;
                $body
            }
            #[cfg(feature = "mysql")]
            Backend::Mysql(pool) => {
                let $conn = &mut *pool.get().await?;
                $body
            }
        }
    };
}

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
        Ok(on_connection!(self, |conn| {
            posts::table
                .select(Post::as_select())
                .paginate_by(order, dir, request)?
                .among(posts::author_id, authors.to_vec())
                .max_set(MAX_FEED_AUTHORS)
                .load_page_async(conn)
                .await?
        }))
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
        Ok(on_connection!(self, |conn| {
            posts::table
                .select(Post::as_select())
                .paginate_by(order, dir, request)?
                .among_query(posts::author_id, followed)
                .load_page_async(conn)
                .await?
        }))
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

/// Whom seeded user `user` (1 to [`Post::AUTHORS`]) follows: the next three authors, around.
pub fn seeded_follows(user: i64) -> impl Iterator<Item = i64> {
    (1..=3).map(move |next| 1 + (user - 1 + next) % Post::AUTHORS)
}
