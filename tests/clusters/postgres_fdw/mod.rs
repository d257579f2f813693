//! A coordinator (`KEYSET_FDW_COORDINATOR_URL`) whose `stories` table is partitioned over
//! postgres_fdw foreign tables, one partition on each of two shard servers
//! (`KEYSET_FDW_SHARD_PORTS`, on 127.0.0.1), in two layouts, each a database of its own on
//! every server ([`Layout`]): by hash of the id, and by range of
//! `created_at`. Each shard's table has the indexes the models declare; the coordinator's, being
//! partitioned over foreign tables, has none of its own.
//!
//! [`fixture`] builds a layout afresh and seeds it; the tests hold its lock, one at a time.

mod plans;
mod walks;

use std::sync::MutexGuard;

use chrono::NaiveDateTime;
use diesel::prelude::*;
use keyset_runtime::migration::Backend;
use keyset_runtime::Keyset;
use keyset_tests::schema::stories;

use crate::listing::{lock, ports, split, story, url_of, var, Layout, NewStory, RemoteStory};

/// `new` as a field order with `#[keyset(postgres_fdw)]`; without it, it is
/// `keyset_tests::models::story_orders::New`, whose row value stays on the coordinator. Both
/// seek [`RemoteStory`]'s `new` index.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = stories)]
#[keyset(postgres_fdw)]
pub struct RemoteNew {
    #[sort(desc)]
    pub created_at: NaiveDateTime,
    #[sort(desc)]
    #[tiebreaker]
    pub id: i64,
}

/// `PARTITION BY ..` of `layout`, and the bounds of shard 1's and shard 2's partitions.
fn partitioning(layout: Layout) -> (&'static str, [String; 2]) {
    match layout {
        Layout::Hashed => (
            "HASH (id)",
            ["WITH (MODULUS 2, REMAINDER 0)".into(), "WITH (MODULUS 2, REMAINDER 1)".into()],
        ),
        Layout::Ranged => {
            let split = split();
            (
                "RANGE (created_at)",
                [
                    format!("FROM (MINVALUE) TO ('{split}')"),
                    format!("FROM ('{split}') TO (MAXVALUE)"),
                ],
            )
        }
    }
}

const COLUMNS: &str = "created_at TIMESTAMP NOT NULL, score INTEGER NOT NULL, \
                       title TEXT NOT NULL, published_at TIMESTAMP";

const SCRIPT: &str = "tests/postgres-fdw.sh";

/// The URL of the coordinator's database `database`.
fn coordinator_url(database: &str) -> String {
    url_of(&var("KEYSET_FDW_COORDINATOR_URL", SCRIPT), database)
}

/// The shards' ports.
fn shard_ports() -> Vec<u16> {
    ports(&var("KEYSET_FDW_SHARD_PORTS", SCRIPT))
}

pub fn establish(url: &str) -> PgConnection {
    PgConnection::establish(url).unwrap_or_else(|err| panic!("{url} cannot be reached: {err}"))
}

fn run(conn: &mut PgConnection, statements: &[&str]) {
    for statement in statements {
        diesel::sql_query(*statement)
            .execute(conn)
            .unwrap_or_else(|err| panic!("{statement}: {err}"));
    }
}

/// `database` on the server at `url` (its `postgres` database), created if missing.
fn ensure_database(url: &str, database: &str) {
    let mut conn = establish(url);
    #[derive(QueryableByName)]
    struct Found {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        found: i64,
    }
    let found = diesel::sql_query("SELECT count(*) AS found FROM pg_database WHERE datname = $1")
        .bind::<diesel::sql_types::Text, _>(database)
        .get_result::<Found>(&mut conn)
        .expect("pg_database");
    if found.found == 0 {
        run(&mut conn, &[&format!("CREATE DATABASE {database}")]);
    }
}

/// `layout` built afresh: each shard's `stories` with the models' indexes, the coordinator's
/// partitioned over them, seeded with `rows` stories through the coordinator and analyzed on
/// every server; held until the guard drops. The coordinator's servers are `async_capable` (a
/// plain Append reads the shards at once) with `options` besides (`fetch_size '21'`): without
/// `use_remote_estimate`, as the shards guide advises.
pub fn fixture(
    layout: Layout,
    rows: i64,
    options: &[&str],
) -> (MutexGuard<'static, ()>, PgConnection) {
    let guard = lock();
    let database = layout.database();
    let ports = shard_ports();
    for port in &ports {
        let server = format!("postgres://postgres@127.0.0.1:{port}");
        ensure_database(&format!("{server}/postgres"), database);
        let mut shard = establish(&format!("{server}/{database}"));
        let table = format!("CREATE TABLE stories (id BIGINT PRIMARY KEY, {COLUMNS})");
        run(&mut shard, &["DROP TABLE IF EXISTS stories", &table]);
        // `new`'s index serves `RemoteNew` and `story_orders::New` too.
        for index in RemoteStory::INDEXES {
            run(&mut shard, &[index.create(Backend::Postgres)]);
        }
    }
    let url = coordinator_url(database);
    ensure_database(&coordinator_url("postgres"), database);
    let mut conn = establish(&url);
    let (partition_by, bounds) = partitioning(layout);
    run(
        &mut conn,
        &[
            "DROP TABLE IF EXISTS stories",
            "CREATE EXTENSION IF NOT EXISTS postgres_fdw",
            &format!(
                "CREATE TABLE stories (id BIGINT NOT NULL, {COLUMNS}) PARTITION BY {partition_by}"
            ),
        ],
    );
    let options: String = options.iter().map(|option| format!(", {option}")).collect();
    for (index, (port, bound)) in ports.iter().zip(&bounds).enumerate() {
        let shard = index + 1;
        run(
            &mut conn,
            &[
                &format!("DROP SERVER IF EXISTS shard{shard} CASCADE"),
                &format!(
                    "CREATE SERVER shard{shard} FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host \
                     '127.0.0.1', port '{port}', dbname '{database}', async_capable 'true'{options})"
                ),
                &format!(
                    "CREATE USER MAPPING FOR PUBLIC SERVER shard{shard} OPTIONS (user 'postgres')"
                ),
                &format!(
                    "CREATE FOREIGN TABLE stories_{shard} PARTITION OF stories FOR VALUES {bound} \
                 SERVER shard{shard} OPTIONS (table_name 'stories')"
                ),
            ],
        );
    }
    let rows: Vec<NewStory> = (1..=rows).map(story).collect();
    for chunk in rows.chunks(5_000) {
        diesel::insert_into(stories::table).values(chunk).execute(&mut conn).expect("seed");
    }
    for port in &ports {
        let mut shard = establish(&format!("postgres://postgres@127.0.0.1:{port}/{database}"));
        // The visibility map set: the shards' seeks read their indexes alone, as autovacuum
        // keeps them in service.
        run(&mut shard, &["VACUUM ANALYZE stories"]);
    }
    // The coordinator's estimates of its foreign partitions, from a sample of their rows.
    run(&mut conn, &["ANALYZE stories"]);
    (guard, conn)
}

/// Each shard's connection to its database of `layout`, in shard order.
pub fn shards(layout: Layout) -> Vec<PgConnection> {
    let database = layout.database();
    shard_ports()
        .iter()
        .map(|port| establish(&format!("postgres://postgres@127.0.0.1:{port}/{database}")))
        .collect()
}

/// The coordinator's URL for `layout`, for the async connection.
pub fn url(layout: Layout) -> String {
    coordinator_url(layout.database())
}
