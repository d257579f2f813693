//! What the orders bench runs on each engine: an order's pages ([`Order`]) and a backend's
//! connection, orders and primary-key page ([`Backend`]), from `keyset_benches::order_pages`.

use keyset_benches::measure::Target;
use keyset_benches::order_async::{self, Pages};
use keyset_benches::order_pages::{self as pages, Candidate};
use keyset_benches::order_seed;
use keyset_benches::schema::{Newest, NewestOldId, Published};
use keyset_runtime::{Keyset, Page, PageRequest};

/// One order's pages on a backend whose connection is `C`.
pub struct Order<C, M: Keyset> {
    pub name: &'static str,
    /// Whether the leading key is nullable (the drafts follow the values).
    pub nullable: bool,
    pub page: fn(&mut C, &PageRequest) -> Page<M>,
    /// The same page in the run-time order of the same keys (`paginate_by`): its rows' ids.
    pub named: fn(&mut C, &PageRequest) -> Vec<i64>,
    pub window: fn(&mut C, i64, i64) -> Vec<M>,
    pub ties: fn(&M, &M) -> bool,
    pub id: fn(&M) -> i64,
    pub candidates: fn(&M::Cursor) -> Vec<Candidate<C>>,
    pub expert_shape: &'static str,
    pub expert: fn(&mut C, &M::Cursor) -> Vec<M>,
    pub expert_candidate: fn(&M::Cursor) -> Candidate<C>,
    /// PostgreSQL: the expert's page with a literal `LIMIT`.
    pub literal: Option<Literal<C, M>>,
    /// The API page through the async path (`load_page_async`), where the build has it.
    pub asynchronous: Pages<M>,
}

/// The expert's page with a literal `LIMIT`, and its statement.
pub type Literal<C, M> =
    (fn(&mut C, &<M as Keyset>::Cursor) -> Vec<M>, fn(&<M as Keyset>::Cursor) -> Candidate<C>);

/// One engine: its connection, its three orders, and its primary-key page.
pub struct Backend<C> {
    pub name: &'static str,
    pub conn: C,
    pub newest: Order<C, Newest>,
    pub mixed: Order<C, NewestOldId>,
    pub published: Order<C, Published>,
    pub pk: fn(&mut C, i64) -> usize,
    pub pk_candidate: fn(i64) -> Candidate<C>,
    /// The most the API page may cost, as a ratio of the expert's bound-`LIMIT` page.
    pub expert_target: f64,
    /// What the async page may cost, as a ratio of the sync one.
    pub async_target: Target,
}

/// The [`Order`] of `$pages::$module` (a backend's module in `order_pages` and an order's in it).
macro_rules! order {
    ($pages:ident, $module:ident, $name:expr, $shape:expr, $literal:expr, $async:expr) => {
        Order {
            name: $name,
            nullable: $name == NULLABLE,
            page: $pages::$module::page,
            named: $pages::$module::named,
            window: $pages::$module::window,
            ties: $pages::$module::ties,
            id: |row| row.id,
            candidates: $pages::$module::candidates,
            expert_shape: $shape,
            expert: $pages::$module::expert,
            expert_candidate: $pages::$module::expert_candidate,
            literal: $literal,
            asynchronous: $async,
        }
    };
}

const UNIFORM: &str = "uniform (created_at DESC, id DESC)";
const MIXED: &str = "mixed (created_at DESC, id ASC)";
const NULLABLE: &str = "nullable leading (published_at DESC NULLS LAST, id DESC)";
const OR_BOUND: &str = "OR + leading bound";
const DRAFTS: &str = "published_at IS NULL AND id < ?";

pub fn sqlite() -> Backend<diesel::SqliteConnection> {
    use pages::sqlite;
    // The sync connection first, on every backend: it builds the table on the first run.
    let conn = order_seed::sqlite();
    let asynchronous = order_async::sqlite();
    Backend {
        name: "SQLite",
        conn,
        newest: order!(sqlite, newest, UNIFORM, OR_BOUND, None, asynchronous.newest),
        mixed: order!(sqlite, mixed, MIXED, OR_BOUND, None, asynchronous.mixed),
        published: order!(sqlite, published, NULLABLE, DRAFTS, None, asynchronous.published),
        pk: sqlite::pk,
        pk_candidate: |below| sqlite::candidate("primary-key page", sqlite::pk_query(below)),
        expert_target: 1.0,
        // `SyncConnectionWrapper` hands every statement to one of tokio's blocking threads and
        // waits for it: a thread hop per statement that is diesel-async's, not keyset's.
        // Reported beside the sync page, with no target.
        async_target: Target::None,
    }
}

#[cfg(feature = "postgres")]
pub fn postgres() -> Backend<diesel::PgConnection> {
    use pages::postgres;
    use pages::postgres_literal as literal;
    let url = keyset_benches::database_url("PG_DATABASE_URL", keyset_benches::POSTGRES_URL);
    let conn = order_seed::postgres(&url);
    let asynchronous = order_async::postgres(&url);
    Backend {
        name: "PostgreSQL",
        conn,
        newest: order!(
            postgres,
            newest,
            UNIFORM,
            "row value",
            Some((literal::newest, literal::newest_candidate)),
            asynchronous.newest
        ),
        mixed: order!(
            postgres,
            mixed,
            MIXED,
            OR_BOUND,
            Some((literal::mixed, literal::mixed_candidate)),
            asynchronous.mixed
        ),
        published: order!(
            postgres,
            published,
            NULLABLE,
            DRAFTS,
            Some((literal::published, literal::published_candidate)),
            asynchronous.published
        ),
        pk: postgres::pk,
        pk_candidate: |below| postgres::candidate("primary-key page", postgres::pk_query(below)),
        // Issue 17's goal: the API's literal LIMIT gets generic plans, Diesel's bound one never.
        expert_target: 0.85,
        async_target: Target::AtMost(1.05),
    }
}

#[cfg(feature = "mysql")]
pub fn mysql() -> Backend<diesel::MysqlConnection> {
    use pages::mysql;
    let url = keyset_benches::database_url("MYSQL_DATABASE_URL", keyset_benches::MYSQL_URL);
    let conn = order_seed::mysql(&url);
    let asynchronous = order_async::mysql(&url);
    Backend {
        name: "MariaDB",
        conn,
        newest: order!(mysql, newest, UNIFORM, OR_BOUND, None, asynchronous.newest),
        mixed: order!(mysql, mixed, MIXED, OR_BOUND, None, asynchronous.mixed),
        published: order!(mysql, published, NULLABLE, DRAFTS, None, asynchronous.published),
        pk: mysql::pk,
        pk_candidate: |below| mysql::candidate("primary-key page", mysql::pk_query(below)),
        expert_target: 1.0,
        async_target: Target::AtMost(1.05),
    }
}
