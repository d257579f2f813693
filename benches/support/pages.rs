//! The pages the depth bench times, all loading the same 20-row page of [`Post`] (plus the one
//! probe row that says whether a next page exists):
//!
//! - `keyset_page`: keyset through the public API, as an application runs it: decode the
//!   request's token, run the query, encode the next and previous tokens;
//! - `keyset_query`: the query alone, built from [`Keyset::after`] and [`Keyset::order_by`],
//!   given the decoded cursor (what the API costs beyond its SQL);
//! - `offset_query`: `LIMIT 21 OFFSET depth` with the same ORDER BY;
//! - `or_bound_query` and (PostgreSQL) `row_value_query`: the page as a Diesel expert writes
//!   it by hand, with Diesel's own DSL and without this crate, in the shape that seeks best on each
//!   engine;
//! - `pk_query`: `WHERE id < ? ORDER BY id DESC LIMIT 21`, one seek on the primary key: the
//!   closest thing to the physical limit of an index seek.

use chrono::NaiveDateTime;
use diesel::dsl::{self, AsSelect, Desc, Filter, Limit, Offset, Order, Select};
use diesel::prelude::*;
use diesel::query_dsl::LoadQuery;
// The predicate's and the ORDER BY's types, which the public API leaves unnamed: named here so
// that the query type below can be written out.
use keyset_runtime::__testing::sql::{Forward, OrderBy, Seek};
use keyset_runtime::{Keyset, Page, PageRequest, Paginate};

use crate::schema::bench_posts::{self, created_at, id};
use crate::schema::{Post, PostCursor};

/// Rows per page.
pub const PAGE: u32 = 20;

/// The rows a query fetches: a page and the probe row.
pub const FETCH: i64 = PAGE as i64 + 1;

/// `SELECT <Post's columns> FROM bench_posts`.
pub type AllPosts<DB> = Select<bench_posts::table, AsSelect<Post, DB>>;

/// The keyset query for the page after a cursor, without tokens.
pub type KeysetQuery<DB> =
    Limit<Order<Filter<AllPosts<DB>, Seek<Post, Forward>>, OrderBy<Post, Forward>>>;

/// The ORDER BY written by hand: `created_at DESC, id DESC`.
pub type HandOrder = (Desc<created_at>, Desc<id>);

/// `... ORDER BY created_at DESC, id DESC LIMIT 21 OFFSET depth`.
pub type OffsetQuery<DB> = Offset<Limit<Order<AllPosts<DB>, HandOrder>>>;

/// The OR expansion with a leading bound, by hand:
/// `created_at <= ? AND (created_at < ? OR (created_at = ? AND id < ?))`.
pub type OrBound = dsl::And<
    dsl::LtEq<created_at, NaiveDateTime>,
    dsl::Or<
        dsl::Lt<created_at, NaiveDateTime>,
        dsl::And<dsl::Eq<created_at, NaiveDateTime>, dsl::Lt<id, i64>>,
    >,
>;

/// The expert's page on SQLite and MariaDB: [`OrBound`], the ORDER BY, `LIMIT 21`.
pub type OrBoundQuery<DB> = Limit<Order<Filter<AllPosts<DB>, OrBound>, HandOrder>>;

/// `... WHERE id < ? ORDER BY id DESC LIMIT 21`: one seek on the primary key.
pub type PkQuery<DB> = Limit<Order<Filter<AllPosts<DB>, dsl::Lt<id, i64>>, Desc<id>>>;

fn hand_order() -> HandOrder {
    (created_at.desc(), id.desc())
}

fn or_bound(cursor: &PostCursor) -> OrBound {
    let (at, last) = (cursor.created_at, cursor.id);
    created_at.le(at).and(created_at.lt(at).or(created_at.eq(at).and(id.lt(last))))
}

/// Runs a query that loads posts; panics on a database error (a benchmark has no other answer).
pub fn load<C, Q>(conn: &mut C, query: Q) -> Vec<Post>
where
    C: Connection,
    Q: LoadQuery<'static, C, Post> + RunQueryDsl<C>,
{
    query.load(conn).expect("the page loads")
}

/// The same functions for each backend, on its concrete connection type (written once here:
/// generic over the backend, each would need a where-clause per query-builder step).
macro_rules! backend_pages {
    ($(#[$attr:meta])* $module:ident, $db:ty, $conn:ty) => {
        $(#[$attr])*
        pub mod $module {
            use super::*;

            type DB = $db;

            /// `SELECT <Post's columns> FROM bench_posts`.
            pub fn all() -> AllPosts<DB> {
                bench_posts::table.select(Post::as_select())
            }

            /// Keyset through the public API: `paginate(request)` then `load_page`.
            pub fn keyset_page(conn: &mut $conn, request: &PageRequest) -> Page<Post> {
                all().paginate(request).expect("a valid request").load_page(conn).expect("the page loads")
            }

            /// The keyset query for the page after `cursor`, without tokens.
            pub fn keyset_query(cursor: &PostCursor) -> KeysetQuery<DB> {
                all().filter(Post::after(cursor)).order(Post::order_by()).limit(FETCH)
            }

            /// `... ORDER BY created_at DESC, id DESC LIMIT 21 OFFSET depth`.
            pub fn offset_query(depth: i64) -> OffsetQuery<DB> {
                all().order(hand_order()).limit(FETCH).offset(depth)
            }

            /// The expert's page on SQLite and MariaDB: [`OrBound`], the ORDER BY, `LIMIT 21`.
            pub fn or_bound_query(cursor: &PostCursor) -> OrBoundQuery<DB> {
                all().filter(or_bound(cursor)).order(hand_order()).limit(FETCH)
            }

            /// `... WHERE id < ? ORDER BY id DESC LIMIT 21`.
            pub fn pk_query(below: i64) -> PkQuery<DB> {
                all().filter(id.lt(below)).order(id.desc()).limit(FETCH)
            }

            /// The cursor of the row at `depth` in the model's order.
            pub fn cursor_at(conn: &mut $conn, depth: i64) -> PostCursor {
                let row: Post = all()
                    .order(hand_order())
                    .limit(1)
                    .offset(depth)
                    .get_result(conn)
                    .expect("a row at that depth");
                row.cursor()
            }
        }
    };
}

backend_pages!(sqlite, diesel::sqlite::Sqlite, diesel::SqliteConnection);
backend_pages!(
    #[cfg(feature = "postgres")]
    postgres,
    diesel::pg::Pg,
    diesel::PgConnection
);
backend_pages!(
    #[cfg(feature = "mysql")]
    mysql,
    diesel::mysql::Mysql,
    diesel::MysqlConnection
);

#[cfg(feature = "postgres")]
pub mod row {
    use diesel::sql_types::{BigInt, Timestamp};

    diesel::define_sql_function! {
        /// PostgreSQL's row constructor: `ROW(a, b) < ROW(?, ?)` compares the pairs in order.
        #[sql_name = "ROW"]
        fn row(created_at: Timestamp, id: BigInt) -> Record<(Timestamp, BigInt)>;
    }
}

/// The expert's page on PostgreSQL: a row-value comparison, `ROW(created_at, id) < ROW(?, ?)`,
/// with Diesel's `define_sql_function!`.
#[cfg(feature = "postgres")]
pub fn row_value_query(cursor: &PostCursor) -> RowValueQuery {
    postgres::all()
        .filter(row::row(created_at, id).lt(row::row(cursor.created_at, cursor.id)))
        .order(hand_order())
        .limit(FETCH)
}

/// The type of [`row_value_query`]: named, so that the sync and the async bench both load it.
#[cfg(feature = "postgres")]
pub type RowValueQuery = Limit<
    Order<
        Filter<
            AllPosts<diesel::pg::Pg>,
            dsl::Lt<row::row<created_at, id>, row::row<NaiveDateTime, i64>>,
        >,
        HandOrder,
    >,
>;

/// `<query> LIMIT 21` with the limit written into the SQL, as an expert writes it by hand to get
/// PostgreSQL's generic plans (Diesel's `.limit()` binds it: `LIMIT $3`, which the server never
/// plans generically). The SQL holds a value, so the statement has no static `QueryId`: Diesel
/// caches it by its text.
#[cfg(feature = "postgres")]
pub struct LiteralLimit<Q>(Q, i64);

#[cfg(feature = "postgres")]
impl<Q> LiteralLimit<Q> {
    /// `<query> LIMIT <limit>`, the limit written into the SQL.
    pub fn new(query: Q, limit: i64) -> Self {
        LiteralLimit(query, limit)
    }
}

#[cfg(feature = "postgres")]
impl<Q: diesel::query_builder::Query> diesel::query_builder::Query for LiteralLimit<Q> {
    type SqlType = Q::SqlType;
}

#[cfg(feature = "postgres")]
impl<Q> diesel::query_builder::QueryId for LiteralLimit<Q> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

#[cfg(feature = "postgres")]
impl<Q: diesel::query_builder::QueryFragment<diesel::pg::Pg>>
    diesel::query_builder::QueryFragment<diesel::pg::Pg> for LiteralLimit<Q>
{
    fn walk_ast<'b>(
        &'b self,
        mut out: diesel::query_builder::AstPass<'_, 'b, diesel::pg::Pg>,
    ) -> QueryResult<()> {
        self.0.walk_ast(out.reborrow())?;
        out.push_sql(&format!(" LIMIT {}", self.1));
        Ok(())
    }
}

#[cfg(feature = "postgres")]
impl<Q, C> RunQueryDsl<C> for LiteralLimit<Q> {}

/// The expert's row-value page with a literal `LIMIT 21` ([`LiteralLimit`]).
#[cfg(feature = "postgres")]
pub fn row_value_literal_query(cursor: &PostCursor) -> RowValueLiteralQuery {
    let page = postgres::all()
        .filter(row::row(created_at, id).lt(row::row(cursor.created_at, cursor.id)))
        .order(hand_order());
    LiteralLimit(page, FETCH)
}

/// The type of [`row_value_literal_query`].
#[cfg(feature = "postgres")]
pub type RowValueLiteralQuery = LiteralLimit<
    Order<
        Filter<
            AllPosts<diesel::pg::Pg>,
            dsl::Lt<row::row<created_at, id>, row::row<NaiveDateTime, i64>>,
        >,
        HandOrder,
    >,
>;
