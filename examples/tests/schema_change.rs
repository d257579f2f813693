//! The web example under load across a column type change, both ways, on the servers of the
//! build (PostgreSQL with `postgres`, MariaDB with `mysql`; SQLite has no `ALTER COLUMN .. TYPE`,
//! so a build without either server has no test here). Eight HTTP clients walk pages (every
//! order, both directions, several limits, following `next_cursor`) over a pool of four
//! connections, long enough for every connection to have prepared its page statements; then,
//! from a connection of its own, the test changes `posts.title` to `varchar(300)`, keeps the
//! load, changes it back, keeps the load again. PostgreSQL refuses a statement prepared before
//! such a change (`cached plan must not change result type`); keyset runs that page again,
//! freshly prepared. Every request of every phase must answer `200`, none the server's error.
//!
//! `score` to `bigint` and back, the other case, is not run: the model reads `score` as
//! `i32` (`score -> Integer`), and a `bigint` column cannot be read as one, prepared afresh or
//! not: that is a schema the code does not match, not a stale statement.

#![cfg(any(feature = "postgres", feature = "mysql"))]

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use diesel_async::{AsyncConnection, SimpleAsyncConnection};
use keyset_examples::db::Backend;
use keyset_examples::pool::{PoolKind, PoolOptions};
use keyset_examples::web::router;
use serde_json::Value;

use common::{databases, Server};

const SEEDED: i64 = 200;
const CLIENTS: usize = 8;
const POOL_SIZE: usize = 4;
/// Longer than the default 2 s: a request that waits for a connection while the `ALTER` holds
/// the table must still be served, not answered `503`.
const WAIT: Duration = Duration::from_secs(10);
/// How long the load runs before the first change, and after each change.
const PHASE: Duration = Duration::from_millis(2500);
/// The fewest requests a phase must have served for the test to mean anything.
const MIN_REQUESTS: usize = 50;

/// The phases, in order: each change's phase starts once its `ALTER` has returned.
const PHASES: [&str; 3] = ["before (warm-up)", "after the change", "after the change back"];

/// What one phase's requests came to.
#[derive(Default, Debug, Clone, Copy)]
struct Count {
    requests: usize,
    failures: usize,
}

/// Requests and failures per phase, and the first failures' messages.
#[derive(Default)]
struct Tally {
    counts: [Count; 3],
    samples: Vec<String>,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn pages_stay_200_across_a_column_type_change_both_ways() {
    let options = PoolOptions {
        max_size: POOL_SIZE,
        kind: PoolKind::Deadpool,
        wait_timeout: WAIT,
        ..PoolOptions::default()
    };
    for database in databases::all("schema_change", SEEDED, options).await {
        let Some(url) = database.url.as_deref() else {
            continue; // SQLite: no column type change (see the top).
        };
        let (change, back) = match database.db.backend() {
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => (
                "ALTER TABLE posts ALTER COLUMN title TYPE varchar(300)",
                "ALTER TABLE posts ALTER COLUMN title TYPE text",
            ),
            // The column as the example declares it (`VARCHAR(255) NOT NULL`, the table's
            // `utf8mb4`), but for its length.
            #[cfg(feature = "mysql")]
            Backend::Mysql(_) => (
                "ALTER TABLE posts MODIFY title VARCHAR(300) CHARACTER SET utf8mb4 NOT NULL",
                "ALTER TABLE posts MODIFY title VARCHAR(255) CHARACTER SET utf8mb4 NOT NULL",
            ),
            _ => unreachable!("a server database has a URL"),
        };
        let started = Instant::now();
        let tally = load_across(&database.name, &database.db, url, [change, back]).await;
        let took = started.elapsed();
        for (phase, count) in PHASES.iter().zip(tally.counts) {
            eprintln!(
                "{}: {phase}: {} requests, {} failed",
                database.name, count.requests, count.failures
            );
        }
        eprintln!("{}: {took:.1?} in all", database.name);
        for (phase, count) in PHASES.iter().zip(tally.counts) {
            assert!(
                count.requests >= MIN_REQUESTS,
                "{}: {phase}: only {} requests served",
                database.name,
                count.requests
            );
        }
        let failures: usize = tally.counts.iter().map(|count| count.failures).sum();
        assert_eq!(
            failures, 0,
            "{}: every page is 200 across the changes; the first failures: {:#?}",
            database.name, tally.samples
        );
    }
}

/// Runs the clients, and the two changes between the phases; returns the tally.
async fn load_across(
    name: &str,
    db: &keyset_examples::db::Db,
    url: &str,
    changes: [&str; 2],
) -> Tally {
    let server = Server::start(router(db.clone())).await;
    let phase = Arc::new(AtomicUsize::new(0));
    let running = Arc::new(AtomicBool::new(true));
    let tally = Arc::new(Mutex::new(Tally::default()));
    let mut clients = Vec::new();
    for number in 0..CLIENTS {
        let state = (phase.clone(), running.clone(), tally.clone());
        clients.push(tokio::spawn(client(server.client(), number, state)));
    }
    tokio::time::sleep(PHASE).await;
    for (next, sql) in changes.into_iter().enumerate() {
        let altered = Instant::now();
        alter(db, url, sql).await;
        eprintln!("{name}: `{sql}` took {:.1?}", altered.elapsed());
        phase.store(next + 1, Ordering::SeqCst);
        tokio::time::sleep(PHASE).await;
    }
    running.store(false, Ordering::SeqCst);
    for client in clients {
        client.await.unwrap_or_else(|err| panic!("{name}: a client panicked: {err}"));
    }
    let tally = std::mem::take(&mut *tally.lock().unwrap());
    tally
}

/// `sql` on a connection of its own, not one of the service's pool.
async fn alter(db: &keyset_examples::db::Db, url: &str, sql: &str) {
    match db.backend() {
        #[cfg(feature = "postgres")]
        Backend::Postgres(_) => {
            let mut conn = diesel_async::AsyncPgConnection::establish(url).await.expect("connect");
            conn.batch_execute(sql).await.unwrap_or_else(|err| panic!("`{sql}`: {err}"));
        }
        #[cfg(feature = "mysql")]
        Backend::Mysql(_) => {
            let mut conn =
                diesel_async::AsyncMysqlConnection::establish(url).await.expect("connect");
            conn.batch_execute(sql).await.unwrap_or_else(|err| panic!("`{sql}`: {err}"));
        }
        _ => unreachable!("a server database has a URL"),
    }
}

/// One client: walks, a walk after another, until told to stop, each in an order, direction and
/// limit of its own; counts each request in the phase it started in. A failed request ends its
/// walk (the next one starts from the first page).
async fn client(
    server: Server,
    number: usize,
    (phase, running, tally): (Arc<AtomicUsize>, Arc<AtomicBool>, Arc<Mutex<Tally>>),
) {
    let sorts = ["new", "top", "title"];
    let dirs = ["", "&dir=asc", "&dir=desc"];
    let mut walk = number;
    while running.load(Ordering::SeqCst) {
        let sort = sorts[walk % 3];
        let dir = dirs[(walk / 3) % 3];
        let limit = [3, 7, 10, 20, 25][walk % 5];
        let first = format!("/posts?sort={sort}{dir}&limit={limit}");
        let mut url = first.clone();
        while running.load(Ordering::SeqCst) {
            let at = phase.load(Ordering::SeqCst);
            let reply = server.get(&url).await;
            let mut tally = tally.lock().unwrap();
            tally.counts[at].requests += 1;
            if reply.status != 200 {
                tally.counts[at].failures += 1;
                if tally.samples.len() < 5 {
                    let sample =
                        format!("{}: GET {url}: {} {}", PHASES[at], reply.status, reply.body);
                    tally.samples.push(sample);
                }
                break;
            }
            match &reply.json()["next_cursor"] {
                Value::String(token) => url = format!("{first}&after={token}"),
                Value::Null => break,
                other => panic!("a cursor is a token or null, not {other}"),
            }
        }
        walk += CLIENTS;
    }
}
