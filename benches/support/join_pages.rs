//! The pages the joins bench times: a page of `bench_join_posts ⋈ bench_authors` selecting
//! `(post, author)` through the public API (`paginate`, `load_page`: decode the token, run the
//! statements, encode the tokens), in three orders: the posts' own ([`JoinPost`], served by its
//! index), their author's name then the author ([`PostByAuthorGroup`], served by an index on
//! each table), and their author's name then their own keys ([`PostByAuthor`], which no index
//! serves: kept with `reads_and_sorts`).

use diesel::dsl::{AsSelect, InnerJoin, Select};
use diesel::prelude::*;
use diesel::query_builder::QueryFragment;
use keyset_runtime::{Keyset, Page, PageRequest, Paginate};

use crate::schema::{
    bench_authors, bench_join_posts, Author, JoinPost, PostByAuthor, PostByAuthorGroup,
};

pub use crate::pages::{FETCH, PAGE};

/// `SELECT (<post's columns>, <author's columns>) FROM bench_join_posts INNER JOIN bench_authors`.
pub type Join<M, DB> = Select<
    InnerJoin<bench_join_posts::table, bench_authors::table>,
    (AsSelect<M, DB>, AsSelect<Author, DB>),
>;

/// For one order (`$model`) on one backend: the join, a page, the requests of the first page
/// and the page at a depth, and the statement after a cursor.
macro_rules! order_pages {
    ($order:ident, $model:ty, $db:ty, $conn:ty) => {
        /// The pages of one order.
        pub mod $order {
            use super::*;

            /// The join, selecting the post as the order's model and its author.
            pub fn join() -> Join<$model, $db> {
                let join = bench_join_posts::table.inner_join(bench_authors::table);
                join.select((<$model>::as_select(), Author::as_select()))
            }

            /// A page in the order.
            pub fn page(conn: &mut $conn, request: &PageRequest) -> Page<($model, Author)> {
                let query = join().paginate(request).expect("a valid request");
                query.load_page(conn).expect("the page loads")
            }

            /// The requests for the first page and the page at `depth` (a multiple of
            /// [`PAGE`]: `after` the `next_cursor` of the page before it), and the cursor
            /// that page seeks from.
            pub fn requests(
                conn: &mut $conn,
                depth: i64,
            ) -> ([PageRequest; 2], <$model as Keyset>::Cursor) {
                let number = (depth / i64::from(PAGE)) as u32;
                let before = page(conn, &PageRequest::page_number(number, PAGE));
                let cursor = before.items.last().expect("a page before the depth").0.cursor();
                let after = PageRequest::after(before.next_cursor.expect("a page follows"), PAGE);
                ([PageRequest::first(PAGE), after], cursor)
            }

            /// The statement of the page after `cursor`, as one predicate (on SQLite a page
            /// runs it one tie level at a time, and on MariaDB the grouped order's one author
            /// at a time; the test suite's `joins_plan.rs` explains each), for its plan.
            pub fn query(cursor: &<$model as Keyset>::Cursor) -> impl QueryFragment<$db> {
                join().filter(<$model>::after(cursor)).order(<$model>::order_by()).limit(FETCH)
            }
        }
    };
}

/// The same functions for each backend, on its concrete connection type (see `crate::pages`).
macro_rules! backend_join_pages {
    ($(#[$attr:meta])* $module:ident, $db:ty, $conn:ty) => {
        $(#[$attr])*
        pub mod $module {
            use super::*;

            order_pages!(own, JoinPost, $db, $conn);
            order_pages!(grouped, PostByAuthorGroup, $db, $conn);
            order_pages!(by_author, PostByAuthor, $db, $conn);
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
