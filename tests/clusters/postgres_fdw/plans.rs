//! What each shard receives, read from the coordinator's plans of the statements a page runs
//! (auto_explain's `EXPLAIN VERBOSE`, logged with their real values and read back from the
//! coordinator's log), and what each shard reads for a page (its index statistics).

use std::io::{Read, Seek, SeekFrom};
use std::time::{Duration, Instant};

use diesel::prelude::*;
use diesel::sql_types::BigInt;
use keyset_runtime::{Keyset, PageRequest, Paginate};
use keyset_tests::schema::stories;

use keyset_tests::models::story_orders::New as LocalNew;

use super::{fixture, shards, RemoteNew};
use crate::listing::{orders_both_ways, Layout, RemoteStory, LAYOUTS, PLAN_ROWS};
use crate::walks::deep_requests;

/// The plans auto_explain logged on the coordinator for the statements `page` ran, each as its
/// lines.
fn logged_plans(conn: &mut PgConnection, page: impl FnOnce(&mut PgConnection)) -> Vec<Vec<String>> {
    let var = "KEYSET_FDW_COORDINATOR_LOG";
    let path = std::env::var(var)
        .unwrap_or_else(|_| panic!("{var} is not set: run tests/postgres-fdw.sh"));
    for setting in [
        "LOAD 'auto_explain'",
        "SET auto_explain.log_verbose = on",
        "SET auto_explain.log_min_duration = 0",
    ] {
        diesel::sql_query(setting).execute(conn).expect(setting);
    }
    let start = std::fs::metadata(&path).expect("the coordinator's log").len();
    page(conn);
    diesel::sql_query("SET auto_explain.log_min_duration = -1").execute(conn).unwrap();
    let mut log = std::fs::File::open(&path).expect("the coordinator's log");
    log.seek(SeekFrom::Start(start)).unwrap();
    let mut text = String::new();
    log.read_to_string(&mut text).unwrap();
    // Each plan starts `LOG:  duration: .. ms  plan:`; its lines follow, indented.
    let mut plans: Vec<Vec<String>> = Vec::new();
    for line in text.lines() {
        if line.contains("LOG:") {
            if line.contains("plan:") {
                plans.push(Vec::new());
            }
        } else if let (Some(plan), true) = (plans.last_mut(), line.starts_with([' ', '\t'])) {
            plan.push(line.trim().to_owned());
        }
    }
    plans.retain(|plan| plan.iter().any(|line| line.contains("stories")));
    assert!(!plans.is_empty(), "no plan was logged in {path}:\n{text}");
    plans
}

/// What in `plan` a shard does not get: a condition the coordinator tests itself (`Filter:`),
/// or a foreign scan whose remote statement has no `WHERE` (no seek) or no `ORDER BY` (no
/// order: the shard sends every row the seek finds).
fn not_shipped(plan: &[String]) -> Vec<String> {
    let mut problems: Vec<String> = plan
        .iter()
        .filter(|line| line.starts_with("Filter:"))
        .map(|line| format!("the coordinator filters: {line}"))
        .collect();
    let remote: Vec<&String> = plan.iter().filter(|line| line.starts_with("Remote SQL:")).collect();
    if remote.is_empty() {
        problems.push("no foreign scan".into());
    }
    for sql in remote {
        if !sql.contains(" WHERE ") {
            problems.push(format!("a shard gets no seek: {sql}"));
        }
        if !sql.contains(" ORDER BY ") {
            problems.push(format!("a shard gets no order: {sql}"));
        }
    }
    problems
}

/// What the shards do not get, for the pages after and before a row within the first tie group
/// and one among `due`'s NULLs (about the last 1,450), in every order: each with its label.
fn unshipped_of_deep_pages(conn: &mut PgConnection, layout: Layout) -> Vec<(String, Vec<String>)> {
    let mut found = Vec::new();
    for (order, dir, _) in orders_both_ways() {
        let order = (order, dir);
        for depth in [150, 12_500] {
            for (side, request) in
                ["after", "before"].into_iter().zip(deep_requests(conn, order, depth))
            {
                let plans = logged_plans(conn, |conn| {
                    stories::table
                        .select(RemoteStory::as_select())
                        .paginate_by(order.0, Some(order.1), &request)
                        .unwrap()
                        .load_page(conn)
                        .unwrap();
                });
                for plan in &plans {
                    let label = format!("{layout:?} {} {}, {side} row {depth}", order.0, order.1);
                    found.push((label, not_shipped(plan)));
                }
            }
        }
    }
    found
}

#[test]
fn every_shard_receives_the_cursor_predicate_and_the_order() {
    for layout in LAYOUTS {
        let (_guard, mut conn) = fixture(layout, PLAN_ROWS, &[]);
        for (label, problems) in unshipped_of_deep_pages(&mut conn, layout) {
            assert!(problems.is_empty(), "{label}: {problems:#?}");
        }
        // The model's own order, in one statement: the OR expansion with its leading bound.
        let rows: Vec<RemoteNew> = stories::table
            .select(RemoteNew::as_select())
            .order(RemoteNew::order_by())
            .load(&mut conn)
            .unwrap();
        let cursor = RemoteNew::cursor(&rows[6_000]);
        let plans = logged_plans(&mut conn, |conn| {
            stories::table
                .select(RemoteNew::as_select())
                .filter(RemoteNew::after(&cursor))
                .order(RemoteNew::order_by())
                .limit(21)
                .load::<RemoteNew>(conn)
                .unwrap();
        });
        let remote: Vec<&String> =
            plans.iter().flatten().filter(|line| line.starts_with("Remote SQL:")).collect();
        assert!(
            remote.iter().all(|sql| sql.contains("(id < $")),
            "{layout:?}: every shard gets the tiebreaker's comparison: {plans:#?}"
        );
        assert!(plans.iter().all(|plan| not_shipped(plan).is_empty()), "{layout:?}: {plans:#?}");
    }
}

/// With `use_remote_estimate`, the coordinator asks each shard to cost a seek whose cursor value
/// it does not know (postgres_fdw sends a parameter to the shard's `EXPLAIN` as a NULL), and the
/// shard costs the ordered read of a third of its rows as a sort: here the coordinator then
/// fetched every row past the cursor unordered, to sort them itself. The shards guide advises
/// leaving it off.
#[test]
fn with_remote_estimates_a_shard_may_send_every_row_past_the_cursor_unordered() {
    let (_guard, mut conn) = fixture(Layout::Hashed, PLAN_ROWS, &["use_remote_estimate 'true'"]);
    let unordered: Vec<String> = unshipped_of_deep_pages(&mut conn, Layout::Hashed)
        .into_iter()
        .filter(|(_, problems)| problems.iter().any(|problem| problem.contains("no order")))
        .map(|(label, _)| label)
        .collect();
    assert!(!unordered.is_empty(), "every shard got an ORDER BY with remote estimates");
    println!("with use_remote_estimate, shards got no ORDER BY for: {unordered:#?}");
}

/// Why `#[keyset(postgres_fdw)]` exists: postgres_fdw sends no row value on, so without it every
/// shard reads the cursor's tie group and the rows past it for the coordinator to filter.
#[test]
fn a_row_value_stays_on_the_coordinator() {
    let (_guard, mut conn) = fixture(Layout::Hashed, PLAN_ROWS, &[]);
    let rows: Vec<LocalNew> = stories::table
        .select(LocalNew::as_select())
        .order(LocalNew::order_by())
        .load(&mut conn)
        .unwrap();
    let request = PageRequest::after(
        stories::table
            .select(LocalNew::as_select())
            .paginate(&PageRequest::first(150))
            .unwrap()
            .max_limit(150)
            .load_page(&mut conn)
            .unwrap()
            .next_cursor
            .expect("a deep page"),
        20,
    );
    assert_eq!(rows.len(), PLAN_ROWS as usize);
    let plans = logged_plans(&mut conn, |conn| {
        stories::table
            .select(LocalNew::as_select())
            .paginate(&request)
            .unwrap()
            .load_page(conn)
            .unwrap();
    });
    let problems: Vec<String> = plans.iter().flat_map(|plan| not_shipped(plan)).collect();
    assert!(
        problems.iter().any(|problem| problem.contains("Filter: (ROW(")),
        "the row value was expected on the coordinator: {plans:#?}"
    );
}

#[derive(QueryableByName)]
struct Backends {
    #[diesel(sql_type = BigInt)]
    backends: i64,
}

#[derive(QueryableByName)]
struct Reads {
    #[diesel(sql_type = BigInt)]
    index_entries: i64,
    #[diesel(sql_type = BigInt)]
    sequential: i64,
}

/// Index entries and rows of sequential scans each shard has read from `stories` so far, once
/// the coordinator's connections to it have ended (a backend's statistics are flushed when it
/// exits).
fn shard_reads(conn: &mut PgConnection, layout: Layout) -> Vec<(i64, i64)> {
    diesel::sql_query("SELECT postgres_fdw_disconnect_all()").execute(conn).unwrap();
    let started = Instant::now();
    shards(layout)
        .iter_mut()
        .map(|shard| {
            let others = "SELECT count(*) AS backends FROM pg_stat_activity \
                          WHERE datname = current_database() AND pid <> pg_backend_pid() \
                          AND backend_type = 'client backend'";
            while diesel::sql_query(others).get_result::<Backends>(shard).unwrap().backends > 0 {
                assert!(
                    started.elapsed() < Duration::from_secs(10),
                    "the coordinator's connections stay"
                );
                std::thread::sleep(Duration::from_millis(5));
            }
            diesel::sql_query("SELECT pg_stat_clear_snapshot()").execute(shard).unwrap();
            let reads = diesel::sql_query(
                "SELECT coalesce(sum(i.idx_tup_read), 0)::bigint AS index_entries, \
                 max(t.seq_tup_read)::bigint AS sequential FROM pg_stat_user_tables AS t \
                 LEFT JOIN pg_stat_user_indexes AS i USING (relid) WHERE t.relname = 'stories'",
            )
            .get_result::<Reads>(shard)
            .unwrap();
            (reads.index_entries, reads.sequential)
        })
        .collect()
}

/// The index entries each shard reads for one page of 20 deep in `RemoteNew`'s order.
fn reads_of_a_deep_page(options: &[&str]) -> Vec<i64> {
    let (_guard, mut conn) = fixture(Layout::Hashed, PLAN_ROWS, options);
    let first = stories::table
        .select(RemoteNew::as_select())
        .paginate(&PageRequest::first(200))
        .unwrap()
        .max_limit(200)
        .load_page(&mut conn)
        .unwrap();
    let request = PageRequest::after(first.next_cursor.expect("a deep page"), 20);
    let before = shard_reads(&mut conn, Layout::Hashed);
    let page = stories::table
        .select(RemoteNew::as_select())
        .paginate(&request)
        .unwrap()
        .load_page(&mut conn)
        .unwrap();
    assert_eq!(page.items.len(), 20);
    let after = shard_reads(&mut conn, Layout::Hashed);
    before
        .iter()
        .zip(&after)
        .map(|(before, after)| {
            assert_eq!(after.1, before.1, "a shard scanned its table");
            after.0 - before.0
        })
        .collect()
}

/// The coordinator reads each shard's rows in batches of `fetch_size` (100 by default) and sends
/// no `LIMIT` under the merge of the partitions: a page of 20 reads a batch per tie level from
/// each shard. With `fetch_size` set to the page's rows and the probe (21), each shard reads
/// about that per level: a page's worth, whatever the depth.
#[test]
fn each_shard_reads_about_a_page_with_a_fetch_size_of_a_page() {
    let default = reads_of_a_deep_page(&[]);
    let bounded = reads_of_a_deep_page(&["fetch_size '21'"]);
    println!(
        "index entries read per shard for a page of 20: fetch_size 100 {default:?}, 21 {bounded:?}"
    );
    for (shard, (&default, &bounded)) in default.iter().zip(&bounded).enumerate() {
        // Two tie levels, the cursor's group and the rows before it: a batch of each at most,
        // and the entry that ends each scan.
        assert!(bounded <= 2 * 21 + 2, "shard {}: {bounded} entries with fetch_size 21", shard + 1);
        assert!(bounded > 0, "shard {} read nothing", shard + 1);
        assert!(default > bounded, "shard {}: {default} entries with fetch_size 100", shard + 1);
    }
}
