//! The walks on MariaDB: a primary writing its binlog and a replica applying it (GTID),
//! `KEYSET_MARIADB_PRIMARY_URL` and `KEYSET_MARIADB_REPLICA_URL`.

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use keyset_runtime::migration;
use keyset_runtime::Keyset;
use keyset_tests::models::Newest;

use crate::Backend;

pub struct Mariadb;

#[test]
fn keyset_pages_from_primary_and_replica_repeat_and_skip_nothing() {
    crate::keyset_pages_repeat_and_skip_nothing::<Mariadb>();
}

#[test]
fn offset_pages_from_primary_and_replica_repeat_and_skip_rows() {
    crate::offset_pages_repeat_and_skip_rows::<Mariadb>();
}

impl Backend for Mariadb {
    type Conn = MysqlConnection;
    const URL_VARS: (&'static str, &'static str) =
        ("KEYSET_MARIADB_PRIMARY_URL", "KEYSET_MARIADB_REPLICA_URL");

    fn establish(url: &str) -> MysqlConnection {
        MysqlConnection::establish(url)
            .unwrap_or_else(|err| panic!("MariaDB at {url} cannot be reached: {err}"))
    }

    /// The replica's `SHOW SLAVE STATUS` names the primary's `server_id`; the primary has none.
    fn lock_and_check(primary: &mut MysqlConnection, replica: &mut MysqlConnection) {
        let sql = "SELECT CAST(GET_LOCK('keyset_replicas', 600) AS SIGNED) AS n";
        assert_eq!(number(primary, sql), 1, "the lock of the replica walks");
        let server_id = number(primary, "SELECT CAST(@@server_id AS SIGNED) AS n");
        let status = |conn: &mut MysqlConnection| {
            diesel::sql_query("SHOW SLAVE STATUS").load::<SlaveStatus>(conn).expect("slave status")
        };
        assert!(status(primary).is_empty(), "the primary is a replica");
        let replica_status = status(replica);
        assert!(
            matches!(replica_status[..], [SlaveStatus { master_server_id }] if master_server_id == server_id),
            "the replica does not replicate from the primary (server_id {server_id})"
        );
    }

    fn unlock(primary: &mut MysqlConnection) {
        let _ = primary.batch_execute("DO RELEASE_LOCK('keyset_replicas')");
    }

    /// The posts table of `tests/mysql/` (`DATETIME(6)`, utf8mb4), a real table here. Diesel
    /// binds `Timestamp` as MySQL's TIMESTAMP, 1970 to 2038 only (docs/reliability.md): the seed's and the
    /// writer's timestamps are all of 2023.
    fn create_table(primary: &mut MysqlConnection) {
        let create = keyset_tests::schema::MYSQL_DDL
            .iter()
            .find(|statement| statement.contains("TEMPORARY TABLE posts"))
            .expect("the posts table of the MariaDB suite")
            .replacen("CREATE TEMPORARY TABLE", "CREATE TABLE", 1);
        for statement in [
            "DROP TABLE IF EXISTS posts",
            &create,
            Newest::INDEXES[0].create(migration::Backend::Mysql),
        ] {
            primary.batch_execute(statement).expect("create the table");
        }
    }

    /// Until the replica has applied the primary's binlog up to its GTID position now.
    fn wait_for_replica(primary: &mut MysqlConnection, replica: &mut MysqlConnection) {
        let sql = "SELECT @@gtid_binlog_pos AS pos";
        let pos =
            diesel::sql_query(sql).get_result::<GtidPos>(primary).expect("the binlog position").pos;
        let waited = diesel::sql_query("SELECT CAST(MASTER_GTID_WAIT(?, 30) AS SIGNED) AS n")
            .bind::<Text, _>(&pos)
            .get_result::<Number>(replica)
            .expect("MASTER_GTID_WAIT")
            .n;
        assert_eq!(waited, 0, "the replica has not applied {pos} after 30 s");
    }

    /// The replica's SQL thread; its I/O thread keeps receiving the binlog meanwhile.
    fn set_replay(replica: &mut MysqlConnection, running: bool) {
        let sql = if running { "START SLAVE SQL_THREAD" } else { "STOP SLAVE SQL_THREAD" };
        replica.batch_execute(sql).expect("start or stop the SQL thread");
    }

    crate::same_statements!();
}

#[derive(QueryableByName)]
struct SlaveStatus {
    #[diesel(sql_type = BigInt, column_name = Master_Server_Id)]
    master_server_id: i64,
}

#[derive(QueryableByName)]
struct Number {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

fn number(conn: &mut MysqlConnection, sql: &str) -> i64 {
    diesel::sql_query(sql).get_result::<Number>(conn).expect("a number").n
}

#[derive(QueryableByName)]
struct GtidPos {
    #[diesel(sql_type = Text)]
    pos: String,
}
