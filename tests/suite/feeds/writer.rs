//! A feed beside a writer: one connection walks the feed of some authors page by page, forward
//! and back, while another commits, between every two pages, inserts tied with the walk's cursor
//! row (by authors in the set and out of it, sorting just before and just after it), deletes
//! (the cursor row itself too) and updates of columns no order sorts by.
//!
//! The claim, as for a listing without a set: no row comes back twice, every row among the set
//! that existed for the whole walk comes back, in order, no row of another author comes back, and
//! no page fails.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use chrono::NaiveDateTime;
use diesel::prelude::*;
use keyset_runtime::{PageRequest, Paginate};
use keyset_tests::models::FeedPost;
use keyset_tests::order::plain;
use keyset_tests::schema::{authors, posts};
use keyset_tests::seed;

use crate::shared::SharedDb;
use crate::Conn;

const SEED_ROWS: i64 = 300;
/// The set: three of the seed's five authors, and one without posts.
const SET: [i64; 4] = [1, 3, 4, 9];
const TIME_LIMIT: Duration = Duration::from_secs(5);
const MAX_WRITES: usize = 5_000;

#[derive(Default)]
struct Shared {
    /// The id of the row the walk's cursor is at.
    cursor_id: AtomicI64,
    /// Writes committed so far.
    writes: AtomicUsize,
    walks_done: AtomicBool,
    writer_done: AtomicBool,
}

#[test]
fn a_feed_walks_exactly_while_another_connection_writes() {
    let db = SharedDb::create();
    let mut conn = db.connect();
    let rows: Vec<_> = seed::authors()
        .into_iter()
        .map(|(id, name)| (authors::id.eq(id), authors::name.eq(name)))
        .collect();
    diesel::insert_into(authors::table).values(&rows).execute(&mut conn).unwrap();
    let rows: Vec<_> = (1..=SEED_ROWS).map(seed::post).collect();
    diesel::insert_into(posts::table).values(&rows).execute(&mut conn).unwrap();
    let initial: BTreeSet<i64> =
        rows.iter().filter(|row| SET.contains(&row.author_id)).map(|row| row.id).collect();

    let shared = Shared::default();
    let started = Instant::now();
    let (walks, deleted, inserted) = thread::scope(|scope| {
        let writer = scope.spawn(|| write_until_done(db.connect(), &shared, started));
        // Pages of 2 fetch 3 rows, as many as the set's authors with posts: on PostgreSQL each
        // value's first row is read first, and the seeks held to the last of them
        // (`sql/members/lateral.rs`).
        let walks = [
            walk(&mut conn, &shared, 7, false),
            walk(&mut conn, &shared, 5, true),
            walk(&mut conn, &shared, 2, false),
        ];
        shared.walks_done.store(true, Ordering::Release);
        let (deleted, inserted) = writer.join().expect("the writer did not fail");
        (walks, deleted, inserted)
    });
    let survivors: BTreeSet<i64> = initial.difference(&deleted).copied().collect();
    assert!(inserted > 0 && !deleted.is_empty(), "{inserted} inserts, {deleted:?}");
    for (backward, pages, rows) in walks {
        let what = if backward { "backward" } else { "forward" };
        let ids: Vec<i64> = rows.iter().map(|row| row.id).collect();
        let returned: BTreeSet<i64> = ids.iter().copied().collect();
        assert_eq!(returned.len(), ids.len(), "{what}: a row came back twice");
        let missing: Vec<_> = survivors.difference(&returned).collect();
        assert!(missing.is_empty(), "{what}: rows there throughout are missing: {missing:?}");
        let foreign: Vec<_> = rows.iter().filter(|row| !SET.contains(&row.author_id)).collect();
        assert!(foreign.is_empty(), "{what}: rows of other authors: {foreign:?}");
        for pair in rows.windows(2) {
            let order = plain(&pair[0].created_at, &pair[1].created_at, true).then(plain(
                &pair[0].id,
                &pair[1].id,
                true,
            ));
            assert_eq!(order, std::cmp::Ordering::Less, "{what}: out of order: {pair:?}");
        }
        assert!(pages > survivors.len() / 10, "{what}: {pages} pages");
    }
}

/// Walks the feed in pages of `limit`, waiting for a write between pages; returns the direction,
/// the number of pages and the rows in the feed's order.
fn walk(
    conn: &mut Conn,
    shared: &Shared,
    limit: u32,
    backward: bool,
) -> (bool, usize, Vec<FeedPost>) {
    let mut pages = Vec::new();
    let mut request = if backward { PageRequest::last(limit) } else { PageRequest::first(limit) };
    loop {
        assert!(pages.len() < 1_000, "the walk loops");
        let seen = shared.writes.load(Ordering::Acquire);
        let page = posts::table
            .select(FeedPost::as_select())
            .among(posts::author_id, SET)
            .paginate(&request)
            .unwrap()
            .load_page(conn)
            .unwrap_or_else(|err| panic!("page {} failed: {err}", pages.len()));
        let (edge, token) = if backward {
            (page.items.first(), page.prev_cursor.clone())
        } else {
            (page.items.last(), page.next_cursor.clone())
        };
        if let Some(row) = edge {
            shared.cursor_id.store(row.id, Ordering::Release);
        }
        pages.push(page.items);
        match token {
            Some(token) if backward => request = PageRequest::before(token, limit),
            Some(token) => request = PageRequest::after(token, limit),
            None => break,
        }
        while shared.writes.load(Ordering::Acquire) == seen
            && !shared.writer_done.load(Ordering::Acquire)
        {
            thread::sleep(Duration::from_micros(100));
        }
    }
    let count = pages.len();
    if backward {
        pages.reverse();
    }
    (backward, count, pages.into_iter().flatten().collect())
}

/// Commits changes around the walk's cursor until the walks are done; returns the ids deleted
/// and the number of rows inserted.
fn write_until_done(mut conn: Conn, shared: &Shared, started: Instant) -> (BTreeSet<i64>, usize) {
    struct Stopped<'a>(&'a AtomicBool);
    impl Drop for Stopped<'_> {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Release);
        }
    }
    let _stopped = Stopped(&shared.writer_done);
    let (mut deleted, mut inserted) = (BTreeSet::new(), 0);
    let (mut high, mut low, mut state) = (1_000_000_i64, -1_i64, 0x2545_f491_4f6c_dd1d_u64);
    let mut count = 0;
    while !shared.walks_done.load(Ordering::Acquire)
        && count < MAX_WRITES
        && started.elapsed() < TIME_LIMIT
    {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let cursor_id = shared.cursor_id.load(Ordering::Acquire);
        let random_id = 1 + (state % SEED_ROWS as u64) as i64;
        let choice = (state >> 32) % 5;
        conn.transaction::<_, diesel::result::Error, _>(|conn| {
            match choice {
                // Tied with the cursor row, sorting before and after it (ids above and below
                // every other), by an author of the set and by one outside it.
                0 | 1 => {
                    let at = posts::table
                        .find(cursor_id)
                        .select(posts::created_at)
                        .first::<NaiveDateTime>(conn)
                        .optional()?
                        .unwrap_or_else(|| seed::timestamp(5));
                    let rows: Vec<_> = [(high, 1), (low, 2), (high + 1, 2), (low - 1, 4)]
                        .into_iter()
                        .map(|(id, author_id)| seed::NewPost {
                            id,
                            author_id,
                            created_at: at,
                            title: format!("inserted {id}"),
                            ..seed::post(id.abs())
                        })
                        .collect();
                    (high, low) = (high + 2, low - 2);
                    inserted += diesel::insert_into(posts::table).values(&rows).execute(conn)?;
                }
                2 | 3 => {
                    let id = if choice == 2 { cursor_id } else { random_id };
                    if diesel::delete(posts::table.find(id)).execute(conn)? == 1 {
                        deleted.insert(id);
                    }
                }
                _ => {
                    diesel::update(posts::table.find(random_id))
                        .set((posts::title.eq(format!("updated {count}")), posts::tag.eq("ß")))
                        .execute(conn)?;
                }
            }
            Ok(())
        })
        .unwrap_or_else(|err| panic!("write {count} (kind {choice}) failed: {err}"));
        count += 1;
        shared.writes.store(count, Ordering::Release);
    }
    (deleted, inserted)
}
