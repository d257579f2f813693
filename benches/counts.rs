//! Counts served with a page (`PageRequest::count`), over the depth bench's 1,000,000 posts
//! (`bench_posts`, see `keyset_benches::seed`) on PostgreSQL and MariaDB. Each count's cost is
//! a page of one row with that count, less the same page without it (the count runs after the
//! page's statement, on its connection), beside what the issue measures it against:
//!
//! - **bounded** (cap 1,000: `SELECT COUNT(*) FROM (SELECT 1 FROM bench_posts LIMIT 1001) AS t`)
//!   against **1,000 index entries** read by hand, `SELECT COUNT(*) FROM (SELECT id FROM
//!   bench_posts ORDER BY created_at DESC, id DESC LIMIT 1000) AS t`: target at most 1.5×;
//! - **estimated** (one JSON `EXPLAIN` of the listing, its estimate read) against a bare
//!   **`EXPLAIN`** of the listing written by hand: target at most 1.5×;
//! - **exact** (`COUNT(*)` of every row), shown beside them, no target.
//!
//! ```sh
//! cargo bench -p keyset-benches --bench counts --features postgres,mysql
//! KEYSET_BENCH_ENGINES=mariadb cargo bench -p keyset-benches --bench counts --features mysql
//! ```
//!
//! The medians come from one interleaved run per engine (each form in short batches, in turn, so
//! that load on the machine hits all alike); criterion times each form too. Writes
//! `counts.csv` and `counts-ratios.csv` into `KEYSET_BENCH_OUT` (default
//! `<target>/keyset-bench/`) and `counts.md` into `<target>/keyset-bench/`.

#[cfg(any(feature = "postgres", feature = "mysql"))]
use std::time::Duration;

use criterion::Criterion;
#[cfg(any(feature = "postgres", feature = "mysql"))]
use keyset_benches::measure::{Ratios, Target};

/// The forms each engine times, in order: the page alone, the page with each count, and the
/// two statements written by hand.
#[cfg(any(feature = "postgres", feature = "mysql"))]
const FORMS: [&str; 6] = [
    "page",
    "page + bounded",
    "page + estimated",
    "page + exact",
    "1,000 index entries",
    "EXPLAIN",
];

/// The cap of the bounded count.
#[cfg(any(feature = "postgres", feature = "mysql"))]
const CAP: u32 = 1_000;

/// One row of PostgreSQL's `EXPLAIN`, as text.
#[cfg(feature = "postgres")]
#[derive(diesel::QueryableByName)]
struct PgPlan {
    #[diesel(sql_type = diesel::sql_types::Text)]
    #[diesel(column_name = "QUERY PLAN")]
    _plan: String,
}

/// One row of MariaDB's `EXPLAIN FORMAT=JSON`, as text.
#[cfg(feature = "mysql")]
#[derive(diesel::QueryableByName)]
struct MysqlPlan {
    #[diesel(sql_type = diesel::sql_types::Text)]
    #[diesel(column_name = "EXPLAIN")]
    _plan: String,
}

/// One `COUNT(*)`.
#[cfg(any(feature = "postgres", feature = "mysql"))]
#[derive(diesel::QueryableByName)]
struct Counted {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}

/// Times every form on one engine's connection: `$conn`, its name `$name`, and the SQL of its
/// bare `EXPLAIN` (`$explain`), read as rows of `$plan`.
#[cfg(any(feature = "postgres", feature = "mysql"))]
macro_rules! engine {
    ($criterion:expr, $results:expr, $name:expr, $conn:expr, $explain:expr, $plan:ty) => {{
        use diesel::prelude::*;
        use keyset_benches::schema::{bench_posts, Post};
        use keyset_runtime::{Count, PageRequest, Paginate, TotalKind};

        let (name, mut conn): (&str, _) = ($name, $conn);
        let page = |conn: &mut _, count: Option<Count>| {
            let request = match count {
                Some(count) => PageRequest::first(1).count(count),
                None => PageRequest::first(1),
            };
            let paginated = bench_posts::table.select(Post::as_select()).paginate(&request);
            let paginated = paginated.expect("a page request").count_cap(CAP).allow_exact_count();
            paginated.load_page(conn).expect("a page")
        };
        let index_entries = "SELECT COUNT(*) AS n FROM (SELECT id FROM bench_posts \
                             ORDER BY created_at DESC, id DESC LIMIT 1000) AS t";
        // Check each form before timing it: a count that is not what it says fails the bench.
        let rows: i64 = bench_posts::table.count().get_result(&mut conn).expect("the rows");
        assert_eq!(page(&mut conn, None).total, None);
        let bounded = page(&mut conn, Some(Count::Bounded)).total.expect("a bounded count");
        assert_eq!((bounded.kind, bounded.count), (TotalKind::AtLeast, u64::from(CAP)));
        let estimated = page(&mut conn, Some(Count::Estimated)).total.expect("an estimate");
        assert_eq!(estimated.kind, TotalKind::Estimated, "{name}");
        let exact = page(&mut conn, Some(Count::Exact)).total.expect("an exact count");
        assert_eq!(exact.count, rows as u64);
        let read: Vec<Counted> = diesel::sql_query(index_entries).load(&mut conn).unwrap();
        assert_eq!(read[0].n, 1_000);
        diesel::sql_query($explain).load::<$plan>(&mut conn).expect("a bare EXPLAIN");
        eprintln!("{name}: {rows} rows, estimated {} ({:?})", estimated.count, estimated);

        let counts = [None, Some(Count::Bounded), Some(Count::Estimated), Some(Count::Exact)];
        let run = |conn: &mut _, form: usize| match form {
            0..=3 => drop(page(conn, counts[form])),
            4 => drop(diesel::sql_query(index_entries).load::<Counted>(conn).unwrap()),
            _ => drop(diesel::sql_query($explain).load::<$plan>(conn).unwrap()),
        };
        let mut group = $criterion.benchmark_group(format!("counts/{name}"));
        group.sample_size(20).warm_up_time(Duration::from_millis(500));
        for (form, label) in FORMS.iter().enumerate() {
            group.bench_function(*label, |b| b.iter(|| run(&mut conn, form)));
        }
        group.finish();
        let medians =
            keyset_benches::measure::interleaved(&FORMS, Duration::from_secs(20), |form| {
                run(&mut conn, form)
            });
        $results.add(name, &medians);
    }};
}

/// The medians of every engine, and the ratios the issue asks for.
#[cfg(any(feature = "postgres", feature = "mysql"))]
#[derive(Default)]
struct Results {
    /// `engine,form,interleaved_us`
    csv: String,
    table: String,
    ratios: Ratios,
}

#[cfg(any(feature = "postgres", feature = "mysql"))]
impl Results {
    /// One engine's medians (ns, in [`FORMS`] order): each count's cost is its page's less the
    /// page alone.
    fn add(&mut self, engine: &str, medians: &[f64]) {
        use std::fmt::Write as _;

        let us = |ns: f64| ns / 1e3;
        for (form, median) in FORMS.iter().zip(medians) {
            let _ = writeln!(self.csv, "{engine},{form},{:.2}", us(*median));
        }
        let count = |form: usize| (medians[form] - medians[0]).max(0.0);
        let (bounded, estimated, exact) = (count(1), count(2), count(3));
        let (entries, explain) = (medians[4], medians[5]);
        let _ = writeln!(
            self.table,
            "| {engine} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.0} |",
            us(medians[0]),
            us(bounded),
            us(entries),
            us(estimated),
            us(explain),
            us(exact),
        );
        let cap = format!("bounded count (cap {CAP}) / 1,000 index entries");
        self.ratios.push(engine, &cap, bounded / entries, Target::AtMost(1.5));
        let estimate = "estimated count / bare EXPLAIN of the listing";
        self.ratios.push(engine, estimate, estimated / explain, Target::AtMost(1.5));
        self.ratios.push(engine, "exact count / bounded count", exact / bounded, Target::None);
    }
}

/// Whether `KEYSET_BENCH_ENGINES` (comma-separated; every engine when unset) names `engine`.
#[cfg(any(feature = "postgres", feature = "mysql"))]
fn engine(engine: &str) -> bool {
    std::env::var("KEYSET_BENCH_ENGINES")
        .map(|engines| engines.split(',').any(|name| name.trim() == engine))
        .unwrap_or(true)
}

fn main() {
    #[cfg_attr(not(any(feature = "postgres", feature = "mysql")), allow(unused_mut))]
    let mut criterion = Criterion::default().without_plots().configure_from_args();
    #[cfg(any(feature = "postgres", feature = "mysql"))]
    {
        let mut results = Results::default();
        #[cfg(feature = "postgres")]
        if engine("postgres") {
            let url = keyset_benches::database_url("PG_DATABASE_URL", keyset_benches::POSTGRES_URL);
            let explain = "EXPLAIN (FORMAT JSON) SELECT bench_posts.created_at, bench_posts.id, \
                           bench_posts.author_id, bench_posts.title FROM bench_posts";
            let conn = keyset_benches::seed::postgres(&url);
            engine!(criterion, results, "postgres", conn, explain, PgPlan);
        }
        #[cfg(feature = "mysql")]
        if engine("mariadb") {
            let url = keyset_benches::database_url("MYSQL_DATABASE_URL", keyset_benches::MYSQL_URL);
            // MariaDB names EXPLAIN's one column `EXPLAIN`, PostgreSQL `QUERY PLAN`.
            let explain = "EXPLAIN FORMAT=JSON SELECT bench_posts.created_at, bench_posts.id, \
                           bench_posts.author_id, bench_posts.title FROM bench_posts";
            let conn = keyset_benches::seed::mysql(&url);
            engine!(criterion, results, "mariadb", conn, explain, MysqlPlan);
        }
        criterion.final_summary();
        if results.ratios.0.is_empty() {
            return;
        }
        let markdown = format!(
            "Medians in µs of one interleaved run per engine; each count is its page's time less \
             the page alone (a page of one row, first page).\n\n\
             | engine | page | bounded count | 1,000 index entries | estimated count | bare \
             EXPLAIN | exact count |\n|---|---:|---:|---:|---:|---:|---:|\n{}\n{}",
            results.table,
            results.ratios.markdown("engine"),
        );
        let csv = format!("engine,form,interleaved_median_us\n{}", results.csv);
        keyset_benches::measure::write_results("counts", &csv, &results.ratios, &markdown);
    }
    #[cfg(not(any(feature = "postgres", feature = "mysql")))]
    {
        eprintln!("the counts bench runs on the servers: `--features postgres,mysql`");
        criterion.final_summary();
    }
}
