//! The pages the orders bench times, over `bench_orders` ([`crate::order_seed`]), in three orders:
//! [`Newest`] (uniform directions), [`NewestOldId`] (mixed) and [`Published`] (a nullable leading
//! key). For each order and backend:
//!
//! - `page`: keyset through the public API (`paginate` + `load_page`, tokens included);
//! - `named`: the same page in the run-time order of the same keys ([`Listing`]'s, through
//!   `paginate_by`), with the same token;
//! - `window`: rows in the model's order by `LIMIT/OFFSET`, which say where the cursors are and
//!   what each page must return;
//! - `expert`: the page as a Diesel user writes it by hand for that order, `.limit(21)` bound:
//!   a row value on PostgreSQL for uniform directions, else the OR expansion with its leading
//!   bound (no row value can express mixed directions), and `published_at IS NULL AND id < ?`
//!   after a draft (ordered by `id DESC` alone on MariaDB, which sorts otherwise);
//! - `candidates`: every statement a page of the order may run at a cursor (the first page, the
//!   single predicate, each tie level or each NULL region), SQL beside its plan check, to which
//!   [`recorded`]'s statements are matched.
//!
//! On PostgreSQL, [`postgres_literal`] gives each expert page with its `LIMIT` written into the SQL.

use std::sync::{Arc, Mutex};

use chrono::NaiveDateTime;
use diesel::connection::{Instrumentation, InstrumentationEvent};
use diesel::dsl::{self, Asc, Desc};
use diesel::prelude::*;
use keyset_runtime::__testing::sql::Region;
use keyset_runtime::__testing::sql::{OneSide, SeekParts};
use keyset_runtime::__testing::token;
use keyset_runtime::explain::PlanError;
use keyset_runtime::{Direction, Keyset, PageRequest};

use crate::pages::{FETCH, PAGE};
use crate::schema::bench_orders::{self, created_at, id, published_at};
use crate::schema::{
    Listing, ListingOrder, Newest, NewestCursor, NewestOldId, NewestOldIdCursor, Published,
    PublishedCursor,
};

/// A statement's plan check on a connection of type `C`.
pub type Explain<C> = Box<dyn Fn(&mut C) -> Result<Vec<String>, PlanError>>;

/// A statement a page may run, as Diesel shows it ([`sql_only`]), and its plan check.
pub struct Candidate<C> {
    /// What the statement is: `first page`, `tie level 2`, `NULL region: cursor's`, ...
    pub name: String,
    pub sql: String,
    pub explain: Explain<C>,
}

/// A statement without its bound values, with each `LIMIT` as a placeholder and PostgreSQL's
/// parameters unnumbered: a page writes its limits literally on PostgreSQL, where the candidates,
/// written with Diesel's `.limit()`, bind them.
pub fn sql_only(statement: &str) -> String {
    keyset_runtime::__testing::sql::shape(statement)
}

/// Runs `load` on `conn` and returns what it returned and the statements it ran, as Diesel's
/// instrumentation shows them (SQL and bound values).
pub fn recorded<C: Connection, R>(
    conn: &mut C,
    load: impl FnOnce(&mut C) -> R,
) -> (R, Vec<String>) {
    let log = Arc::new(Mutex::new(Vec::new()));
    conn.set_instrumentation(recorder(&log));
    let loaded = load(conn);
    conn.set_instrumentation(None::<Box<dyn Instrumentation>>);
    let statements = log.lock().expect("the statement log").clone();
    (loaded, statements)
}

/// An instrumentation that appends every statement a connection starts to `log`, as Diesel shows
/// it (SQL and bound values); diesel-async's connections take it too.
pub fn recorder(log: &Arc<Mutex<Vec<String>>>) -> impl Instrumentation {
    let sink = Arc::clone(log);
    move |event: InstrumentationEvent<'_>| {
        if let InstrumentationEvent::StartQuery { query, .. } = event {
            sink.lock().expect("the statement log").push(query.to_string());
        }
    }
}

/// The request for the page after `cursor`, as the previous page's `next_cursor` would be.
pub fn after<M: Keyset>(cursor: &M::Cursor) -> PageRequest {
    let token = token::encode(M::FINGERPRINT, Direction::After, cursor).expect("a token");
    PageRequest::after(token, PAGE)
}

/// `created_at <= ? AND (created_at < ? OR (created_at = ? AND id < ?))`.
pub type UniformOr = dsl::And<
    dsl::LtEq<created_at, NaiveDateTime>,
    dsl::Or<
        dsl::Lt<created_at, NaiveDateTime>,
        dsl::And<dsl::Eq<created_at, NaiveDateTime>, dsl::Lt<id, i64>>,
    >,
>;

/// `created_at <= ? AND (created_at < ? OR (created_at = ? AND id > ?))`.
pub type MixedOr = dsl::And<
    dsl::LtEq<created_at, NaiveDateTime>,
    dsl::Or<
        dsl::Lt<created_at, NaiveDateTime>,
        dsl::And<dsl::Eq<created_at, NaiveDateTime>, dsl::Gt<id, i64>>,
    >,
>;

/// `published_at IS NULL AND id < ?`: past a draft, the drafts with smaller ids.
pub type DraftsAfter = dsl::And<dsl::IsNull<published_at>, dsl::Lt<id, i64>>;

/// The expert's predicate for uniform directions on SQLite and MariaDB.
pub fn uniform_or(cursor: &NewestCursor) -> UniformOr {
    let (at, last) = (cursor.created_at, cursor.id);
    created_at.le(at).and(created_at.lt(at).or(created_at.eq(at).and(id.lt(last))))
}

/// The expert's predicate for mixed directions, on every backend.
pub fn mixed_or(cursor: &NewestOldIdCursor) -> MixedOr {
    let (at, last) = (cursor.created_at, cursor.id);
    created_at.le(at).and(created_at.lt(at).or(created_at.eq(at).and(id.gt(last))))
}

/// The expert's predicate past a draft (the deepest cursor of [`Published`] is one).
pub fn drafts_after(cursor: &PublishedCursor) -> DraftsAfter {
    assert!(cursor.published_at.is_none(), "the expert's page is written for a draft's cursor");
    published_at.is_null().and(id.lt(cursor.id))
}

pub fn uniform_order() -> (Desc<created_at>, Desc<id>) {
    (created_at.desc(), id.desc())
}

pub fn mixed_order() -> (Desc<created_at>, Asc<id>) {
    (created_at.desc(), id.asc())
}

/// `published_at DESC, id DESC`: NULLs last is SQLite's own placement.
pub fn published_order() -> (Desc<published_at>, Desc<id>) {
    (published_at.desc(), id.desc())
}

/// `id DESC`: the expert's ORDER BY past a draft on MariaDB, which sorts the rows it read for
/// `published_at DESC, id DESC` even where `published_at IS NULL` holds for all of them
/// (EXPLAIN: `Using filesort`), and reads them in index order for `id DESC` alone.
pub fn drafts_order() -> Desc<id> {
    id.desc()
}

/// The statements of a page at a cursor: each tie level.
macro_rules! levels {
    ($model:ident, $cursor:expr, $all:expr) => {{
        let keys = <$model as Keyset>::key_lengths($cursor).len();
        let level = |level| {
            let seek = $model::after($cursor).level(level);
            $all.filter(seek).order($model::order_by().one_side()).limit(FETCH)
        };
        let mut levels: Vec<_> =
            (1..=keys).map(|k| candidate(&format!("tie level {k}"), level(k))).collect();
        // All of them in one statement, their union (PostgreSQL, mixed directions).
        if let Some(names) = <$model as Keyset>::SELECTED_NAMES {
            let branches = (1..=keys).rev().map(level).collect();
            let order = $model::order_by().one_side();
            let union = keyset_runtime::__testing::sql::union(branches, order, names, FETCH);
            levels.push(candidate("tie levels' union", union));
        }
        levels
    }};
}

/// The statements of a page at a cursor of a model with a nullable leading key: each NULL
/// region, under the ORDER BY with and without its placement pinned; and the tie levels that
/// SQLite seeks among the values.
macro_rules! regions {
    ($model:ident, $cursor:expr, $all:expr) => {{
        let mut all = levels!($model, $cursor, $all);
        for (region, which) in [(Region::Cursor, "cursor's"), (Region::Next, "next")] {
            let seek = $model::after($cursor).region(region);
            let order = $model::order_by().one_side();
            let name = format!("NULL region: the {which}");
            all.push(candidate(&name, $all.filter(seek.clone()).order(order).limit(FETCH)));
            let order = $model::order_by();
            all.push(candidate(&name, $all.filter(seek).order(order).limit(FETCH)));
        }
        all
    }};
}

/// One order's pages on one backend (inside [`backend_pages!`]'s module).
macro_rules! model_pages {
    ($name:ident, $model:ident, $cursor:ident, $leading:ident, $filter:path, $order:path, $more:ident, $named:ident) => {
        pub mod $name {
            use super::*;

            /// `SELECT <the model's columns> FROM bench_orders`.
            pub type All = dsl::Select<bench_orders::table, dsl::AsSelect<$model, DB>>;

            pub fn all() -> All {
                bench_orders::table.select($model::as_select())
            }

            /// Keyset through the public API.
            pub fn page(conn: &mut Conn, request: &PageRequest) -> keyset_runtime::Page<$model> {
                use keyset_runtime::Paginate;
                all()
                    .paginate(request)
                    .expect("a valid request")
                    .load_page(conn)
                    .expect("the page loads")
            }

            /// The same page through the run-time order of the same keys: the ids of its rows.
            pub fn named(conn: &mut Conn, request: &PageRequest) -> Vec<i64> {
                use keyset_runtime::Paginate;
                let page = bench_orders::table
                    .select(Listing::as_select())
                    .paginate_by(ListingOrder::$named, None, request)
                    .expect("a valid request")
                    .load_page(conn)
                    .expect("the page loads");
                page.items.iter().map(|row| row.id).collect()
            }

            /// `rows` rows in the model's order from `offset` on, by `LIMIT/OFFSET`.
            pub fn window(conn: &mut Conn, offset: i64, rows: i64) -> Vec<$model> {
                let query = all().order($model::order_by()).limit(rows).offset(offset);
                query.load(conn).expect("the rows load")
            }

            /// Whether two rows tie on the leading key (two drafts do: the NULL region).
            pub fn ties(a: &$model, b: &$model) -> bool {
                a.$leading == b.$leading
            }

            /// The expert's page after `cursor`, `LIMIT` bound.
            pub fn expert(conn: &mut Conn, cursor: &$cursor) -> Vec<$model> {
                all()
                    .filter($filter(cursor))
                    .order($order())
                    .limit(FETCH)
                    .load(conn)
                    .expect("the page loads")
            }

            /// The expert's statement and its plan check.
            pub fn expert_candidate(cursor: &$cursor) -> Candidate<Conn> {
                candidate("expert page", all().filter($filter(cursor)).order($order()).limit(FETCH))
            }

            /// Every statement a page may run at `cursor`, the first page's included. The levels
            /// and regions come before the single predicate, which a page past a NULL cursor
            /// equals on PostgreSQL, so that a statement is named for what the page ran.
            pub fn candidates(cursor: &$cursor) -> Vec<Candidate<Conn>> {
                let mut all_ =
                    vec![candidate("first page", all().order($model::order_by()).limit(FETCH))];
                all_.extend($more!($model, cursor, all()));
                all_.push(candidate(
                    "single predicate",
                    all().filter($model::after(cursor)).order($model::order_by()).limit(FETCH),
                ));
                all_
            }
        }
    };
}

/// The three orders' pages on one backend, and the bare primary-key page.
macro_rules! backend_pages {
    ($(#[$attr:meta])* $module:ident, $db:ty, $conn:ty, $seek:path, $uniform:path, $published:path) => {
        $(#[$attr])*
        pub mod $module {
            use super::*;
            use $seek as seek;

            pub type DB = $db;
            pub type Conn = $conn;

            /// A statement named `name`, as Diesel shows it, with its plan check.
            pub fn candidate<Q>(name: &str, query: Q) -> Candidate<Conn>
            where
                Q: diesel::query_builder::QueryFragment<DB> + 'static,
            {
                let sql = sql_only(&diesel::debug_query::<DB, _>(&query).to_string());
                Candidate { name: name.to_owned(), sql, explain: Box::new(move |conn| seek(&query, conn)) }
            }

            /// `... WHERE id < ? ORDER BY id DESC LIMIT 21`: one seek on the primary key.
            pub fn pk_query(below: i64) -> dsl::Limit<dsl::Order<dsl::Filter<newest::All, dsl::Lt<id, i64>>, Desc<id>>> {
                newest::all().filter(id.lt(below)).order(id.desc()).limit(FETCH)
            }

            pub fn pk(conn: &mut Conn, below: i64) -> usize {
                pk_query(below).load::<crate::schema::Newest>(conn).expect("the page loads").len()
            }

            model_pages!(newest, Newest, NewestCursor, created_at, $uniform, uniform_order, levels, Uniform);
            model_pages!(mixed, NewestOldId, NewestOldIdCursor, created_at, mixed_or, mixed_order, levels, Mixed);
            model_pages!(published, Published, PublishedCursor, published_at, drafts_after, $published, regions, Published);
        }
    };
}

backend_pages!(
    sqlite,
    diesel::sqlite::Sqlite,
    diesel::SqliteConnection,
    keyset_runtime::explain::sqlite_index_seek,
    uniform_or,
    published_order
);

backend_pages!(
    #[cfg(feature = "postgres")]
    postgres,
    diesel::pg::Pg,
    diesel::PgConnection,
    keyset_runtime::explain::postgres_index_seek,
    row_value,
    pg_published_order
);

backend_pages!(
    #[cfg(feature = "mysql")]
    mysql,
    diesel::mysql::Mysql,
    diesel::MysqlConnection,
    keyset_runtime::explain::mysql_index_seek,
    uniform_or,
    drafts_order
);

/// `ROW(created_at, id) < ROW(?, ?)`: the expert's predicate for uniform directions on
/// PostgreSQL, through the depth bench's `define_sql_function!`.
#[cfg(feature = "postgres")]
pub type RowValue =
    dsl::Lt<crate::pages::row::row<created_at, id>, crate::pages::row::row<NaiveDateTime, i64>>;

#[cfg(feature = "postgres")]
pub fn row_value(cursor: &NewestCursor) -> RowValue {
    use crate::pages::row::row;
    row(created_at, id).lt(row(cursor.created_at, cursor.id))
}

/// `published_at DESC NULLS LAST, id DESC`, PostgreSQL's index order (its own placement for
/// DESC is NULLS FIRST).
#[cfg(feature = "postgres")]
pub fn pg_published_order() -> (dsl::NullsLast<Desc<published_at>>, Desc<id>) {
    (published_at.desc().nulls_last(), id.desc())
}

/// The expert's pages on PostgreSQL with a literal `LIMIT 21`
/// ([`LiteralLimit`](crate::pages::LiteralLimit)), the shape that gets the server's generic plans.
#[cfg(feature = "postgres")]
pub mod postgres_literal {
    use super::*;
    use crate::pages::LiteralLimit;

    macro_rules! literal {
        ($name:ident, $plan:ident, $module:ident, $model:ident, $cursor:ident, $filter:path, $order:path) => {
            pub fn $name(conn: &mut PgConnection, cursor: &$cursor) -> Vec<$model> {
                let page = postgres::$module::all().filter($filter(cursor)).order($order());
                LiteralLimit::new(page, FETCH).load(conn).expect("the page loads")
            }

            pub fn $plan(cursor: &$cursor) -> Candidate<PgConnection> {
                let page = postgres::$module::all().filter($filter(cursor)).order($order());
                postgres::candidate("expert page, literal LIMIT", LiteralLimit::new(page, FETCH))
            }
        };
    }

    literal!(newest, newest_candidate, newest, Newest, NewestCursor, row_value, uniform_order);
    literal!(mixed, mixed_candidate, mixed, NewestOldId, NewestOldIdCursor, mixed_or, mixed_order);
    literal!(
        published,
        published_candidate,
        published,
        Published,
        PublishedCursor,
        drafts_after,
        pg_published_order
    );
}
