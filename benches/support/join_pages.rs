//! The pages the joins bench times: a page of `bench_join_posts ⋈ bench_authors` selecting
//! `(post, author)` through the public API (`paginate`, `load_page`: decode the token, run the
//! statements, encode the tokens), in the posts' own order ([`JoinPost`], served by its index)
//! and in their author's name order ([`PostByAuthor`], led by a column of the joined table, which
//! no index on the posts holds).

use diesel::dsl::{AsSelect, InnerJoin, Select};
use diesel::prelude::*;
use diesel::query_builder::QueryFragment;
use keyset_runtime::{Keyset, Page, PageRequest, Paginate};

use crate::schema::{bench_authors, bench_join_posts, Author, JoinPost, PostByAuthor};

pub use crate::pages::{FETCH, PAGE};

/// `SELECT (<post's columns>, <author's columns>) FROM bench_join_posts INNER JOIN bench_authors`.
pub type Join<M, DB> = Select<
    InnerJoin<bench_join_posts::table, bench_authors::table>,
    (AsSelect<M, DB>, AsSelect<Author, DB>),
>;

/// The same functions for each backend, on its concrete connection type (see `crate::pages`).
macro_rules! backend_join_pages {
    ($(#[$attr:meta])* $module:ident, $db:ty, $conn:ty) => {
        $(#[$attr])*
        pub mod $module {
            use super::*;

            type DB = $db;

            /// The join, selecting the post as a [`JoinPost`] and its author.
            pub fn own_join() -> Join<JoinPost, DB> {
                let join = bench_join_posts::table.inner_join(bench_authors::table);
                join.select((JoinPost::as_select(), Author::as_select()))
            }

            /// The join, selecting the post as a [`PostByAuthor`] and its author.
            pub fn by_author_join() -> Join<PostByAuthor, DB> {
                let join = bench_join_posts::table.inner_join(bench_authors::table);
                join.select((PostByAuthor::as_select(), Author::as_select()))
            }

            /// A page in the posts' own order, `created_at DESC, id DESC`.
            pub fn own(conn: &mut $conn, request: &PageRequest) -> Page<(JoinPost, Author)> {
                let query = own_join().paginate(request).expect("a valid request");
                query.load_page(conn).expect("the page loads")
            }

            /// A page in the authors' name order, `bench_authors.name ASC, id DESC`.
            pub fn by_author(
                conn: &mut $conn,
                request: &PageRequest,
            ) -> Page<(PostByAuthor, Author)> {
                let query = by_author_join().paginate(request).expect("a valid request");
                query.load_page(conn).expect("the page loads")
            }

            /// The requests for the first page and the page at `depth` (a multiple of
            /// [`PAGE`]: `after` the `next_cursor` of the page before it) in the posts' own
            /// order, and the cursor that page seeks from.
            pub fn own_requests(
                conn: &mut $conn,
                depth: i64,
            ) -> ([PageRequest; 2], <JoinPost as Keyset>::Cursor) {
                let before = own(conn, &PageRequest::page_number((depth / i64::from(PAGE)) as u32, PAGE));
                let cursor = before.items.last().expect("a page before the depth").0.cursor();
                let after = PageRequest::after(before.next_cursor.expect("a page follows"), PAGE);
                ([PageRequest::first(PAGE), after], cursor)
            }

            /// The statement of the page after `cursor` in the posts' own order, as one predicate
            /// (on SQLite a page runs it one tie level at a time; the test suite's
            /// `joins_plan.rs` explains each), for its plan.
            pub fn own_query(cursor: &<JoinPost as Keyset>::Cursor) -> impl QueryFragment<DB> {
                own_join().filter(JoinPost::after(cursor)).order(JoinPost::order_by()).limit(FETCH)
            }

            /// [`own_query`] in the authors' name order.
            pub fn by_author_query(
                cursor: &<PostByAuthor as Keyset>::Cursor,
            ) -> impl QueryFragment<DB> {
                by_author_join()
                    .filter(PostByAuthor::after(cursor))
                    .order(PostByAuthor::order_by())
                    .limit(FETCH)
            }

            /// [`own_requests`] in the authors' name order.
            pub fn by_author_requests(
                conn: &mut $conn,
                depth: i64,
            ) -> ([PageRequest; 2], <PostByAuthor as Keyset>::Cursor) {
                let number = (depth / i64::from(PAGE)) as u32;
                let before = by_author(conn, &PageRequest::page_number(number, PAGE));
                let cursor = before.items.last().expect("a page before the depth").0.cursor();
                let after = PageRequest::after(before.next_cursor.expect("a page follows"), PAGE);
                ([PageRequest::first(PAGE), after], cursor)
            }
        }
    };
}

backend_join_pages!(sqlite, diesel::sqlite::Sqlite, diesel::SqliteConnection);
backend_join_pages!(
    #[cfg(feature = "postgres")]
    postgres,
    diesel::pg::Pg,
    diesel::PgConnection
);
backend_join_pages!(
    #[cfg(feature = "mysql")]
    mysql,
    diesel::mysql::Mysql,
    diesel::MysqlConnection
);
