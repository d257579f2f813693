//! What an order led by a joined column costs: a page of `bench_join_posts ⋈ bench_authors`
//! (100,000 posts by 1,000 authors) in the posts' own order, which their index serves, beside the
//! same page in two orders led by the authors' name: grouped by the author (`name, id`, then the
//! posts' keys), which an index on each table serves, and by the name then the posts' own keys,
//! which none serves (kept with `reads_and_sorts`), so that each page reads and sorts the rows
//! the join matches past the cursor. The first page and a page half-way in ([`deep_page`]),
//! through the public API. SQLite always; PostgreSQL and MariaDB with the `postgres` / `mysql`
//! features (their server must answer, or the bench fails).
//!
//! ```sh
//! cargo bench -p keyset-benches --bench joins           # SQLite, results in target/keyset-bench/
//! cargo bench -p keyset-benches --bench joins --features postgres,mysql
//! ```
//!
//! Writes `joins.csv` (each page's criterion median and interleaved median) and
//! `joins-ratios.csv` into `KEYSET_BENCH_OUT` (default `<target>/keyset-bench/`), and their
//! Markdown (`joins.md`) into `<target>/keyset-bench/`. The ratios come from one interleaved run
//! per backend (see `measure::interleaved_in_batches`), so both sides of each saw the same load.

use std::fmt::Write as _;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, SamplingMode};
use diesel::prelude::*;
use keyset_benches::join_pages::{self, PAGE};
use keyset_benches::measure::{self, Group, Results, Target};
use keyset_benches::schema::{Author, JoinPost, PostByAuthor, PostByAuthorGroup};
use keyset_benches::seed;
use keyset_runtime::explain::PlanError;
use keyset_runtime::{Keyset, Page, PageRequest};

/// The pages of one order on a backend.
struct Order<C, M: Keyset> {
    page: fn(&mut C, &PageRequest) -> Page<(M, Author)>,
    requests: fn(&mut C, i64) -> ([PageRequest; 2], M::Cursor),
    /// The plan of the statement after a cursor.
    plan: fn(&mut C, &M::Cursor) -> Plan,
}

/// A backend: its connection and the pages on it in each order (the same code for each, see
/// `keyset_benches::join_pages`).
struct Backend<C> {
    name: &'static str,
    conn: C,
    own: Order<C, JoinPost>,
    grouped: Order<C, PostByAuthorGroup>,
    by_author: Order<C, PostByAuthor>,
}

/// A plan, or why it is not an index seek.
type Plan = Result<Vec<String>, PlanError>;

/// The pages measured, in this order (no commas: they are CSV fields).
const PAGES: [&str; 6] = [
    "own order: first page",
    "own order: deep page",
    "authors.name authors.id order: first page",
    "authors.name authors.id order: deep page",
    "authors.name order: first page",
    "authors.name order: deep page",
];
fn main() {
    let mut criterion = Criterion::default().without_plots().configure_from_args();
    let mut results = Results::default();

    run(&mut criterion, sqlite(), &mut results);
    #[cfg(feature = "postgres")]
    run(&mut criterion, postgres(), &mut results);
    #[cfg(feature = "mysql")]
    run(&mut criterion, mysql(), &mut results);

    criterion.final_summary();
    if results.is_empty() {
        return; // `--test`, or everything filtered out: nothing measured, nothing to write
    }
    let rows = seed::join_rows();
    let markdown = format!(
        "A page of posts ⋈ authors selecting `(post, author)`, in the posts' own order \
         (`created_at DESC, id DESC`, served by its index) and in two orders led by the joined \
         column: grouped by the author (`authors.name ASC, authors.id ASC, created_at DESC, id \
         DESC`, an index on each table) and not (`authors.name ASC, id DESC`, kept with \
         `reads_and_sorts`: no index serves it), through the public API: {rows} posts by {} \
         authors, pages of {PAGE} rows (each statement fetches {}), the deep page at depth {}; \
         medians in µs.\n\n\
         | backend | page | criterion | interleaved |\n|---|---|---:|---:|\n{}\n{}",
        seed::AUTHORS,
        join_pages::FETCH,
        deep_page(),
        results.table,
        results.ratios.markdown("backend"),
    );
    results.write("joins", "backend,page,criterion_median_us,interleaved_median_us\n", &markdown);
}

/// Where the deep page starts: two pages past half-way, inside a tie group of either order (of
/// 100 rows: a timestamp's, an author's), as most page boundaries are, so that on SQLite the
/// page after the cursor is one statement in both orders. (At a cursor that ends a tie group,
/// SQLite runs both tie levels: in a trial run at depth 50,000 the own order's deep page took
/// 1.74 times its first.)
fn deep_page() -> i64 {
    seed::join_rows() / 2 + 2 * i64::from(PAGE)
}

fn run<C>(criterion: &mut Criterion, backend: Backend<C>, results: &mut Results) {
    let Backend { name, mut conn, own, grouped, by_author } = backend;
    let conn = &mut conn;
    let depth = deep_page();
    let (own_pages, own_cursor) = (own.requests)(conn, depth);
    let (grouped_pages, grouped_cursor) = (grouped.requests)(conn, depth);
    let (by_pages, by_cursor) = (by_author.requests)(conn, depth);

    // Every page is full and has a next page; the own order's deep page seeks, the authors'
    // name order's sorts (as the test suite's `joins_plan.rs` pins); the grouped order's plan as
    // one statement is shown (which MariaDB's page does not run: it walks one author at a time).
    let full = |len: usize, next: bool| len == PAGE as usize && next;
    let own_full = own_pages
        .iter()
        .map(|r| (own.page)(conn, r))
        .all(|p| full(p.items.len(), p.next_cursor.is_some()));
    let grouped_full = grouped_pages
        .iter()
        .map(|r| (grouped.page)(conn, r))
        .all(|p| full(p.items.len(), p.next_cursor.is_some()));
    let by_full = by_pages
        .iter()
        .map(|r| (by_author.page)(conn, r))
        .all(|p| full(p.items.len(), p.next_cursor.is_some()));
    assert!(own_full && grouped_full && by_full, "{name}: every page is full and has a next page");
    match (own.plan)(conn, &own_cursor) {
        Ok(plan) => eprintln!("{name} own order, deep page: an index seek: {}", summary(&plan)),
        Err(err) => panic!("{name} own order, deep page: {err}"),
    }
    match (grouped.plan)(conn, &grouped_cursor) {
        Ok(plan) => eprintln!("{name} grouped order, deep page, one statement: {}", summary(&plan)),
        Err(PlanError::NotASeek { reason, plan }) => {
            eprintln!(
                "{name} grouped order, deep page, one statement: {reason}: {}",
                summary(&plan)
            )
        }
        Err(err) => panic!("{name} grouped order, deep page: {err}"),
    }
    match (by_author.plan)(conn, &by_cursor) {
        Err(PlanError::NotASeek { reason, plan }) if reason.contains("sorted after reading") => {
            eprintln!("{name} authors.name order, deep page: {reason}: {}", summary(&plan))
        }
        other => panic!("{name} authors.name order, deep page: expected a sort: {other:?}"),
    }
    let run_page = |conn: &mut C, i: usize| match i {
        0 | 1 => drop(std::hint::black_box((own.page)(conn, &own_pages[i]))),
        2 | 3 => drop(std::hint::black_box((grouped.page)(conn, &grouped_pages[i - 2]))),
        _ => drop(std::hint::black_box((by_author.page)(conn, &by_pages[i - 4]))),
    };

    // Criterion, a few seconds per page: the joined-key pages take milliseconds each.
    let mut group = Group::new(criterion.benchmark_group(format!("{name} join page")), 10);
    group
        .settings()
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    let medians: Vec<Option<f64>> = (0..PAGES.len())
        .map(|i| group.bench(BenchmarkId::from_parameter(PAGES[i]), || run_page(conn, i)))
        .collect();
    group.finish();

    // The ratios, from one interleaved run, in batches of 5 ms: a fast page's batch then runs
    // it warm, as criterion does, not straight after the caches a sort of 100,000 rows left.
    let interleaved: Vec<Option<f64>> = if medians.iter().any(Option::is_none) {
        vec![None; PAGES.len()] // criterion did not measure (`--test`, or a filter): neither do we
    } else {
        eprintln!("{name}: interleaving {} pages for 12 s", PAGES.len());
        let (total, batch) = (Duration::from_secs(12), Duration::from_millis(5));
        let m = measure::interleaved_in_batches(&PAGES, total, batch, |i| run_page(conn, i));
        m.into_iter().map(Some).collect()
    };

    let us = |ns: Option<f64>| ns.map_or(String::new(), |ns| format!("{:.1}", ns / 1e3));
    for (i, page) in PAGES.iter().enumerate() {
        let (criterion, interleaved) = (us(medians[i]), us(interleaved[i]));
        let _ = writeln!(results.csv, "{name},{page},{criterion},{interleaved}");
        let _ = writeln!(results.table, "| {name} | {page} | {criterion} | {interleaved} |");
    }
    let [own_first, own_deep, grouped_first, grouped_deep, by_first, by_deep] =
        [0, 1, 2, 3, 4, 5].map(|i| interleaved[i]);
    let ratios = &mut results.ratios;
    let at = format!("depth {depth}");
    let grouped_order = "authors.name authors.id order";
    ratios.add(
        name,
        &format!("{grouped_order} / own order: first page"),
        grouped_first,
        own_first,
        Target::AtMost(1.5),
    );
    ratios.add(
        name,
        &format!("{grouped_order} / own order: {at}"),
        grouped_deep,
        own_deep,
        Target::AtMost(1.5),
    );
    ratios.add(
        name,
        &format!("{grouped_order}: {at} / first page"),
        grouped_deep,
        grouped_first,
        Target::AtMost(1.3),
    );
    ratios.add(
        name,
        "authors.name order / own order: first page",
        by_first,
        own_first,
        Target::None,
    );
    ratios.add(
        name,
        &format!("authors.name order / own order: {at}"),
        by_deep,
        own_deep,
        Target::None,
    );
    ratios.add(
        name,
        &format!("own order: {at} / first page"),
        own_deep,
        own_first,
        Target::AtMost(1.3),
    );
}

/// The lines of a plan that say how the tables are read (MariaDB's JSON plans are long).
fn summary(plan: &[String]) -> String {
    const TELLING: &[&str] = &[
        "SEARCH",
        "SCAN",
        "B-TREE",
        "Scan",
        "Sort",
        "Join",
        "Nested",
        "\"access_type\"",
        "\"key\"",
        "filesort",
        "temporary",
    ];
    let lines: Vec<&str> = plan
        .iter()
        .map(|line| line.trim())
        .filter(|line| TELLING.iter().any(|word| line.contains(word)))
        .collect();
    lines.join(" / ")
}

/// The three orders' pages and plans on one backend, from its `join_pages` module and its plan
/// check.
macro_rules! orders {
    ($pages:path, $seek:path) => {{
        use $pages as pages;
        (
            Order {
                page: pages::own::page,
                requests: pages::own::requests,
                plan: |conn, cursor| $seek(&pages::own::query(cursor), conn),
            },
            Order {
                page: pages::grouped::page,
                requests: pages::grouped::requests,
                plan: |conn, cursor| $seek(&pages::grouped::query(cursor), conn),
            },
            Order {
                page: pages::by_author::page,
                requests: pages::by_author::requests,
                plan: |conn, cursor| $seek(&pages::by_author::query(cursor), conn),
            },
        )
    }};
}

fn sqlite() -> Backend<SqliteConnection> {
    let (own, grouped, by_author) =
        orders!(join_pages::sqlite, keyset_runtime::explain::sqlite_index_seek);
    Backend { name: "SQLite", conn: seed::joins_sqlite(), own, grouped, by_author }
}

#[cfg(feature = "postgres")]
fn postgres() -> Backend<PgConnection> {
    let url = keyset_benches::database_url("PG_DATABASE_URL", keyset_benches::POSTGRES_URL);
    let (own, grouped, by_author) =
        orders!(join_pages::postgres, keyset_runtime::explain::postgres_index_seek);
    Backend { name: "PostgreSQL", conn: seed::joins_postgres(&url), own, grouped, by_author }
}

#[cfg(feature = "mysql")]
fn mysql() -> Backend<MysqlConnection> {
    let url = keyset_benches::database_url("MYSQL_DATABASE_URL", keyset_benches::MYSQL_URL);
    let (own, grouped, by_author) =
        orders!(join_pages::mysql, keyset_runtime::explain::mysql_index_seek);
    Backend { name: "MariaDB", conn: seed::joins_mysql(&url), own, grouped, by_author }
}
