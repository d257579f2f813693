//! What the feeds bench runs on each engine: its connection (the table built on the first run),
//! the API page, the naive page and the expert's hand-written forms
//! (`keyset_benches::feed_pages`).

use diesel::prelude::*;
use keyset_benches::feed_pages::{self, Hand, Union};
use keyset_benches::feed_seed::{self, bench_feed, FeedPost, FeedPostCursor};
use keyset_benches::pages::FETCH;
use keyset_runtime::{Keyset, Page, PageRequest, Paginate};

/// A page of the set after the cursor (or the first), as rows.
pub type Form<C> = fn(&mut C, &[i64], Option<&FeedPostCursor>) -> Vec<FeedPost>;

/// One engine's connection and pages.
pub struct Backend<C> {
    pub name: &'static str,
    pub conn: C,
    pub api: fn(&mut C, &[i64], &PageRequest) -> Page<FeedPost>,
    pub naive: Form<C>,
    /// The expert's forms: the per-author one first, then the recursive CTE (PostgreSQL) or the
    /// same union sorted outside (SQLite), then the per-author seeks of keys only, joined back
    /// to their 21 rows.
    pub forms: Vec<(&'static str, Form<C>)>,
}

/// The API page, the naive page and a hand-written statement's rows on connection `$conn`.
macro_rules! pages {
    ($conn:ty) => {
        fn api(conn: &mut $conn, set: &[i64], request: &PageRequest) -> Page<FeedPost> {
            bench_feed::table
                .select(FeedPost::as_select())
                .among(bench_feed::author_id, set.to_vec())
                .paginate(request)
                .expect("a valid request")
                .load_page(conn)
                .expect("the API page")
        }

        fn naive(conn: &mut $conn, set: &[i64], cursor: Option<&FeedPostCursor>) -> Vec<FeedPost> {
            let query = bench_feed::table
                .select(FeedPost::as_select())
                .filter(bench_feed::author_id.eq_any(set.to_vec()));
            match cursor {
                None => query.order(FeedPost::order_by()).limit(FETCH).load(conn),
                Some(cursor) => query
                    .filter(FeedPost::after(cursor))
                    .order(FeedPost::order_by())
                    .limit(FETCH)
                    .load(conn),
            }
            .expect("the naive page")
        }

        #[allow(dead_code)]
        fn hand(conn: &mut $conn, statement: Hand) -> Vec<FeedPost> {
            statement.load(conn).expect("the hand-written page")
        }
    };
}

const PER_AUTHOR_UNION: &str = "UNION ALL of one seek per author";
const KEYS_UNION: &str = "UNION ALL of one seek per author, keys only, 21 rows joined by id";

pub fn sqlite() -> Backend<SqliteConnection> {
    pages!(SqliteConnection);
    Backend {
        name: "SQLite",
        conn: feed_seed::sqlite(),
        api,
        naive,
        forms: vec![
            (PER_AUTHOR_UNION, |conn, set, cursor| {
                hand(conn, feed_pages::union_all(Union::Sqlite, set, cursor, false))
            }),
            ("UNION ALL of one seek per author, sorted outside", |conn, set, cursor| {
                hand(conn, feed_pages::union_all(Union::SqliteSortedOutside, set, cursor, false))
            }),
            (KEYS_UNION, |conn, set, cursor| {
                hand(conn, feed_pages::union_all(Union::Sqlite, set, cursor, true))
            }),
        ],
    }
}

#[cfg(feature = "postgres")]
pub fn postgres() -> Backend<PgConnection> {
    pages!(PgConnection);
    let url = keyset_benches::database_url("PG_DATABASE_URL", keyset_benches::POSTGRES_URL);
    Backend {
        name: "PostgreSQL",
        conn: feed_seed::postgres(&url),
        api,
        naive,
        forms: vec![
            ("LATERAL over unnest($1), one seek per author", |conn, set, cursor| {
                hand(conn, feed_pages::pg_lateral(set, cursor, false))
            }),
            ("recursive CTE (GitLab's IN-operator form)", |conn, set, cursor| {
                hand(conn, feed_pages::pg_recursive(set, cursor))
            }),
            ("LATERAL over unnest($1), keys only, 21 rows joined by id", |conn, set, cursor| {
                hand(conn, feed_pages::pg_lateral(set, cursor, true))
            }),
        ],
    }
}

#[cfg(feature = "mysql")]
pub fn mysql() -> Backend<MysqlConnection> {
    pages!(MysqlConnection);
    let url = keyset_benches::database_url("MYSQL_DATABASE_URL", keyset_benches::MYSQL_URL);
    Backend {
        name: "MariaDB",
        conn: feed_seed::mysql(&url),
        api,
        naive,
        forms: vec![
            (PER_AUTHOR_UNION, |conn, set, cursor| {
                hand(conn, feed_pages::union_all(Union::Mysql, set, cursor, false))
            }),
            (KEYS_UNION, |conn, set, cursor| {
                hand(conn, feed_pages::union_all(Union::Mysql, set, cursor, true))
            }),
        ],
    }
}
