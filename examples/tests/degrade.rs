//! The web and GraphQL examples under faults, over loopback HTTP, on every database of the build:
//! a pool with no connection free answers `503` with `Retry-After` within its wait timeout (no
//! unbounded queue), a title the database cannot store is a `422`, a query string over the limit
//! a `414`, each in the service's own error shape.

mod common;

use std::future::Future;
use std::time::{Duration, Instant};

use diesel_async::pooled_connection::AsyncDieselConnectionManager;
use keyset_examples::db::Backend;
use keyset_examples::pool::{Manager, Pool, PoolKind, PoolOptions};
use keyset_examples::web::MAX_QUERY_LEN;
use keyset_examples::{graphql, web};
use keyset_runtime::http::problems;
use serde_json::{json, Value};

use common::{databases, Reply, Server};

/// The tests' pool: two connections, a short wait.
const POOL_SIZE: usize = 2;
const WAIT: Duration = Duration::from_millis(500);
/// How long past the wait an answer may take on a loaded CI machine; a queued request would
/// take for ever (it is cut off at [`HANG`]).
const SLACK: Duration = Duration::from_secs(3);
const HANG: Duration = Duration::from_secs(10);

/// Runs `probe` while every connection of `pool` is taken, then gives them back.
async fn while_held<C, F: Future>(pool: &Pool<C>, probe: F) -> F::Output
where
    C: diesel_async::AsyncConnection + 'static,
    AsyncDieselConnectionManager<C>: Manager<C>,
{
    let mut held = Vec::new();
    for _ in 0..POOL_SIZE {
        held.push(pool.get().await.expect("a free connection before the test takes them all"));
    }
    let output = probe.await;
    drop(held);
    output
}

/// `request`'s reply and how long it took; a request still waiting after [`HANG`] fails the test.
async fn timed(what: &str, request: impl Future<Output = Reply>) -> (Reply, Duration) {
    let started = Instant::now();
    match tokio::time::timeout(HANG, request).await {
        Ok(reply) => (reply, started.elapsed()),
        Err(_) => panic!("{what}: no answer in {HANG:?}: the request is queued without bound"),
    }
}

/// With every pool connection held (by the test, as by requests stuck on a locked table), a page
/// request is a `503` with `Retry-After: 1` after about the wait timeout, from the web service
/// (a problem, `application/problem+json`) and from GraphQL (`SERVICE_UNAVAILABLE`, no data); given the connections
/// back, both serve again. On deadpool and on bb8, on every database.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exhausted_pool_is_503_with_retry_after_within_the_wait() {
    for kind in [PoolKind::Deadpool, PoolKind::Bb8] {
        let options =
            PoolOptions { max_size: POOL_SIZE, kind, wait_timeout: WAIT, ..PoolOptions::default() };
        let test = format!("degrade_pool_{kind:?}").to_lowercase();
        for database in databases::all(&test, 20, options).await {
            let who = format!("{} on {kind:?}", database.name);
            let web = Server::start(web::router(database.db.clone())).await;
            let gql = Server::start(graphql::router(graphql::schema(database.db.clone()))).await;
            let query = json!({ "query": "{ posts(first: 2) { edges { cursor } } }" });
            let probe = async {
                let page = timed(&who, web.get("/posts?limit=2")).await;
                let connection = timed(&who, gql.post_json("/graphql", &query)).await;
                (page, connection)
            };
            let ((page, page_took), (connection, connection_took)) = match database.db.backend() {
                Backend::Sqlite(pool) => while_held(pool, probe).await,
                #[cfg(feature = "postgres")]
                Backend::Postgres(pool) => while_held(pool, probe).await,
                #[cfg(feature = "mysql")]
                Backend::Mysql(pool) => while_held(pool, probe).await,
            };

            assert_eq!(page.status, 503, "{who}: GET /posts: {}", page.body);
            assert_eq!(page.retry_after.as_deref(), Some("1"), "{who}: GET /posts");
            let (type_uri, detail) = page.problem();
            assert_eq!(type_uri, "about:blank", "{who}");
            assert!(detail.contains("busy"), "{who}: {}", page.body);
            for (what, took) in [("GET /posts", page_took), ("POST /graphql", connection_took)] {
                assert!(
                    took >= WAIT - Duration::from_millis(50) && took < WAIT + SLACK,
                    "{who}: {what} answered after {took:?}: the pool waits {WAIT:?} for a connection"
                );
            }

            assert_eq!(connection.status, 503, "{who}: POST /graphql: {}", connection.body);
            assert_eq!(connection.retry_after.as_deref(), Some("1"), "{who}: POST /graphql");
            let body = connection.json();
            assert_eq!(body["data"], Value::Null, "{who}: {body}");
            let extensions = &body["errors"][0]["extensions"];
            assert_eq!(extensions["code"], "SERVICE_UNAVAILABLE", "{who}: {body}");
            assert_eq!(extensions["retryAfter"], 1, "{who}: {body}");

            assert_eq!(web.get("/posts?limit=2").await.status, 200, "{who}: served again");
            let again = gql.post_json("/graphql", &query).await;
            assert_eq!(again.status, 200, "{who}: {}", again.body);
            assert_eq!(again.json()["data"]["posts"]["edges"].as_array().map(Vec::len), Some(2));
        }
    }
}

/// The case on the servers: the table locked by another session (PostgreSQL's
/// `LOCK TABLE .. IN ACCESS EXCLUSIVE MODE` in an open transaction, MariaDB's `LOCK TABLES ..
/// WRITE`). The request that holds the pool's one connection waits for the lock in the database;
/// the next is a `503` with `Retry-After` after the pool's wait, not queued behind it. Once the
/// lock is released, the first is served. (SQLite's WAL readers wait for no lock: the test above
/// holds its connections instead.)
#[cfg(any(feature = "postgres", feature = "mysql"))]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_locked_table_is_503_past_the_pool_not_a_queue() {
    let options = PoolOptions { max_size: 1, wait_timeout: WAIT, ..PoolOptions::default() };
    for database in databases::all("degrade_lock", 20, options).await {
        let Some(url) = database.url.as_deref() else { continue };
        let who = &database.name;
        let mut lock = locks::Lock::take(url).await;
        let web = Server::start(web::router(database.db.clone())).await;
        let client = web.client();
        let stuck = tokio::spawn(async move { client.get("/posts?limit=2").await });
        lock.wait_for_a_waiter(who).await;

        let (reply, took) = timed(who, web.get("/posts?limit=2")).await;
        assert_eq!(reply.status, 503, "{who}: {}", reply.body);
        assert_eq!(reply.retry_after.as_deref(), Some("1"), "{who}");
        assert!(took < WAIT + SLACK, "{who}: answered after {took:?}, the wait is {WAIT:?}");

        lock.release().await;
        let served = tokio::time::timeout(HANG, stuck).await.expect("served once unlocked");
        let served = served.expect("no panic");
        assert_eq!(served.status, 200, "{who}: the request that waited: {}", served.body);
    }
}

/// A lock on `posts` held by a session of the test's own.
#[cfg(any(feature = "postgres", feature = "mysql"))]
mod locks {
    use std::time::Duration;

    use diesel::sql_types::BigInt;
    use diesel_async::{AsyncConnection, RunQueryDsl, SimpleAsyncConnection};

    pub enum Lock {
        #[cfg(feature = "postgres")]
        Postgres(Box<diesel_async::AsyncPgConnection>),
        #[cfg(feature = "mysql")]
        Mysql(Box<diesel_async::AsyncMysqlConnection>),
    }

    /// Sessions waiting for a lock on `posts`, as each server shows them.
    #[cfg(feature = "postgres")]
    const PG_WAITERS: &str =
        "(SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = 'posts'::regclass)";
    #[cfg(feature = "mysql")]
    const MYSQL_WAITERS: &str = "(SELECT COUNT(*) FROM information_schema.PROCESSLIST \
         WHERE DB = DATABASE() AND STATE LIKE 'Waiting for table%')";

    impl Lock {
        /// Locks `posts` on the server at `url` against every other session.
        pub async fn take(url: &str) -> Lock {
            #[cfg(feature = "postgres")]
            if url.starts_with("postgres") {
                let mut conn = diesel_async::AsyncPgConnection::establish(url).await.unwrap();
                let sql = "BEGIN; LOCK TABLE posts IN ACCESS EXCLUSIVE MODE";
                conn.batch_execute(sql).await.expect("lock the table");
                return Lock::Postgres(Box::new(conn));
            }
            #[cfg(feature = "mysql")]
            if url.starts_with("mysql") {
                let mut conn = diesel_async::AsyncMysqlConnection::establish(url).await.unwrap();
                conn.batch_execute("LOCK TABLES posts WRITE").await.expect("lock the table");
                return Lock::Mysql(Box::new(conn));
            }
            panic!("no server backend in this build for {url}")
        }

        /// Returns once a session waits for the lock (the request that took the connection).
        pub async fn wait_for_a_waiter(&mut self, who: &str) {
            for _ in 0..200 {
                let waiting: i64 = match self {
                    #[cfg(feature = "postgres")]
                    Lock::Postgres(conn) => diesel::select(diesel::dsl::sql::<BigInt>(PG_WAITERS))
                        .get_result(&mut **conn)
                        .await
                        .expect("count the waiters"),
                    #[cfg(feature = "mysql")]
                    Lock::Mysql(conn) => diesel::select(diesel::dsl::sql::<BigInt>(MYSQL_WAITERS))
                        .get_result(&mut **conn)
                        .await
                        .expect("count the waiters"),
                };
                if waiting > 0 {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
            panic!("{who}: no request waited for the table's lock within 5 s");
        }

        pub async fn release(self) {
            match self {
                #[cfg(feature = "postgres")]
                Lock::Postgres(mut conn) => conn.batch_execute("COMMIT").await.expect("unlock"),
                #[cfg(feature = "mysql")]
                Lock::Mysql(mut conn) => conn.batch_execute("UNLOCK TABLES").await.expect("unlock"),
            }
        }
    }
}

/// A title holding a NUL is a `422` naming it, on every database: PostgreSQL cannot store it
/// in a text (SQLite and MariaDB could), and the handler refuses it before any query, so that
/// every backend accepts the same posts. Nothing is stored.
#[tokio::test]
async fn a_title_holding_a_nul_is_422_on_every_database() {
    for database in databases::all("degrade_nul", 5, PoolOptions::default()).await {
        let who = &database.name;
        let server = Server::start(web::router(database.db.clone())).await;
        for title in ["\u{0}", "a\u{0}b", "ends with NUL \u{0}"] {
            let reply = server.post_json("/posts", &json!({ "title": title })).await;
            assert_eq!(reply.status, 422, "{who}: {title:?}: {}", reply.body);
            let (type_uri, error) = reply.problem();
            assert_eq!(type_uri, problems::INVALID_BODY, "{who}");
            assert!(error.contains("NUL character (U+0000)"), "{who}: {error}");
        }
        assert_eq!(database.db.all().await.expect("all posts").len(), 5, "{who}: none stored");
    }
}

/// Behind the handler's check, PostgreSQL's own refusal of a NUL (`invalid byte sequence for
/// encoding "UTF8": 0x00`) is the client's fault, `InvalidData` (422), with the database's reason,
/// not a server fault.
#[cfg(feature = "postgres")]
#[tokio::test]
async fn postgres_refusing_a_nul_is_invalid_data_not_a_server_fault() {
    use keyset_examples::db::Fault;
    for database in databases::all("degrade_pg_nul", 1, PoolOptions::default()).await {
        if !matches!(database.db.backend(), Backend::Postgres(_)) {
            continue;
        }
        let err = database.db.insert(keyset_examples::db::now(), "a\u{0}b").await;
        let err = err.expect_err("PostgreSQL stores no NUL in a text");
        assert_eq!(err.fault(), Fault::InvalidData, "{err}");
        assert!(err.is_client_error());
        assert!(err.to_string().contains("invalid byte sequence"), "{err}");
    }
}

/// A query string of exactly [`MAX_QUERY_LEN`] bytes is served; one byte more is a `414` in the
/// service's error shape: a problem from the web service, a GraphQL error from GraphQL.
#[tokio::test]
async fn a_query_string_over_8_kib_is_414() {
    let db = keyset_examples::db::Db::open(None, 5, PoolOptions::default()).await.expect("SQLite");
    let web = Server::start(web::router(db.clone())).await;
    let padded = |len: usize| {
        let head = "limit=2&pad=";
        format!("{head}{}", "x".repeat(len - head.len()))
    };
    let reply = web.get(&format!("/posts?{}", padded(MAX_QUERY_LEN))).await;
    assert_eq!(reply.status, 200, "at the limit: {}", reply.body);

    let reply = web.get(&format!("/posts?{}", padded(MAX_QUERY_LEN + 1))).await;
    assert_eq!(reply.status, 414, "{}", reply.body);
    let error = reply.detail();
    assert!(error.contains("8193 bytes") && error.contains("limit of 8192"), "{error}");
    // A token-length cursor far over it: the same, not hyper's bare 431 or a 400 of the parser.
    let reply = web.get(&format!("/posts?after={}", "A".repeat(40_000))).await;
    assert_eq!((reply.status, reply.content_type.as_str()), (414, "application/problem+json"));

    let gql = Server::start(graphql::router(graphql::schema(db))).await;
    let query = json!({ "query": "{ posts(first: 1) { edges { cursor } } }" });
    let reply = gql.post_json(&format!("/graphql?{}", padded(MAX_QUERY_LEN + 1)), &query).await;
    assert_eq!(reply.status, 414, "{}", reply.body);
    let body = reply.json();
    assert_eq!(body["errors"][0]["extensions"]["code"], "URI_TOO_LONG", "{body}");
    assert!(body["errors"][0]["message"].as_str().unwrap().contains("limit of 8192"), "{body}");
    let reply = gql.post_json(&format!("/graphql?{}", padded(MAX_QUERY_LEN)), &query).await;
    assert_eq!(reply.status, 200, "at the limit: {}", reply.body);
}

/// The pool's timeouts from the environment's variables: whole milliseconds, or an error naming
/// the variable and what to write.
#[test]
fn pool_timeouts_are_read_from_the_environment() {
    let vars = |pairs: Vec<(&'static str, &'static str)>| {
        move |name: &str| pairs.iter().find(|(var, _)| *var == name).map(|(_, v)| v.to_string())
    };
    let options = PoolOptions::from_vars(vars(vec![])).unwrap();
    let timeouts = (options.wait_timeout, options.create_timeout);
    assert_eq!(timeouts, (Duration::from_secs(2), Duration::from_secs(5)));
    let options = PoolOptions::from_vars(vars(vec![
        ("POOL_WAIT_TIMEOUT_MS", "0"),
        ("POOL_CREATE_TIMEOUT_MS", " 1500 "),
    ]))
    .unwrap();
    let timeouts = (options.wait_timeout, options.create_timeout);
    assert_eq!(timeouts, (Duration::ZERO, Duration::from_millis(1500)));
    for (var, value) in [("POOL_WAIT_TIMEOUT_MS", "2s"), ("POOL_CREATE_TIMEOUT_MS", "-1")] {
        let err = PoolOptions::from_vars(vars(vec![(var, value)])).unwrap_err().to_string();
        assert!(err.contains(var) && err.contains("whole number of milliseconds"), "{err}");
    }
}
