//! What a feed's page reads on SQLite, counted row by row.
//!
//! SQLite's plans count no rows, and what bounds a feed's page there shows in no plan: SQLite
//! runs `author_id IN (..)` as a loop over the values, each a seek of the index led by
//! `author_id` that yields the value's rows in the order, and moves to the next value at the
//! first row that cannot enter the page (`PerValue::InLoop`). `EXPLAIN QUERY PLAN` prints the
//! same `USE TEMP B-TREE FOR ORDER BY` for that loop as for one that reads every row and sorts.
//! So the listing's query carries a filter that counts: `keyset_read(id)`, a SQL function
//! registered on the connection, true for every row, which SQLite calls once for each row a
//! statement reads past its index's constraints. Each statement is explained with and without it:
//! the counting changes no plan.
//!
//! The data makes an unbounded page expensive: the set's authors posted only long ago and the
//! others all along, so a walk of the order's own index reads the others' posts first; and each
//! wrote [`POSTS`] posts, so a loop that does not stop early reads all of theirs.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use diesel::connection::{Instrumentation, InstrumentationEvent};
use diesel::prelude::*;
use keyset_runtime::{Keyset, PageRequest, Paginate};
use keyset_tests::models::Newest;
use keyset_tests::schema::{authors, posts};
use keyset_tests::seed;

use crate::suite::feeds::is_window;
use crate::suite::feeds::plan::FEED_INDEX;
use crate::suite::feeds::recorded::Recorded;
use crate::{connect, Conn};

#[diesel::declare_sql_function]
extern "SQL" {
    /// True; counts each call (see the module docs).
    fn keyset_read(id: diesel::sql_types::BigInt) -> diesel::sql_types::Bool;
}

/// Authors 1 to [`QUIET`] posted only long ago; the others, up to [`AUTHORS`], all along.
const QUIET: i64 = 10;
const AUTHORS: i64 = 20;
/// Posts per author.
const POSTS: i64 = 300;
/// Rows per page.
const PAGE: u32 = 20;

/// A connection whose `keyset_read` counts into the returned counter, with the authors' posts,
/// the feed's and the order's indexes, and fresh statistics.
fn seeded() -> (Conn, Arc<AtomicUsize>) {
    let mut conn = connect();
    let reads = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&reads);
    keyset_read_utils::register_nondeterministic_impl(&mut conn, move |_: i64| {
        counter.fetch_add(1, Ordering::Relaxed);
        true
    })
    .unwrap();
    let rows: Vec<_> = (1..=AUTHORS)
        .map(|id| (authors::id.eq(id), authors::name.eq(format!("author {id}"))))
        .collect();
    diesel::insert_into(authors::table).values(&rows).execute(&mut conn).unwrap();
    let rows: Vec<seed::NewPost> = (1..=AUTHORS * POSTS)
        .map(|id| {
            let author_id = 1 + id % AUTHORS;
            // The quiet authors' posts before everyone else's.
            let slot = if author_id <= QUIET { id } else { AUTHORS * POSTS + id };
            seed::NewPost { author_id, created_at: seed::timestamp(slot), ..seed::post(id) }
        })
        .collect();
    for chunk in rows.chunks(500) {
        diesel::insert_into(posts::table).values(chunk).execute(&mut conn).unwrap();
    }
    // The feed's index is the schema's already.
    for index in Newest::INDEXES.iter().filter(|index| index.name != FEED_INDEX) {
        diesel::sql_query(index.create(keyset_runtime::migration::Backend::Sqlite))
            .execute(&mut conn)
            .unwrap();
    }
    diesel::sql_query("ANALYZE").execute(&mut conn).unwrap();
    (conn, reads)
}

/// Each statement `run` ran on `conn`, with the rows it read (`keyset_read`'s calls).
fn counted<T>(
    conn: &mut Conn,
    reads: &Arc<AtomicUsize>,
    run: impl FnOnce(&mut Conn) -> T,
) -> (T, Vec<(String, usize)>) {
    let log = Arc::new(Mutex::new(Vec::<(String, usize)>::new()));
    let (sink, counter) = (Arc::clone(&log), Arc::clone(reads));
    conn.set_instrumentation(move |event: InstrumentationEvent<'_>| {
        if let InstrumentationEvent::StartQuery { query, .. } = event {
            sink.lock().unwrap().push((query.to_string(), counter.load(Ordering::Relaxed)));
        }
    });
    let out = run(conn);
    conn.set_instrumentation(None::<Box<dyn Instrumentation>>);
    let starts = log.lock().unwrap().clone();
    let end = reads.load(Ordering::Relaxed);
    let ends = starts.iter().skip(1).map(|(_, at)| *at).chain([end]);
    let statements =
        starts.iter().zip(ends).map(|((sql, start), end)| (sql.clone(), end - start)).collect();
    (out, statements)
}

/// The plan of a recorded statement, as text.
fn plan(conn: &mut Conn, recorded: &Recorded) -> String {
    crate::feed_plan::plan(conn, recorded).text
}

/// The plan of `statement`, and of the same statement without the counting filter.
fn plans(conn: &mut Conn, statement: &str) -> (String, String) {
    let with = Recorded::parse(statement);
    let mut without = with.clone();
    for sql in &mut without.sql {
        *sql = sql.replace("keyset_read(`posts`.`id`)", "1");
    }
    assert_ne!(with.sql, without.sql, "the counting filter is in the statement: {statement}");
    (plan(conn, &with), plan(conn, &without))
}

/// The feed among `set`, its listing filtered by the counting function.
fn feed(conn: &mut Conn, set: &[i64], request: &PageRequest) -> keyset_runtime::Page<Newest> {
    posts::table
        .filter(keyset_read(posts::id))
        .select(Newest::as_select())
        .among(posts::author_id, set.to_vec())
        .paginate(request)
        .unwrap()
        .load_page(conn)
        .unwrap()
}

/// Every statement of the feed's pages, first and last, after and before a cursor near the top
/// and deep among the quiet authors' posts, reads at most a page and a row per value (and the
/// values are sought by one statement, not one per tie level of the cursor): the rows
/// that enter the page, then the one that cannot (a window of the order's index, walked first
/// among 64 values or more, on a first page and past a cursor, reads at most its own rows). A
/// loop that read every row of its values would read 300 per value.
#[test]
fn a_feed_page_reads_at_most_a_page_and_a_row_per_value() {
    let (mut conn, reads) = seeded();
    let quiet: Vec<i64> = (1..=QUIET).collect();
    // The quiet authors among 54 who wrote nothing: a window is walked for 64 values.
    let padded: Vec<i64> = quiet.iter().copied().chain(1_000..1_054).collect();
    let sets: [&[i64]; 5] = [&quiet, &padded, &[3], &[2, 5, 2, 9], &[1, 11, 2, 12]];
    let (mut seeks, mut windows) = (0, 0);
    for set in sets {
        let first = feed(&mut conn, set, &PageRequest::first(PAGE));
        let deep = feed(&mut conn, set, &PageRequest::page_number(4, PAGE));
        let requests = [
            PageRequest::first(PAGE),
            PageRequest::last(PAGE),
            PageRequest::after(first.next_cursor.unwrap(), PAGE),
            PageRequest::after(deep.next_cursor.clone().unwrap(), PAGE),
            PageRequest::before(deep.prev_cursor.unwrap(), PAGE),
        ];
        let values = set.iter().collect::<std::collections::BTreeSet<_>>().len();
        // `4 × (limit + 1 + |set|)`, the set counted with its repeats (`machine/mod.rs`).
        let window = 4 * (PAGE as usize + 1 + set.len());
        for request in requests {
            let (page, statements) = counted(&mut conn, &reads, |conn| feed(conn, set, &request));
            assert_eq!(page.items.len(), PAGE as usize, "{set:?} {request:?}");
            // One loop over the values, past a cursor too: within a value's rows the cursor's
            // tie group is that value's rows at the cursor's timestamp, read and left behind.
            let sought = statements.iter().filter(|(statement, _)| !is_window(statement)).count();
            assert!(sought <= 1, "{sought} statements sought the values: {statements:#?}");
            for (statement, read) in statements {
                let (with, without) = plans(&mut conn, &statement);
                assert_eq!(with, without, "the counting filter changed the plan: {statement}");
                let bound = match is_window(&statement) {
                    // The window's rows past the cursor, and the rest of the last one's tie
                    // group (no two posts here share a timestamp).
                    true => {
                        windows += 1;
                        window + 1
                    }
                    false => {
                        seeks += 1;
                        values * (PAGE as usize + 2)
                    }
                };
                assert!(read <= bound, "{read} rows read, more than {bound}: {statement}\n{with}");
            }
        }
    }
    assert!(
        seeks > 0 && windows > 0,
        "{seeks} statements sought per value, {windows} walked a window"
    );
}

/// The counter catches an unbounded page: without the feed's index, the same first page reads
/// past every active author's post (a walk of the order's own index, or the whole table and a
/// sort), where the page above read a page and a row per value.
#[test]
fn without_the_feed_index_the_same_page_reads_past_the_bound() {
    let (mut conn, reads) = seeded();
    diesel::sql_query(format!("DROP INDEX {FEED_INDEX}")).execute(&mut conn).unwrap();
    let quiet: Vec<i64> = (1..=QUIET).collect();
    let first = PageRequest::first(PAGE);
    let (page, statements) = counted(&mut conn, &reads, |conn| feed(conn, &quiet, &first));
    assert_eq!(page.items.len(), PAGE as usize);
    let active = ((AUTHORS - QUIET) * POSTS) as usize;
    let (statement, read) = statements.iter().max_by_key(|(_, read)| *read).unwrap();
    let (plan, without) = plans(&mut conn, statement);
    assert_eq!(plan, without, "the counting filter changed the plan: {statement}");
    assert!(*read >= active, "{read} rows read: {statement}\n{plan}");
}
