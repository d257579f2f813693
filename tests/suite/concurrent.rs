//! Keyset pagination under concurrent writes: one thread walks the table page by page while
//! another, on its own connection, commits inserts just before and just after the walk's cursor,
//! deletes rows (the cursor row itself too) and updates columns that are not sort keys.
//!
//! The claim: no row comes back twice, every row that existed for the whole walk comes back
//! exactly once, in order, and no page fails. Between any two pages the writer commits at least
//! one change; the writer stops after [`MAX_WRITES`] or [`TIME_LIMIT`].

use std::cmp::Ordering as Cmp;
use std::collections::BTreeSet;
use std::fmt::Debug;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use chrono::NaiveDateTime;
use diesel::prelude::*;
use keyset_runtime::{AsyncPageQuery, Error, Keyset, Page, PageQuery, PageRequest};
use keyset_tests::models::{Newest, RankAscNullsFirst, RankDescNullsLast, TopScore};
use keyset_tests::order::{key, plain};
use keyset_tests::schema::{authors, posts};
use keyset_tests::seed;

use crate::shared::SharedDb;
use crate::{AsyncConn, Conn};

const SEED_ROWS: i64 = 300;
const MAX_WRITES: usize = 5_000;
const TIME_LIMIT: Duration = Duration::from_secs(5);
const MAX_PAGES: usize = 1_000;

/// What the two threads share: the id of the row the walker's cursor points at, the writer's
/// progress, and the end of the walks.
#[derive(Default)]
struct Shared {
    cursor_id: AtomicI64,
    writes: AtomicUsize,
    walks_done: AtomicBool,
    writer_done: AtomicBool,
}

impl Shared {
    /// Waits until the writer has committed something since `seen`, unless it has stopped.
    fn wait_for_a_write(&self, seen: usize) {
        while self.writes.load(Ordering::Acquire) == seen
            && !self.writer_done.load(Ordering::Acquire)
        {
            thread::sleep(Duration::from_micros(100));
        }
    }
}

/// What the writer did.
#[derive(Debug, Default)]
struct Writes {
    inserted: usize,
    deleted: BTreeSet<i64>,
    deleted_cursor_rows: usize,
    updated: usize,
}

/// Loads the walks' pages: on the sync path, or on the async one.
trait Pager {
    fn page<Q>(&mut self, query: Q, request: &PageRequest) -> Result<Page<Q::Model>, Error>
    where
        Q: PageQuery<'static, Conn, Item = <Q as keyset_runtime::Paginate>::Model>
            + AsyncPageQuery<'static, AsyncConn>,
        Q::Model: Send;
}

impl Pager for Conn {
    fn page<Q>(&mut self, query: Q, request: &PageRequest) -> Result<Page<Q::Model>, Error>
    where
        Q: PageQuery<'static, Conn, Item = <Q as keyset_runtime::Paginate>::Model>
            + AsyncPageQuery<'static, AsyncConn>,
        Q::Model: Send,
    {
        query.paginate(request)?.load_page(self)
    }
}

/// The async path: a diesel-async connection to the same tables, driven by its own runtime.
struct AsyncPager(tokio::runtime::Runtime, AsyncConn);

impl Pager for AsyncPager {
    fn page<Q>(&mut self, query: Q, request: &PageRequest) -> Result<Page<Q::Model>, Error>
    where
        Q: PageQuery<'static, Conn, Item = <Q as keyset_runtime::Paginate>::Model>
            + AsyncPageQuery<'static, AsyncConn>,
        Q::Model: Send,
    {
        let paginated = query.paginate(request)?;
        self.0.block_on(paginated.load_page_async(&mut self.1))
    }
}

#[test]
fn walks_stay_exact_while_another_connection_writes() {
    walks_beside_a_writer(|db| db.connect());
}

/// The same walks through `load_page_async` on diesel-async's connection.
#[test]
fn async_walks_stay_exact_while_another_connection_writes() {
    walks_beside_a_writer(|db| {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let conn = rt.block_on(db.connect_async());
        AsyncPager(rt, conn)
    });
}

/// Five walks (row value, OR expansion, two-seek nullable, forward and backward) on the pages
/// `pager` loads, beside a writer on its own connection.
fn walks_beside_a_writer<P: Pager>(pager: impl FnOnce(&SharedDb) -> P) {
    let db = SharedDb::create();
    let mut conn = db.connect();
    let authors: Vec<_> = seed::authors()
        .into_iter()
        .map(|(id, name)| (authors::id.eq(id), authors::name.eq(name)))
        .collect();
    diesel::insert_into(authors::table)
        .values(&authors)
        .execute(&mut conn)
        .expect("insert authors");
    let rows: Vec<_> = (1..=SEED_ROWS).map(seed::post).collect();
    diesel::insert_into(posts::table).values(&rows).execute(&mut conn).expect("insert posts");
    let initial: BTreeSet<i64> = (1..=SEED_ROWS).collect();
    let mut conn = pager(&db);

    let shared = Shared::default();
    let started = Instant::now();
    let (walks, writes) = thread::scope(|scope| {
        let writer = scope.spawn(|| write_until_done(db.connect(), &shared, started));
        let walks = [
            walk(
                &mut conn,
                &shared,
                "Newest forward",
                7,
                false,
                || posts::table.select(Newest::as_select()),
                |a: &Newest, b| {
                    plain(&a.created_at, &b.created_at, true).then(plain(&a.id, &b.id, true))
                },
                |row| row.id,
            ),
            walk(
                &mut conn,
                &shared,
                "Newest backward",
                5,
                true,
                || posts::table.select(Newest::as_select()),
                |a: &Newest, b| {
                    plain(&a.created_at, &b.created_at, true).then(plain(&a.id, &b.id, true))
                },
                |row| row.id,
            ),
            walk(
                &mut conn,
                &shared,
                "TopScore forward",
                9,
                false,
                || posts::table.select(TopScore::as_select()),
                |a: &TopScore, b| {
                    plain(&a.score, &b.score, false)
                        .then(plain(&a.created_at, &b.created_at, true))
                        .then(plain(&a.id, &b.id, false))
                },
                |row| row.id,
            ),
            walk(
                &mut conn,
                &shared,
                "RankDescNullsLast forward",
                6,
                false,
                || posts::table.select(RankDescNullsLast::as_select()),
                |a: &RankDescNullsLast, b| {
                    key(&a.rank, &b.rank, true, false).then(plain(&a.id, &b.id, true))
                },
                |row| row.id,
            ),
            walk(
                &mut conn,
                &shared,
                "RankAscNullsFirst backward",
                4,
                true,
                || posts::table.select(RankAscNullsFirst::as_select()),
                |a: &RankAscNullsFirst, b| {
                    key(&a.rank, &b.rank, false, true).then(plain(&a.id, &b.id, true))
                },
                |row| row.id,
            ),
        ];
        shared.walks_done.store(true, Ordering::Release);
        (walks, writer.join().expect("the writer did not fail"))
    });

    let survivors: BTreeSet<i64> = initial.difference(&writes.deleted).copied().collect();
    let pages: usize = walks.iter().map(|(_, pages, _)| pages).sum();
    println!(
        "{}: {pages} pages in {} walks beside {} committed writes ({} inserts, {} deletes of which {} of the \
         cursor row, {} updates) in {:?}; {} of {SEED_ROWS} seeded rows survived",
        std::any::type_name::<P>(),
        walks.len(),
        shared.writes.load(Ordering::Relaxed),
        writes.inserted,
        writes.deleted.len(),
        writes.deleted_cursor_rows,
        writes.updated,
        started.elapsed(),
        survivors.len(),
    );
    for (name, pages, ids) in &walks {
        let returned: BTreeSet<i64> = ids.iter().copied().collect();
        assert_eq!(returned.len(), ids.len(), "{name}: a row came back twice");
        let missing: Vec<_> = survivors.difference(&returned).collect();
        assert!(
            missing.is_empty(),
            "{name}: rows that existed for the whole walk are missing: {missing:?}"
        );
        assert!(*pages > SEED_ROWS as usize / 10, "{name}: {pages} pages");
    }
    assert!(
        writes.deleted_cursor_rows > 0 && writes.inserted > 0 && writes.updated > 0,
        "{writes:?}"
    );
}

/// Walks the whole table forward (or backward) in pages of `limit`, waiting for a write between
/// pages, and returns the walk's name, its page count and the ids in the model's order, after
/// checking that every page loaded and that the rows are strictly in the order `cmp` describes.
#[allow(clippy::too_many_arguments)]
fn walk<Q, M>(
    conn: &mut impl Pager,
    shared: &Shared,
    name: &'static str,
    limit: u32,
    backward: bool,
    query: impl Fn() -> Q,
    cmp: impl Fn(&M, &M) -> Cmp,
    id: impl Fn(&M) -> i64,
) -> (&'static str, usize, Vec<i64>)
where
    M: Keyset + Debug + Send,
    Q: PageQuery<'static, Conn, Model = M, Item = M> + AsyncPageQuery<'static, AsyncConn>,
{
    let mut pages = Vec::new();
    let mut request = if backward { PageRequest::last(limit) } else { PageRequest::first(limit) };
    for _ in 0..MAX_PAGES {
        let seen = shared.writes.load(Ordering::Acquire);
        let page = conn
            .page(query(), &request)
            .unwrap_or_else(|err| panic!("{name}: page {} failed: {err}", pages.len()));
        let (edge, token) = if backward {
            (page.items.first(), page.prev_cursor.clone())
        } else {
            (page.items.last(), page.next_cursor.clone())
        };
        if let Some(row) = edge {
            shared.cursor_id.store(id(row), Ordering::Release);
        }
        pages.push(page.items);
        match token {
            Some(token) if backward => request = PageRequest::before(token, limit),
            Some(token) => request = PageRequest::after(token, limit),
            None => break,
        }
        shared.wait_for_a_write(seen);
    }
    let count = pages.len();
    if backward {
        pages.reverse();
    }
    let rows: Vec<M> = pages.into_iter().flatten().collect();
    for pair in rows.windows(2) {
        assert_eq!(
            cmp(&pair[0], &pair[1]),
            Cmp::Less,
            "{name}: out of order: {:?}, {:?}",
            pair[0],
            pair[1]
        );
    }
    (name, count, rows.iter().map(id).collect())
}

/// Commits random changes around the walker's cursor until the walks are done, [`MAX_WRITES`]
/// changes were made, or [`TIME_LIMIT`] has passed.
fn write_until_done(mut conn: Conn, shared: &Shared, started: Instant) -> Writes {
    // Tells the walker the writer has stopped, even when a failed write panics.
    struct Stopped<'a>(&'a AtomicBool);
    impl Drop for Stopped<'_> {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Release);
        }
    }
    let _stopped = Stopped(&shared.writer_done);
    let mut writes = Writes::default();
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut fresh_high = 1_000_000_i64;
    let mut fresh_low = -1_i64;
    let mut count = 0;
    while !shared.walks_done.load(Ordering::Acquire)
        && count < MAX_WRITES
        && started.elapsed() < TIME_LIMIT
    {
        let cursor_id = shared.cursor_id.load(Ordering::Acquire);
        let random_id = 1 + (xorshift(&mut state) % SEED_ROWS as u64) as i64;
        let choice = xorshift(&mut state) % 6;
        let result = conn.transaction::<_, diesel::result::Error, _>(|conn| {
            match choice {
                // Rows tying with the cursor row on its keys, one sorting before it and one after
                // (ids above and below every other), and one anywhere.
                0 | 1 => {
                    let near = posts::table
                        .find(cursor_id)
                        .select((posts::created_at, posts::score, posts::rank))
                        .first::<(NaiveDateTime, i32, Option<i32>)>(conn)
                        .optional()?;
                    let (created_at, score, rank) = near.unwrap_or((seed::timestamp(5), 1, None));
                    let mut rows = Vec::new();
                    for id in [fresh_high, fresh_low] {
                        let title = format!("inserted {id}");
                        rows.push(seed::NewPost {
                            id,
                            created_at,
                            score,
                            rank,
                            title,
                            ..seed::post(1)
                        });
                    }
                    let anywhere = fresh_high + 1;
                    rows.push(seed::NewPost {
                        id: anywhere,
                        title: format!("inserted {anywhere}"),
                        ..seed::post(anywhere)
                    });
                    fresh_high += 2;
                    fresh_low -= 1;
                    diesel::insert_into(posts::table).values(&rows).execute(conn)?;
                    writes.inserted += rows.len();
                }
                // The cursor row itself, and any row.
                2 | 3 => {
                    let id = if choice == 2 { cursor_id } else { random_id };
                    if diesel::delete(posts::table.find(id)).execute(conn)? == 1 {
                        writes.deleted.insert(id);
                        writes.deleted_cursor_rows += usize::from(choice == 2);
                    }
                }
                // Columns that are no model's sort key.
                _ => {
                    let id = if choice == 4 { cursor_id } else { random_id };
                    writes.updated += diesel::update(posts::table.find(id))
                        .set((
                            posts::tag.eq(seed::TAGS[count % seed::TAGS.len()]),
                            posts::title.eq(format!("updated {count}")),
                            posts::due.eq(None::<NaiveDateTime>),
                        ))
                        .execute(conn)?;
                }
            }
            Ok(())
        });
        result.unwrap_or_else(|err| panic!("write {count} (kind {choice}) failed: {err}"));
        count += 1;
        shared.writes.store(count, Ordering::Release);
    }
    writes
}

fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}
