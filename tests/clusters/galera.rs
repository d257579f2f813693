//! A MariaDB Galera cluster of three nodes (`KEYSET_GALERA_NODE_URLS`): every node holds every
//! row, and writes on any node are certified and applied on the others. Pages are read from the
//! nodes in turn and the writer writes on them in turn, so a page may be read on a node that
//! has not yet applied the last page's writes: with `wsrep_sync_wait = 0` (MariaDB's default),
//! as from a replica, and with `wsrep_sync_wait = 1`, where a read first waits for the node to
//! apply what the cluster committed before it. A page is a read: certification, which may
//! refuse a write that conflicts with another node's, never refuses it.

use std::sync::MutexGuard;
use std::time::Instant;

use diesel::prelude::*;
use keyset_runtime::migration::Backend;
use keyset_runtime::{Keyset, Page, PageRequest, SortDirection};
use keyset_tests::schema::stories;

use crate::listing::{lock, story, var, NewStory, RemoteStory, RemoteStoryOrder, SEED_ROWS};
use crate::walks::{async_page, async_pages_as_sync, walks_repeat_and_skip_nothing, Cluster};

/// The nodes' connections to the database `keyset`, in node order.
fn connect() -> Vec<MysqlConnection> {
    var("KEYSET_GALERA_NODE_URLS", "tests/galera.sh")
        .split(',')
        .map(|url| {
            let url = crate::listing::url_of(url, "keyset");
            MysqlConnection::establish(&url)
                .unwrap_or_else(|err| panic!("{url} cannot be reached: {err}"))
        })
        .collect()
}

/// The cluster's `stories` built afresh on the first node with the model's indexes, seeded
/// there with [`SEED_ROWS`], and seen by every node; held until the guard drops.
fn fixture() -> (MutexGuard<'static, ()>, Galera) {
    let guard = lock();
    let first = var("KEYSET_GALERA_NODE_URLS", "tests/galera.sh");
    let first = first.split(',').next().expect("a node");
    let mut admin = MysqlConnection::establish(first).expect("the first node");
    diesel::sql_query("CREATE DATABASE IF NOT EXISTS keyset DEFAULT CHARSET utf8mb4")
        .execute(&mut admin)
        .unwrap();
    let mut nodes = connect();
    let table = "CREATE TABLE stories (id BIGINT PRIMARY KEY, created_at DATETIME(6) NOT NULL, \
                 score INTEGER NOT NULL, title VARCHAR(64) NOT NULL, published_at DATETIME(6)) \
                 DEFAULT CHARSET utf8mb4";
    for statement in ["DROP TABLE IF EXISTS stories", table]
        .into_iter()
        .chain(RemoteStory::INDEXES.iter().map(|index| index.create(Backend::Mysql)))
    {
        diesel::sql_query(statement)
            .execute(&mut nodes[0])
            .unwrap_or_else(|err| panic!("{statement}: {err}"));
    }
    let rows: Vec<NewStory> = (1..=SEED_ROWS).map(story).collect();
    diesel::insert_into(stories::table).values(&rows).execute(&mut nodes[0]).expect("seed");
    let mut galera = Galera { nodes, turn: 0, refused: 0, picked: 0, sync_wait: 0 };
    galera.sync();
    (guard, galera)
}

/// The cluster: each page read on the next node, each write made on the next.
struct Galera {
    nodes: Vec<MysqlConnection>,
    turn: usize,
    /// Writes certification refused (a deadlock error), each retried.
    refused: usize,
    /// The node the last row to delete was picked on, which deletes it: another node may not
    /// have applied its insert yet.
    picked: usize,
    /// The walks' `wsrep_sync_wait`.
    sync_wait: u8,
}

impl Galera {
    fn next(&mut self) -> &mut MysqlConnection {
        self.turn += 1;
        let len = self.nodes.len();
        &mut self.nodes[self.turn % len]
    }

    /// Once every node has applied every write the cluster committed so far: a read on each
    /// with `wsrep_sync_wait = 1`, which waits for it.
    fn sync(&mut self) {
        let sync_wait = self.sync_wait;
        for node in &mut self.nodes {
            diesel::sql_query("SET SESSION wsrep_sync_wait = 1").execute(node).unwrap();
            stories::table.count().get_result::<i64>(node).unwrap();
            let back = format!("SET SESSION wsrep_sync_wait = {sync_wait}");
            diesel::sql_query(back).execute(node).unwrap();
        }
    }

    /// `wsrep_sync_wait` on every node's session.
    fn sync_wait(&mut self, value: u8) {
        self.sync_wait = value;
        for node in &mut self.nodes {
            let set = format!("SET SESSION wsrep_sync_wait = {value}");
            diesel::sql_query(set).execute(node).unwrap();
        }
    }
}

#[derive(QueryableByName)]
struct Id {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    id: i64,
}

impl Cluster for Galera {
    fn page(
        &mut self,
        order: (RemoteStoryOrder, SortDirection),
        request: &PageRequest,
    ) -> Page<RemoteStory> {
        self.next().page(order, request)
    }

    /// The rows before a walk, once every node holds them: they are then present throughout
    /// the walk on whichever node reads a page, unless the writer deletes them.
    fn rows(&mut self) -> Vec<RemoteStory> {
        self.sync();
        self.next().rows()
    }

    fn insert(&mut self, rows: &[NewStory]) {
        self.next().insert(rows)
    }

    /// On the node that picked the row; retried where certification refuses it: the node
    /// deleted the row before applying another node's write that conflicts with it (the writer
    /// writes on the nodes in turn, none waiting for the others).
    fn delete(&mut self, id: i64) -> bool {
        for _ in 0..20 {
            let node = &mut self.nodes[self.picked];
            match diesel::delete(stories::table.find(id)).execute(node) {
                Ok(_) => {
                    return stories::table.find(id).count().get_result::<i64>(node).unwrap() == 0
                }
                Err(diesel::result::Error::DatabaseError(
                    diesel::result::DatabaseErrorKind::SerializationFailure,
                    _,
                )) => self.refused += 1,
                Err(err) => panic!("delete {id}: {err}"),
            }
        }
        panic!("certification refused deleting {id} 20 times")
    }

    /// Galera has no shards: a row picked on node `shard`, as it sees the table.
    fn row_of_shard(&mut self, shard: usize, step: i64) -> Option<i64> {
        self.picked = shard % self.nodes.len();
        let node = &mut self.nodes[self.picked];
        let pick =
            format!("SELECT id FROM stories ORDER BY (id * 7919) % 1009, id LIMIT 1 OFFSET {step}");
        diesel::sql_query(pick).get_result::<Id>(node).optional().unwrap().map(|row| row.id)
    }
}

/// The walks, reading each page on the next node while the writer writes on the others: every
/// row present throughout once, in order, with nodes that may lag (`wsrep_sync_wait = 0`) and
/// with nodes that catch up before each read (`1`). The time a page took with each is printed.
#[test]
fn walks_across_the_nodes_repeat_and_skip_nothing_beside_writes_on_every_node() {
    for sync_wait in [0, 1] {
        let (_guard, mut galera) = fixture();
        galera.sync_wait(sync_wait);
        let started = Instant::now();
        walks_repeat_and_skip_nothing(
            &mut galera,
            SEED_ROWS + 1,
            &format!("wsrep_sync_wait = {sync_wait}"),
        );
        println!(
            "wsrep_sync_wait = {sync_wait}: the 24 walks took {:?}; certification refused {} of the \
             writer's deletes (retried)",
            started.elapsed(),
            galera.refused
        );
    }
}

#[test]
fn the_async_path_pages_as_the_sync_one_on_a_node() {
    use diesel_async::{AsyncConnection, AsyncMysqlConnection};

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let (_guard, galera) = fixture();
    let url = var("KEYSET_GALERA_NODE_URLS", "tests/galera.sh");
    let second = crate::listing::url_of(url.split(',').nth(1).expect("a second node"), "keyset");
    let mut async_conn = runtime
        .block_on(AsyncMysqlConnection::establish(&second))
        .expect("an async connection to the second node");
    let mut node = galera.nodes.into_iter().nth(1).expect("the second node");
    async_pages_as_sync(&mut node, "node 2", |(order, dir), request| {
        async_page!(runtime, &mut async_conn, (order, dir), request)
    });
}
