//! The walks on PostgreSQL: a primary and a streaming hot standby, `KEYSET_PRIMARY_URL` and
//! `KEYSET_REPLICA_URL`.

use std::time::{Duration, Instant};

use diesel::prelude::*;
use diesel::sql_types::{Bool, Text};
use keyset_runtime::migration;
use keyset_runtime::Keyset;
use keyset_tests::models::Newest;

use crate::Backend;

pub struct Postgres;

#[test]
fn keyset_pages_from_primary_and_replica_repeat_and_skip_nothing() {
    crate::keyset_pages_repeat_and_skip_nothing::<Postgres>();
}

#[test]
fn offset_pages_from_primary_and_replica_repeat_and_skip_rows() {
    crate::offset_pages_repeat_and_skip_rows::<Postgres>();
}

impl Backend for Postgres {
    type Conn = PgConnection;
    const URL_VARS: (&'static str, &'static str) = ("KEYSET_PRIMARY_URL", "KEYSET_REPLICA_URL");

    fn establish(url: &str) -> PgConnection {
        PgConnection::establish(url)
            .unwrap_or_else(|err| panic!("PostgreSQL at {url} cannot be reached: {err}"))
    }

    fn lock_and_check(primary: &mut PgConnection, replica: &mut PgConnection) {
        diesel::sql_query("SELECT pg_advisory_lock(20)").execute(primary).unwrap();
        assert!(!flag(primary, "SELECT pg_is_in_recovery() AS flag"), "the primary is a standby");
        assert!(flag(replica, "SELECT pg_is_in_recovery() AS flag"), "the replica is no standby");
    }

    fn unlock(primary: &mut PgConnection) {
        let _ = diesel::sql_query("SELECT pg_advisory_unlock(20)").execute(primary);
    }

    fn create_table(primary: &mut PgConnection) {
        for statement in [
            "DROP TABLE IF EXISTS posts",
            "CREATE TABLE posts (
                id BIGINT PRIMARY KEY,
                author_id BIGINT NOT NULL,
                created_at TIMESTAMP NOT NULL,
                score INTEGER NOT NULL,
                tag TEXT NOT NULL,
                title TEXT NOT NULL UNIQUE,
                rank INTEGER,
                due TIMESTAMP
            )",
            Newest::INDEXES[0].create(migration::Backend::Postgres),
        ] {
            diesel::sql_query(statement).execute(primary).expect("create the table");
        }
    }

    /// Until the standby has replayed the primary's WAL up to where it ends now.
    fn wait_for_replica(primary: &mut PgConnection, replica: &mut PgConnection) {
        let sql = "SELECT pg_current_wal_lsn()::text AS lsn";
        let lsn = diesel::sql_query(sql).get_result::<Lsn>(primary).expect("the WAL position").lsn;
        let started = Instant::now();
        let sql = "SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS flag";
        let mut replayed = || {
            diesel::sql_query(sql).bind::<Text, _>(&lsn).get_result::<Flag>(replica).unwrap().flag
        };
        while !replayed() {
            assert!(started.elapsed() < Duration::from_secs(30), "the replica is not replaying");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn set_replay(replica: &mut PgConnection, running: bool) {
        let sql =
            if running { "SELECT pg_wal_replay_resume()" } else { "SELECT pg_wal_replay_pause()" };
        diesel::sql_query(sql).execute(replica).expect("pause or resume replay");
    }

    crate::same_statements!();
}

#[derive(QueryableByName)]
struct Flag {
    #[diesel(sql_type = Bool)]
    flag: bool,
}

fn flag(conn: &mut PgConnection, sql: &str) -> bool {
    diesel::sql_query(sql).get_result::<Flag>(conn).expect("a flag").flag
}

#[derive(QueryableByName)]
struct Lsn {
    #[diesel(sql_type = Text)]
    lsn: String,
}
