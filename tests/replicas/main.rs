//! Pages across read replicas: a listing walked page by page, each page from the primary or from
//! a replica at random, while a writer on the primary inserts and deletes rows between pages.
//! Keyset pages repeat no row and skip none that exists on both servers for the whole walk, in
//! order; the same walk with LIMIT/OFFSET pages repeats and skips rows, counted.
//!
//! The walks are written once, over [`Backend`]; each backend's module runs them on its pair:
//! `postgres::` on a PostgreSQL primary and streaming hot standby (`KEYSET_PRIMARY_URL`,
//! `KEYSET_REPLICA_URL`), `mariadb::` on a MariaDB primary and its binlog replica
//! (`KEYSET_MARIADB_PRIMARY_URL`, `KEYSET_MARIADB_REPLICA_URL`). `tests/replica.sh` starts both
//! pairs of its own and runs each backend's tests with its URLs (`cargo test --test replicas --
//! postgres::`, then `mariadb::`). A test whose URLs are not set fails: it never skips.

mod mariadb;
mod postgres;
mod writer;

use std::collections::{BTreeMap, BTreeSet};

use chrono::NaiveDateTime;
use keyset_runtime::{Page, PageRequest};
use keyset_tests::models::Newest;
use keyset_tests::seed::{self, NewPost};

use writer::{Lcg, Writer};

/// Rows on the primary before each walk, replicated before the walk starts.
const SEED_ROWS: i64 = 3_000;
const LIMIT: u32 = 50;
/// A walk that takes more pages is going round in circles.
const MAX_PAGES: usize = 1_000;
/// Which server serves each page; the writer has a seed of its own.
const ROUTE_SEED: u64 = 20;
/// With `KEYSET_REPLICA_STALLS` set, the replica applies nothing during the last `STALL` of
/// every `2 * STALL` pages, then catches up: it falls up to `STALL - 1` rounds of writes behind,
/// and back.
const STALL: usize = 5;

/// A primary and its replica of one backend: what differs between backends. Pages and writes
/// are the same Diesel code on each, [`same_statements!`] written out for each connection type.
pub trait Backend {
    type Conn;
    /// The environment variables holding the primary's and the replica's URLs.
    const URL_VARS: (&'static str, &'static str);

    fn establish(url: &str) -> Self::Conn;
    /// Takes the lock the tests share the servers under (one walk at a time), then panics unless
    /// `primary` is a primary and `replica` replicates from it.
    fn lock_and_check(primary: &mut Self::Conn, replica: &mut Self::Conn);
    /// Releases the lock; called when the walk ends, passed or failed.
    fn unlock(primary: &mut Self::Conn);
    /// `DROP` and `CREATE` of a real `posts` table with `Newest`'s index, on the primary.
    fn create_table(primary: &mut Self::Conn);
    /// Waits until the replica has applied everything committed on the primary so far (before
    /// the walk only: the walk's own pages wait for nothing).
    fn wait_for_replica(primary: &mut Self::Conn, replica: &mut Self::Conn);
    /// Stops or restarts the replica applying what it receives.
    fn set_replay(replica: &mut Self::Conn, running: bool);

    fn keyset_page(conn: &mut Self::Conn, request: &PageRequest) -> Page<Newest>;
    /// The `LIMIT … OFFSET …` page at `offset`, in `Newest`'s order, hand-written in Diesel.
    fn offset_page(conn: &mut Self::Conn, offset: i64) -> Vec<Newest>;
    /// Inserts the rows, in one statement.
    fn insert(conn: &mut Self::Conn, rows: &[NewPost]);
    /// Deletes the row; returns how many rows went.
    fn delete(conn: &mut Self::Conn, id: i64) -> usize;
    fn count(conn: &mut Self::Conn) -> i64;
}

/// The [`Backend`] functions that are the same Diesel code on every backend, written out in an
/// `impl Backend` (whose `Conn` is concrete, so no Diesel bounds are spelled out).
macro_rules! same_statements {
    () => {
        fn keyset_page(
            conn: &mut Self::Conn,
            request: &keyset_runtime::PageRequest,
        ) -> keyset_runtime::Page<keyset_tests::models::Newest> {
            use diesel::prelude::*;
            use keyset_runtime::Paginate;
            use keyset_tests::schema::posts;
            posts::table
                .select(keyset_tests::models::Newest::as_select())
                .paginate(request)
                .expect("valid request")
                .load_page(conn)
                .unwrap_or_else(|err| panic!("a page failed: {err}"))
        }

        fn offset_page(conn: &mut Self::Conn, offset: i64) -> Vec<keyset_tests::models::Newest> {
            use diesel::prelude::*;
            use keyset_tests::schema::posts;
            posts::table
                .select(keyset_tests::models::Newest::as_select())
                .order((posts::created_at.desc(), posts::id.desc()))
                .limit(i64::from(crate::LIMIT))
                .offset(offset)
                .load(conn)
                .expect("an OFFSET page loads")
        }

        fn insert(conn: &mut Self::Conn, rows: &[keyset_tests::seed::NewPost]) {
            use diesel::prelude::*;
            use keyset_tests::schema::posts;
            diesel::insert_into(posts::table).values(rows).execute(conn).expect("insert");
        }

        fn delete(conn: &mut Self::Conn, id: i64) -> usize {
            use diesel::prelude::*;
            use keyset_tests::schema::posts;
            diesel::delete(posts::table.find(id)).execute(conn).expect("delete")
        }

        fn count(conn: &mut Self::Conn) -> i64 {
            use diesel::prelude::*;
            use keyset_tests::schema::posts;
            posts::table.count().get_result(conn).expect("count")
        }
    };
}
use same_statements;

/// The keyset walk on backend `B`: every page after the last one's `next_cursor`.
fn keyset_pages_repeat_and_skip_nothing<B: Backend>() {
    let mut servers = Servers::<B>::connect();
    let initial = servers.fresh_table();
    let mut writer = Writer::<B>::new(servers.connect_primary(), initial.iter().copied());
    let mut route = Lcg(ROUTE_SEED);
    let mut walk = Walk::default();
    let mut request = PageRequest::first(LIMIT);
    for page in 0..MAX_PAGES {
        servers.stall_for(page);
        let page = if route.below(2) == 1 {
            let page = B::keyset_page(&mut servers.replica, &request);
            walk.replica_page(&page.items, &B::keyset_page(&mut servers.primary, &request).items);
            page
        } else {
            walk.primary_pages += 1;
            B::keyset_page(&mut servers.primary, &request)
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

/// The same walk, routing and writes on backend `B` with `LIMIT … OFFSET …` pages.
fn offset_pages_repeat_and_skip_rows<B: Backend>() {
    let mut servers = Servers::<B>::connect();
    let initial = servers.fresh_table();
    let mut writer = Writer::<B>::new(servers.connect_primary(), initial.iter().copied());
    let mut route = Lcg(ROUTE_SEED);
    let mut walk = Walk::default();
    for page in 0..MAX_PAGES {
        servers.stall_for(page);
        let offset = page as i64 * i64::from(LIMIT);
        let items = if route.below(2) == 1 {
            let items = B::offset_page(&mut servers.replica, offset);
            walk.replica_page(&items, &B::offset_page(&mut servers.primary, offset));
            items
        } else {
            walk.primary_pages += 1;
            B::offset_page(&mut servers.primary, offset)
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

/// The connections: the primary (for the walk's pages) and the replica.
struct Servers<B: Backend> {
    primary_url: String,
    primary: B::Conn,
    replica: B::Conn,
    /// `KEYSET_REPLICA_STALLS` is set: replay stops for stretches of pages.
    stalls: bool,
    replaying: bool,
}

impl<B: Backend> Servers<B> {
    fn connect() -> Self {
        let primary_url = env_url(B::URL_VARS.0);
        let replica_url = env_url(B::URL_VARS.1);
        let mut primary = B::establish(&primary_url);
        let mut replica = B::establish(&replica_url);
        B::lock_and_check(&mut primary, &mut replica);
        let stalls = std::env::var_os("KEYSET_REPLICA_STALLS").is_some();
        Servers { primary_url, primary, replica, stalls, replaying: true }
    }

    fn connect_primary(&self) -> B::Conn {
        B::establish(&self.primary_url)
    }

    /// A real `posts` table on the primary (the replica gets it by replication) with
    /// [`SEED_ROWS`] rows and `Newest`'s index, applied on the replica. Returns the ids.
    fn fresh_table(&mut self) -> BTreeSet<i64> {
        B::set_replay(&mut self.replica, true);
        B::create_table(&mut self.primary);
        let rows: Vec<_> = (1..=SEED_ROWS).map(seed::post).collect();
        for chunk in rows.chunks(1_000) {
            B::insert(&mut self.primary, chunk);
        }
        B::wait_for_replica(&mut self.primary, &mut self.replica);
        assert_eq!(B::count(&mut self.replica), SEED_ROWS, "the replica holds the seeded rows");
        (1..=SEED_ROWS).collect()
    }

    /// Before page `page` (from 0): with stalls, replay stops for the second half of every
    /// `2 * STALL` pages and restarts for the first.
    fn stall_for(&mut self, page: usize) {
        let running = !self.stalls || page % (2 * STALL) < STALL;
        if running != self.replaying {
            B::set_replay(&mut self.replica, running);
            self.replaying = running;
        }
    }
}

impl<B: Backend> Drop for Servers<B> {
    fn drop(&mut self) {
        if !self.replaying {
            B::set_replay(&mut self.replica, true);
        }
        B::unlock(&mut self.primary);
    }
}

fn env_url(var: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| {
        panic!(
            "{var} is not set: this test needs a primary and a replica; \
             `bash tests/replica.sh` starts both and sets it"
        )
    })
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
    fn check<B: Backend>(&self, initial: &BTreeSet<i64>, writer: &Writer<B>) -> Report {
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

    fn summary<B: Backend>(&self, writer: &Writer<B>) -> String {
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
