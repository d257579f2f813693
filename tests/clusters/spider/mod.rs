//! A MariaDB Spider head node (`KEYSET_SPIDER_HEAD_URL`) whose `stories` table is partitioned
//! over the `stories` tables of two data nodes (`KEYSET_SPIDER_NODE_PORTS`, on 127.0.0.1), in
//! both [`Layout`]s, each a database of its own on every server. Each data node's table has the
//! indexes the model declares, and the head's Spider table declares the same, which its
//! optimizer plans with. The data nodes keep their general log in `mysql.general_log`.
//!
//! [`fixture`] builds a layout afresh and seeds it; the tests hold its lock, one at a time.

mod plans;
mod walks;

use std::sync::MutexGuard;

use diesel::prelude::*;
use keyset_runtime::migration::Backend;
use keyset_runtime::Keyset;
use keyset_tests::schema::stories;

use crate::listing::{lock, ports, split, story, url_of, var, Layout, NewStory, RemoteStory};

const SCRIPT: &str = "tests/spider.sh";

const COLUMNS: &str = "id BIGINT NOT NULL, created_at DATETIME(6) NOT NULL, \
                       score INTEGER NOT NULL, title VARCHAR(64) NOT NULL, published_at DATETIME(6)";

/// The head node's URL for `database`.
pub fn head_url(database: &str) -> String {
    url_of(&var("KEYSET_SPIDER_HEAD_URL", SCRIPT), database)
}

/// Each data node's connection to its database of `layout`, in node order.
pub fn nodes(layout: Layout) -> Vec<MysqlConnection> {
    node_ports()
        .iter()
        .map(|port| establish(&format!("mysql://root@127.0.0.1:{port}/{}", layout.database())))
        .collect()
}

fn node_ports() -> Vec<u16> {
    ports(&var("KEYSET_SPIDER_NODE_PORTS", SCRIPT))
}

fn establish(url: &str) -> MysqlConnection {
    MysqlConnection::establish(url).unwrap_or_else(|err| panic!("{url} cannot be reached: {err}"))
}

fn run(conn: &mut MysqlConnection, statements: &[&str]) {
    for statement in statements {
        diesel::sql_query(*statement)
            .execute(conn)
            .unwrap_or_else(|err| panic!("{statement}: {err}"));
    }
}

/// `PARTITION BY ..` of the head's table in `layout`, its partitions `p1` and `p2` on the data
/// nodes' servers, and its primary key (a range's column is part of every unique key).
fn partitioning(layout: Layout) -> (String, &'static str) {
    let database = layout.database();
    let server = |node: usize| format!("COMMENT = 'srv \"{database}_node{node}\"'");
    match layout {
        Layout::Hashed => {
            (format!("HASH (id) (PARTITION p1 {}, PARTITION p2 {})", server(1), server(2)), "id")
        }
        Layout::Ranged => (
            format!(
                "RANGE COLUMNS (created_at) (PARTITION p1 VALUES LESS THAN ('{}') {}, \
                 PARTITION p2 VALUES LESS THAN (MAXVALUE) {})",
                split(),
                server(1),
                server(2)
            ),
            "id, created_at",
        ),
    }
}

/// `layout` built afresh: each data node's `stories` with the model's indexes, the head's
/// Spider table partitioned over them, seeded with `rows` stories through the head and analyzed
/// on the data nodes; held until the guard drops.
pub fn fixture(layout: Layout, rows: i64) -> (MutexGuard<'static, ()>, MysqlConnection) {
    let guard = lock();
    let database = layout.database();
    let create_database =
        format!("CREATE DATABASE IF NOT EXISTS {database} DEFAULT CHARSET utf8mb4");
    let indexes: Vec<&str> =
        RemoteStory::INDEXES.iter().map(|index| index.create(Backend::Mysql)).collect();
    for port in node_ports() {
        let mut node = establish(&format!("mysql://root@127.0.0.1:{port}/mysql"));
        run(
            &mut node,
            &[&create_database, &format!("USE {database}"), "DROP TABLE IF EXISTS stories"],
        );
        let table =
            format!("CREATE TABLE stories ({COLUMNS}, PRIMARY KEY (id)) DEFAULT CHARSET utf8mb4");
        run(&mut node, &[&table]);
        run(&mut node, &indexes);
    }
    let mut head = establish(&head_url("mysql"));
    run(&mut head, &[&create_database]);
    for (node, port) in node_ports().iter().enumerate() {
        let server = format!("{database}_node{}", node + 1);
        run(
            &mut head,
            &[
                &format!("DROP SERVER IF EXISTS {server}"),
                &format!(
                    "CREATE SERVER {server} FOREIGN DATA WRAPPER mysql OPTIONS (HOST '127.0.0.1', \
                 PORT {port}, USER 'root', DATABASE '{database}')"
                ),
            ],
        );
    }
    let mut conn = establish(&head_url(database));
    let (partition_by, primary_key) = partitioning(layout);
    run(
        &mut conn,
        &[
            "DROP TABLE IF EXISTS stories",
            &format!(
                "CREATE TABLE stories ({COLUMNS}, PRIMARY KEY ({primary_key})) ENGINE = SPIDER \
             DEFAULT CHARSET utf8mb4 COMMENT = 'wrapper \"mysql\", table \"stories\"' \
             PARTITION BY {partition_by}"
            ),
        ],
    );
    run(&mut conn, &indexes);
    let rows: Vec<NewStory> = (1..=rows).map(story).collect();
    for chunk in rows.chunks(5_000) {
        diesel::insert_into(stories::table).values(chunk).execute(&mut conn).expect("seed");
    }
    for mut node in nodes(layout) {
        run(&mut node, &["ANALYZE TABLE stories"]);
    }
    (guard, conn)
}
