//! Pages across read replicas: a listing walked page by page, each page from the primary or from
//! a streaming hot standby at random, while a writer on the primary inserts and deletes rows
//! between pages. Keyset pages repeat no row and skip none that exists on both servers for the
//! whole walk, in order; the same walk with LIMIT/OFFSET pages repeats and skips rows, counted.
//!
//! `tests/replica.sh` starts the two servers of its own and runs this with their URLs in
//! `KEYSET_PRIMARY_URL` and `KEYSET_REPLICA_URL`. Without them the test fails: it never skips.

mod writer;

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel::sql_types::{Bool, Text};
use keyset_runtime::migration::Backend;
use keyset_runtime::{Keyset, PageRequest, Paginate};
use keyset_tests::models::Newest;
use keyset_tests::schema::posts;
use keyset_tests::seed;

use writer::{Lcg, Writer};

/// Rows on the primary before each walk, replicated before the walk starts.
const SEED_ROWS: i64 = 3_000;
const LIMIT: u32 = 50;
/// A walk that takes more pages is going round in circles.
const MAX_PAGES: usize = 1_000;
/// Which server serves each page; the writer has a seed of its own.
const ROUTE_SEED: u64 = 20;

#[test]
fn keyset_pages_from_primary_and_replica_repeat_and_skip_nothing() {
    let mut servers = Servers::connect();
    let initial = servers.fresh_table();
    let mut writer = Writer::new(servers.connect_primary(), initial.iter().copied());
    let mut route = Lcg(ROUTE_SEED);
    let mut walk = Walk::default();
    let mut request = PageRequest::first(LIMIT);
    for _ in 0..MAX_PAGES {
        let load = |conn: &mut PgConnection| {
            let page = posts::table
                .select(Newest::as_select())
                .paginate(&request)
                .expect("valid request")
                .load_page(conn);
            page.unwrap_or_else(|err| panic!("a page failed: {err}"))
        };
        let page = if route.below(2) == 1 {
            let page = load(&mut servers.replica);
            walk.replica_page(&page.items, &load(&mut servers.primary).items);
            page
        } else {
            walk.primary_pages += 1;
            load(&mut servers.primary)
        };
        walk.rows.extend(page.items.iter().map(|row| (row.created_at, row.id)));
        let Some(token) = page.next_cursor else {
            break;
        };
        request = PageRequest::after(token, LIMIT);
        writer.between_pages(&walk.rows);
    }
    let report = walk.check(&initial, &writer);
    println!("keyset: {}; {report}", walk.summary(&writer));
    assert!(walk.rows.windows(2).all(|w| w[0] > w[1]), "keyset pages come strictly in order");
    assert_eq!((report.repeated, report.missing), (0, 0), "keyset pages repeat or skip rows");
}

/// The same walk, routing and writes with `LIMIT … OFFSET …` pages, hand-written in Diesel.
#[test]
fn offset_pages_from_primary_and_replica_repeat_and_skip_rows() {
    let mut servers = Servers::connect();
    let initial = servers.fresh_table();
    let mut writer = Writer::new(servers.connect_primary(), initial.iter().copied());
    let mut route = Lcg(ROUTE_SEED);
    let mut walk = Walk::default();
    for page in 0..MAX_PAGES {
        let load = |conn: &mut PgConnection| -> Vec<Newest> {
            posts::table
                .select(Newest::as_select())
                .order((posts::created_at.desc(), posts::id.desc()))
                .limit(i64::from(LIMIT))
                .offset(page as i64 * i64::from(LIMIT))
                .load(conn)
                .expect("an OFFSET page loads")
        };
        let items = if route.below(2) == 1 {
            let items = load(&mut servers.replica);
            walk.replica_page(&items, &load(&mut servers.primary));
            items
        } else {
            walk.primary_pages += 1;
            load(&mut servers.primary)
        };
        walk.rows.extend(items.iter().map(|row| (row.created_at, row.id)));
        if items.len() < LIMIT as usize {
            break;
        }
        writer.between_pages(&walk.rows);
    }
    let report = walk.check(&initial, &writer);
    println!("offset: {}; {report}", walk.summary(&writer));
    assert!(report.repeated > 0, "OFFSET pages repeat rows when rows are inserted before them");
    assert!(report.missing > 0, "OFFSET pages skip rows when rows before them are deleted");
}

/// The connections: the primary (for the walk's pages) and the replica, a standby in recovery.
struct Servers {
    primary_url: String,
    primary: PgConnection,
    replica: PgConnection,
}

impl Servers {
    fn connect() -> Self {
        let primary_url = env_url("KEYSET_PRIMARY_URL");
        let replica_url = env_url("KEYSET_REPLICA_URL");
        let mut primary = PgConnection::establish(&primary_url)
            .unwrap_or_else(|err| panic!("the primary at {primary_url} cannot be reached: {err}"));
        let mut replica = PgConnection::establish(&replica_url)
            .unwrap_or_else(|err| panic!("the replica at {replica_url} cannot be reached: {err}"));
        assert!(
            !flag(&mut primary, "SELECT pg_is_in_recovery() AS flag"),
            "the primary is a standby"
        );
        assert!(
            flag(&mut replica, "SELECT pg_is_in_recovery() AS flag"),
            "the replica is no standby"
        );
        Servers { primary_url, primary, replica }
    }

    fn connect_primary(&self) -> PgConnection {
        PgConnection::establish(&self.primary_url).expect("the primary answers")
    }

    /// A real `posts` table on the primary (the standby gets it by replication) with
    /// [`SEED_ROWS`] rows and `Newest`'s index, replayed on the replica. Returns the ids.
    fn fresh_table(&mut self) -> BTreeSet<i64> {
        // The two tests share the servers: the table is one at a time.
        let conn = &mut self.primary;
        diesel::sql_query("SELECT pg_advisory_lock(20)").execute(conn).unwrap();
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
            Newest::INDEXES[0].create(Backend::Postgres),
        ] {
            diesel::sql_query(statement).execute(conn).expect("create the table");
        }
        let rows: Vec<_> = (1..=SEED_ROWS).map(seed::post).collect();
        for chunk in rows.chunks(1_000) {
            diesel::insert_into(posts::table).values(chunk).execute(conn).expect("seed");
        }
        wait_for_replay(&mut self.replica, &current_lsn(conn));
        let replicated: i64 = posts::table.count().get_result(&mut self.replica).unwrap();
        assert_eq!(replicated, SEED_ROWS, "the replica holds the seeded rows");
        (1..=SEED_ROWS).collect()
    }
}

impl Drop for Servers {
    fn drop(&mut self) {
        let _ = diesel::sql_query("SELECT pg_advisory_unlock(20)").execute(&mut self.primary);
    }
}

fn env_url(var: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| {
        panic!(
            "{var} is not set: this test needs a primary and a streaming replica; \
             `bash tests/replica.sh` starts both and sets it"
        )
    })
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

/// Where the primary's WAL ends: everything committed so far.
fn current_lsn(primary: &mut PgConnection) -> String {
    let sql = "SELECT pg_current_wal_lsn()::text AS lsn";
    diesel::sql_query(sql).get_result::<Lsn>(primary).expect("the primary's WAL position").lsn
}

/// Waits until the replica has replayed the primary's WAL up to `lsn`.
fn wait_for_replay(replica: &mut PgConnection, lsn: &str) {
    let started = Instant::now();
    let sql = "SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS flag";
    while !diesel::sql_query(sql).bind::<Text, _>(lsn).get_result::<Flag>(replica).unwrap().flag {
        assert!(started.elapsed() < Duration::from_secs(30), "the replica is not replaying");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The rows a walk returned, in the order it returned them, and where its pages came from.
#[derive(Default)]
struct Walk {
    rows: Vec<(NaiveDateTime, i64)>,
    primary_pages: usize,
    replica_pages: usize,
    /// Replica pages that differ from the page the primary served for the same request at the
    /// same moment (the writer writes only between pages): the replica had not replayed the
    /// last writes yet.
    stale_replica_pages: usize,
}

impl Walk {
    fn replica_page(&mut self, replica: &[Newest], primary: &[Newest]) {
        self.replica_pages += 1;
        if replica != primary {
            self.stale_replica_pages += 1;
        }
    }

    /// Every row that existed on the primary for the whole walk (seeded, never deleted) against
    /// the rows the walk returned.
    fn check(&self, initial: &BTreeSet<i64>, writer: &Writer) -> Report {
        let mut seen = BTreeMap::<i64, usize>::new();
        for (_, id) in &self.rows {
            *seen.entry(*id).or_default() += 1;
        }
        let stable: BTreeSet<i64> = initial.difference(&writer.deleted).copied().collect();
        Report {
            rows: self.rows.len(),
            stable: stable.len(),
            repeated: seen.values().map(|n| n - 1).sum(),
            missing: stable.iter().filter(|id| !seen.contains_key(id)).count(),
            new_seen: seen.keys().filter(|id| !initial.contains(id)).count(),
            deleted_seen: seen.keys().filter(|id| writer.deleted.contains(id)).count(),
        }
    }

    fn summary(&self, writer: &Writer) -> String {
        format!(
            "{} pages ({} from the primary, {} from the replica, {} of those behind the primary), \
             beside {} inserts and {} deletes",
            self.primary_pages + self.replica_pages,
            self.primary_pages,
            self.replica_pages,
            self.stale_replica_pages,
            writer.inserted,
            writer.deleted.len(),
        )
    }
}

struct Report {
    rows: usize,
    stable: usize,
    repeated: usize,
    missing: usize,
    new_seen: usize,
    deleted_seen: usize,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} rows returned: {} repeated, {} of the {} rows present throughout missing \
             ({} rows inserted during the walk and {} deleted during it came back too)",
            self.rows, self.repeated, self.missing, self.stable, self.new_seen, self.deleted_seen
        )
    }
}
