//! A listing spread over several databases (shards) pages as one: `load_page_sharded` runs the
//! page on every shard and merges the rows. Each page of a sharded walk, forward to the end and
//! back to the start, with rows inserted and deleted on the shards between pages, is compared
//! with the page one database holding the union of the shards serves for the same request:
//! rows and tokens. Per-shard id sequences, which collide across shards, fail the page (the
//! union in one database could not even hold them); a shard that fails fails the page.

use std::cell::RefCell;
use std::fmt::Debug;

use diesel::prelude::*;
use keyset_runtime::{Error, Page, PageQuery, PageRequest, Paginate, Shardable};
use keyset_tests::models::{Newest, RankDue, TagInByteOrder};
use keyset_tests::schema::{authors, posts};
use keyset_tests::seed;
use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};

use super::db;
use super::props::{config, fill, table, MAX_ROWS, MAX_STEPS};
use crate::shards_db::{self, Databases, SHARD_COUNTS};
use crate::{connect, Conn};

const ROWS: i64 = 150;
const LIMITS: [u32; 2] = [7, 40];
/// A walk that takes more pages is going round in circles.
const MAX_PAGES: usize = 1_000;

/// The shard a row lives on: a hash of its id, as sharded services place rows.
fn shard_of(id: i64, shards: usize) -> usize {
    ((id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 33) as usize % shards
}

/// Shards, and one more database holding the union of their rows: the oracle.
struct Cluster {
    shards: Vec<Conn>,
    union: Conn,
    /// The next id to insert: past every seeded one, so ids stay unique across shards.
    next_id: i64,
    databases: Databases,
}

impl Cluster {
    /// `count` shards holding posts 1..=ROWS between them.
    fn new(tag: &str, count: usize) -> Self {
        let databases = shards_db::fresh(tag, count + 1);
        let mut shards = databases.connect();
        let union = shards.pop().expect("the union's database");
        let mut cluster = Cluster { shards, union, next_id: ROWS + 1, databases: databases };
        let authors: Vec<_> = seed::authors()
            .into_iter()
            .map(|(id, name)| (authors::id.eq(id), authors::name.eq(name)))
            .collect();
        for conn in cluster.shards.iter_mut().chain([&mut cluster.union]) {
            diesel::insert_into(authors::table).values(&authors).execute(conn).unwrap();
        }
        for id in 1..=ROWS {
            cluster.insert(id);
        }
        cluster
    }

    fn insert(&mut self, id: i64) {
        let count = self.shards.len();
        for conn in [&mut self.shards[shard_of(id, count)], &mut self.union] {
            db::insert_posts(conn, [id]);
        }
    }

    /// Writes between two pages: a new post (its keys anywhere in the order: ahead of the walk,
    /// behind it, or in the page just served) and a deleted one.
    fn write(&mut self, step: usize) {
        self.insert(self.next_id);
        self.next_id += 1;
        let gone = 1 + (step as i64 * 37) % ROWS;
        let count = self.shards.len();
        for conn in [&mut self.shards[shard_of(gone, count)], &mut self.union] {
            diesel::delete(posts::table.find(gone)).execute(conn).unwrap();
        }
    }
}

/// The sharded page and the union's page for `request`, which must be equal.
fn both<Q>(cluster: &mut Cluster, query: &impl Fn() -> Q, request: &PageRequest) -> Page<Q::Item>
where
    Q: PageQuery<'static, Conn> + Clone,
    Q::Model: Shardable,
    Q::Item: Send,
    Q::Item: PartialEq + Debug,
{
    let sharded = query().paginate(request).unwrap().load_page_sharded(&mut cluster.shards);
    let sharded = sharded.unwrap_or_else(|err| panic!("a sharded page failed: {err}"));
    let union = query().paginate(request).unwrap().load_page(&mut cluster.union).unwrap();
    assert_eq!(sharded, union, "the sharded page differs from the union's for {request:?}");
    sharded
}

/// Walks forward to the end, then backward to the start, writing between every two pages;
/// returns the pages served.
fn walk<Q>(cluster: &mut Cluster, limit: u32, query: impl Fn() -> Q) -> usize
where
    Q: PageQuery<'static, Conn> + Clone,
    Q::Model: Shardable,
    Q::Item: Send,
    Q::Item: PartialEq + Debug,
{
    let mut pages = 0;
    for backward in [false, true] {
        let mut request =
            if backward { PageRequest::last(limit) } else { PageRequest::first(limit) };
        loop {
            assert!(pages < MAX_PAGES, "the walk is going round in circles");
            let page = both(cluster, &query, &request);
            pages += 1;
            cluster.write(pages);
            let token = if backward { page.prev_cursor } else { page.next_cursor };
            match token {
                Some(token) if backward => request = PageRequest::before(token, limit),
                Some(token) => request = PageRequest::after(token, limit),
                None => break,
            }
        }
    }
    pages
}

#[test]
fn sharded_walks_equal_the_unions_with_writes_between_pages() {
    for &count in SHARD_COUNTS {
        let mut cluster = Cluster::new("walks", count);
        for limit in LIMITS {
            // Ties on the leading key, nullable keys, and a text key in byte order.
            let pages = walk(&mut cluster, limit, || posts::table.select(Newest::as_select()));
            assert!(pages >= 2 * (ROWS as usize / limit as usize), "{pages} pages");
            walk(&mut cluster, limit, || posts::table.select(RankDue::as_select()));
            walk(&mut cluster, limit, || posts::table.select(TagInByteOrder::as_select()));
            // A filter of the query runs on every shard.
            walk(&mut cluster, limit, || {
                posts::table.filter(posts::score.ne(2)).select(Newest::as_select())
            });
        }
    }
}

#[test]
fn page_numbers_over_shards_equal_the_unions() {
    let count = SHARD_COUNTS[0];
    let mut cluster = Cluster::new("numbers", count);
    let query = || posts::table.select(RankDue::as_select());
    let last = (ROWS as u32).div_ceil(23);
    for number in 1..=last + 1 {
        let page = both(&mut cluster, &query, &PageRequest::page_number(number, 23));
        assert_eq!(page.has_next(), number < last, "page {number}");
        assert_eq!(page.items.is_empty(), number > last, "page {number}");
    }
}

#[test]
fn per_shard_id_sequences_collide_and_fail_the_page() {
    let count = SHARD_COUNTS[0];
    let databases = shards_db::fresh("collide", count);
    let mut shards = databases.connect();
    for conn in &mut shards {
        let authors: Vec<_> = seed::authors()
            .into_iter()
            .map(|(id, name)| (authors::id.eq(id), authors::name.eq(name)))
            .collect();
        diesel::insert_into(authors::table).values(&authors).execute(conn).unwrap();
        // Each shard numbers its own rows from 1: the same ids, the same keys, on every shard.
        db::insert_posts(conn, 1..=30);
    }
    let query = || posts::table.select(Newest::as_select());
    for request in [PageRequest::first(10), PageRequest::last(10)] {
        let err = query().paginate(&request).unwrap().load_page_sharded(&mut shards).unwrap_err();
        assert!(matches!(err, Error::ShardKeysCollide { shards: (0, 1), .. }), "{err}");
        assert!(!err.is_client_error(), "the server's fault, not the client's");
        assert!(err.to_string().contains("unique across shards"), "{err}");
    }
}

#[test]
fn a_shard_that_fails_fails_the_page() {
    let mut cluster = Cluster::new("down", SHARD_COUNTS[0]);
    let query = || posts::table.select(Newest::as_select());
    let first = both(&mut cluster, &query, &PageRequest::first(10));
    shards_db::take_down(&mut cluster.shards[1]);
    let after = PageRequest::after(first.next_cursor.unwrap(), 10);
    let err = query().paginate(&after).unwrap().load_page_sharded(&mut cluster.shards).unwrap_err();
    match &err {
        Error::Shard { shard: 1, source } => assert!(matches!(**source, Error::Database(_))),
        other => panic!("expected shard 1's error, got {other}"),
    }
    assert!(!err.is_client_error());
    assert!(err.to_string().starts_with("shard 1 failed: database error"), "{err}");
}

/// One shard holds the row of an id: a sharded page at it (`at_row_id`) would miss the other
/// shards' rows past it, so it is refused, the server's error, before any shard is asked; at a
/// row in hand (`at_row`) it pages as the union.
#[test]
fn a_sharded_page_at_a_row_id_is_refused_and_at_a_row_pages_as_the_union() {
    let mut cluster = Cluster::new("rowid", SHARD_COUNTS[0]);
    let query = || posts::table.select(Newest::as_select());
    let first = both(&mut cluster, &query, &PageRequest::first(10));
    let row = &first.items[3];
    let by_id = query().paginate(&PageRequest::first(5)).unwrap().at_row_id(row.id).unwrap();
    let err = by_id.load_page_sharded(&mut cluster.shards).unwrap_err();
    assert!(!err.is_client_error(), "the server's fault, not the client's: {err}");
    assert!(err.to_string().contains("at_row(&row)"), "{err}");
    let held = query().paginate(&PageRequest::first(5)).unwrap().at_row(row);
    let held = held.load_page_sharded(&mut cluster.shards).unwrap();
    assert_eq!(held.items, first.items[3..8]);
}

#[test]
fn no_shards_is_an_error_not_an_empty_page() {
    let mut none: Vec<Conn> = Vec::new();
    let query = posts::table.select(Newest::as_select());
    let err = query.paginate(&PageRequest::first(5)).unwrap().load_page_sharded(&mut none);
    assert!(matches!(err, Err(Error::NoShards)), "{err:?}");
}

/// The async path queries the shards concurrently, on diesel-async's connections to the same
/// databases, and serves the same pages and tokens as the sync path.
#[test]
fn async_sharded_pages_equal_the_sync_ones() {
    let mut cluster = Cluster::new("async", SHARD_COUNTS[SHARD_COUNTS.len() - 1]);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let mut shards = rt.block_on(cluster.databases.connect_async());
    shards.pop(); // the union's
    let query = || posts::table.select(RankDue::as_select());
    let mut request = PageRequest::first(17);
    let mut pages = 0;
    loop {
        let paginated = query().paginate(&request).unwrap();
        let page = rt.block_on(paginated.load_page_sharded_async(&mut shards)).unwrap();
        assert_eq!(page, both(&mut cluster, &query, &request), "page {pages}");
        pages += 1;
        match page.next_cursor {
            Some(token) => request = PageRequest::after(token, 17),
            None => break,
        }
    }
    assert_eq!(pages, (ROWS as usize).div_ceil(17));
    // A shard that fails fails the async page too: here its table is gone. The other shards'
    // statements run to the end: dropped unfinished, SQLite's `SyncConnectionWrapper` panicked
    // on this current-thread runtime whenever the failing shard answered first (most of 20
    // tries, before the page awaited them all).
    let drop = diesel::sql_query("DROP TABLE posts");
    rt.block_on(diesel_async::RunQueryDsl::execute(drop, &mut shards[0])).unwrap();
    for _ in 0..20 {
        let paginated = query().paginate(&PageRequest::first(17)).unwrap();
        let err = rt.block_on(paginated.load_page_sharded_async(&mut shards)).unwrap_err();
        assert!(matches!(err, Error::Shard { shard: 0, .. }), "{err}");
    }
}

/// A connection of its own (its own temporary tables, or in-memory database) with the authors
/// the generated posts refer to: one shard, or the union.
fn generated_shard() -> Conn {
    let mut conn = connect();
    let authors: Vec<_> =
        (1..=3).map(|id| (authors::id.eq(id), authors::name.eq(format!("author {id}")))).collect();
    diesel::insert_into(authors::table).values(&authors).execute(&mut conn).unwrap();
    conn
}

/// Walks `steps` (first, last, next or previous page, each of its own size) over the shards and
/// over the union at once: every page, rows and tokens, must be the union's.
fn generated_walk<Q>(
    shards: &mut [Conn],
    union: &mut Conn,
    query: impl Fn() -> Q,
    steps: &[(u8, u32)],
) -> Result<(), TestCaseError>
where
    Q: PageQuery<'static, Conn> + Clone,
    Q::Model: Shardable,
    Q::Item: Send,
    Q::Item: PartialEq + Debug,
{
    let mut tokens: (Option<String>, Option<String>) = (None, None);
    for (index, &(op, limit)) in steps.iter().enumerate() {
        let request = match (op, &tokens) {
            (2, (Some(next), _)) => PageRequest::after(next.clone(), limit),
            (3, (_, Some(prev))) => PageRequest::before(prev.clone(), limit),
            (1 | 3, _) => PageRequest::last(limit),
            _ => PageRequest::first(limit),
        };
        let sharded = query().paginate(&request).unwrap().load_page_sharded(&mut *shards);
        let sharded = sharded.map_err(|err| TestCaseError::fail(format!("step {index}: {err}")))?;
        let one = query().paginate(&request).unwrap().load_page(union).unwrap();
        prop_assert_eq!(&sharded, &one, "step {} ({:?})", index, request);
        tokens = (sharded.next_cursor, sharded.prev_cursor);
    }
    Ok(())
}

/// Generated tables (heavy ties, extreme values, NULLs in both placements) spread over 1 to 4
/// shards at random, walked at random in orders with ties and with nullable keys: every page is
/// the union's. A quarter of the suite's cases: each case fills five databases.
#[test]
fn sharded_walks_of_generated_tables_equal_the_unions() {
    let shards = RefCell::new((0..4).map(|_| generated_shard()).collect::<Vec<_>>());
    let union = RefCell::new(generated_shard());
    let placement = prop::collection::vec(0..4usize, MAX_ROWS);
    let steps = prop::collection::vec((0..4u8, 1..=12u32), 1..=MAX_STEPS);
    let strategy = (table(), 1..=4usize, placement, steps);
    let mut config = config();
    config.cases = config.cases.div_ceil(4);
    let mut runner = TestRunner::new(config);
    let result = runner.run(&strategy, |(rows, count, placement, steps)| {
        let (mut shards, mut union) = (shards.borrow_mut(), union.borrow_mut());
        fill(&mut union, &rows);
        for (shard, conn) in shards.iter_mut().enumerate().take(count) {
            let rows: Vec<_> = (rows.iter().zip(&placement))
                .filter(|(_, &placed)| placed % count == shard)
                .map(|(row, _)| row.clone())
                .collect();
            fill(conn, &rows);
        }
        let shards = &mut shards[..count];
        generated_walk(shards, &mut union, || posts::table.select(Newest::as_select()), &steps)?;
        generated_walk(shards, &mut union, || posts::table.select(RankDue::as_select()), &steps)
    });
    if let Err(err) = result {
        panic!("{err}");
    }
}
