//! Feeds: the newest posts of a set of authors (the authors a user follows), over one table of
//! 1,000,000 posts by 10,000 authors (`bench_feed`, see `keyset_benches::feed_seed`), with the
//! indexes `(created_at DESC, id DESC)` and `(author_id, created_at DESC, id DESC)`.
//!
//! For each engine, each kind of set (uniform authors; inactive ones, whose posts are all older
//! than anyone else's; five very active ones among uniform ones) and each size (10, 100 and
//! 1,000 authors), at the first page and deep (the cursor a real walk of the feed reached after
//! 50 pages of 20, or the last full page of a shorter feed):
//!
//! - **API**: `among(author_id, set).paginate(..)?.load_page(..)`, tokens included;
//! - **naive**: `filter(author_id.eq_any(set))`, `FeedPost::after(&cursor)`, the model's ORDER BY,
//!   `LIMIT 21`: what users write today;
//! - **hand-written**: on PostgreSQL a `LATERAL` join over the set as an array and GitLab's
//!   recursive CTE; on SQLite and MariaDB a `UNION ALL` of one seek per author (see
//!   `keyset_benches::feed_pages`). Each is a prepared statement of its connection.
//!
//! Before timing, every form must return the naive page's rows (the API page its first 20): a
//! form that differs fails the bench. The medians come from one interleaved run per case (its
//! forms in turn, so drift hits all alike); criterion also times each form faster than 5 ms.
//!
//! ```sh
//! cargo bench -p keyset-benches --bench feeds                             # SQLite
//! cargo bench -p keyset-benches --bench feeds --features postgres,mysql   # and the servers
//! KEYSET_BENCH_ENGINES=mariadb cargo bench -p keyset-benches --bench feeds --features mysql
//! ```
//!
//! Writes `feeds.csv` and `feeds-ratios.csv` into `KEYSET_BENCH_OUT` (default
//! `<target>/keyset-bench/`) and `feeds.md` (every table) into `<target>/keyset-bench/`.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion};
use diesel::Connection;
use keyset_benches::feed_seed::{Distribution, FeedPost, FeedPostCursor, SIZES};
use keyset_benches::measure::{self, Group, Results, Target};
use keyset_benches::order_pages::recorded;
use keyset_benches::pages::PAGE;
use keyset_runtime::{Keyset, PageRequest};

#[path = "feeds/backends.rs"]
mod backends;
use backends::Backend;

/// How many pages deep the deep cursor is.
const DEEP_PAGES: usize = 50;

/// Forms slower than this are timed by the interleaved run alone.
const CRITERION_AT_MOST: Duration = Duration::from_millis(5);

fn main() {
    let mut criterion = Criterion::default().without_plots().configure_from_args();
    let mut results = Results::default();
    let load_before = load_average();
    let started = Instant::now();

    if engine("sqlite") {
        run(&mut criterion, backends::sqlite(), &mut results);
    }
    #[cfg(feature = "postgres")]
    if engine("postgres") {
        run(&mut criterion, backends::postgres(), &mut results);
    }
    #[cfg(feature = "mysql")]
    if engine("mariadb") {
        run(&mut criterion, backends::mysql(), &mut results);
    }

    criterion.final_summary();
    if results.is_empty() {
        return; // `--test`, or everything filtered out: nothing measured, nothing to write
    }
    let markdown = format!(
        "{} posts by 10,000 authors, pages of {PAGE} (each statement fetches {}); the deep page \
         is the one after {DEEP_PAGES} pages (or the last full page of a shorter feed), its \
         cursor from a real walk. Load average (1, 5, 15 min) at the start {load_before}, at the \
         end {}; {:.0} s in all. Medians in µs of one interleaved run per case; `stmts` is how \
         many statements the API page ran. Per author: PostgreSQL's `LATERAL` over the array, \
         SQLite's and MariaDB's `UNION ALL` of one seek per author; the recursive CTE is \
         GitLab's (PostgreSQL only); on SQLite the last column is the same union of seeks in a \
         subquery sorted outside.\n\n\
         | backend | set | authors | page | depth | stmts | API | naive | per author | recursive CTE / SQLite's union sorted outside | keys only, rows by id |\n\
         |---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|\n{}\n{}",
        keyset_benches::seed::rows(),
        PAGE + 1,
        load_average(),
        started.elapsed().as_secs_f64(),
        results.table,
        results.ratios.markdown("backend, set, authors"),
    );
    let header = "backend,distribution,authors,page,depth,variant,statements,\
                  criterion_median_us,interleaved_median_us\n";
    results.write("feeds", header, &markdown);
}

/// Whether this run measures `name`'s engine: every one the features build, or those that
/// `KEYSET_BENCH_ENGINES` names (`sqlite,postgres,mariadb`), to rerun one engine alone.
fn engine(name: &str) -> bool {
    std::env::var("KEYSET_BENCH_ENGINES")
        .map_or(true, |engines| engines.split(',').any(|engine| engine.trim() == name))
}

/// `/proc/loadavg`'s first three fields, or `?` where there is none.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(", "))
        .unwrap_or_else(|_| "?".into())
}

/// A page of a case: the request, the cursor it resumes after, its depth in rows.
struct Position {
    label: &'static str,
    request: PageRequest,
    cursor: Option<FeedPostCursor>,
    depth: usize,
}

/// The first page and the deep one of `set`'s feed, walked through the API.
fn positions<C>(backend: &mut Backend<C>, set: &[i64]) -> [Position; 2] {
    let first = PageRequest::first(PAGE);
    let mut page = (backend.api)(&mut backend.conn, set, &first);
    let mut deep = None;
    let mut seen: Vec<i64> = page.items.iter().map(|post| post.id).collect();
    for pages in 1..=DEEP_PAGES {
        let (Some(token), Some(last)) = (page.next_cursor.clone(), page.items.last()) else {
            break;
        };
        let cursor = last.cursor();
        let request = PageRequest::after(token, PAGE);
        page = (backend.api)(&mut backend.conn, set, &request);
        if page.next_cursor.is_none() {
            break; // the deep page is a full one, a page following it
        }
        seen.extend(page.items.iter().map(|post| post.id));
        deep = Some(Position {
            label: "deep",
            request,
            cursor: Some(cursor),
            depth: pages * PAGE as usize,
        });
    }
    let unique: std::collections::HashSet<&i64> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "the walk repeated a post");
    let deep = deep.expect("a feed of two full pages at least");
    [Position { label: "first", request: first, cursor: None, depth: 0 }, deep]
}

fn run<C: Connection>(criterion: &mut Criterion, mut backend: Backend<C>, results: &mut Results) {
    let name = backend.name;
    let mut group = Group::new(criterion.benchmark_group(format!("{name} feeds")), 10);
    group
        .settings()
        .warm_up_time(Duration::from_millis(100))
        .measurement_time(Duration::from_millis(400));
    let mut first_api: Option<f64> = None;
    for distribution in Distribution::ALL {
        for size in SIZES {
            let set = distribution.set(size);
            let subject = format!("{name}, {}, {size} authors", distribution.name());
            let positions = positions(&mut backend, &set);
            for position in &positions {
                let api = case(&mut group, &mut backend, &set, &subject, position, results);
                match position.label {
                    "first" => first_api = api,
                    _ => {
                        let what = format!("API deep (depth {}) / API first", position.depth);
                        results.ratios.add(&subject, &what, api, first_api, Target::AtMost(1.1));
                    }
                }
            }
        }
    }
    group.finish();
}

/// Checks and times one page of one set; returns the API page's interleaved median.
fn case<C: Connection>(
    group: &mut Group<'_>,
    backend: &mut Backend<C>,
    set: &[i64],
    subject: &str,
    position: &Position,
    results: &mut Results,
) -> Option<f64> {
    let Backend { name, conn, api, naive, forms } = backend;
    let (api, naive) = (*api, *naive);
    let cursor = position.cursor.as_ref();
    let label = position.label;

    // Every form returns the same rows before any is timed.
    let (page, ran) = recorded(conn, |conn| api(conn, set, &position.request));
    let ids = |rows: &[FeedPost]| rows.iter().map(|post| post.id).collect::<Vec<_>>();
    let plain = naive(conn, set, cursor);
    assert_eq!(plain.len(), PAGE as usize + 1, "{subject}, {label}: the naive page is full");
    assert_eq!(ids(&page.items), ids(&plain[..PAGE as usize]), "{subject}, {label}: API ≠ naive");
    assert!(page.next_cursor.is_some(), "{subject}, {label}: a page follows");
    for (form, run) in forms.iter() {
        let rows = run(conn, set, cursor);
        assert_eq!(ids(&rows), ids(&plain), "{subject}, {label}: {form} ≠ the naive page");
    }

    let mut jobs: Vec<String> = vec!["API".into(), "naive (eq_any)".into()];
    jobs.extend(forms.iter().map(|(form, _)| form.to_string()));
    let run_job = |conn: &mut C, job: usize| match job {
        0 => drop(std::hint::black_box(api(conn, set, &position.request))),
        1 => drop(std::hint::black_box(naive(conn, set, cursor))),
        k => drop(std::hint::black_box((forms[k - 2].1)(conn, set, cursor))),
    };
    let mut medians: Vec<Option<f64>> = Vec::new();
    for (k, job) in jobs.iter().enumerate() {
        let probe = Instant::now();
        run_job(conn, k);
        let fast = probe.elapsed() <= CRITERION_AT_MOST;
        let id = format!("{}, {} authors, {label}: {job}", subject_tail(subject), set.len());
        medians.push(if fast {
            group.bench(BenchmarkId::from_parameter(id), || run_job(conn, k))
        } else {
            None
        });
    }
    let filtered = medians.iter().all(Option::is_none) && filter_given();
    let interleaved: Vec<Option<f64>> = if !measuring() || filtered {
        vec![None; jobs.len()] // `--test`, or a filter that left this case out: nothing timed
    } else {
        eprintln!("{subject}, {label}: interleaving {} forms", jobs.len());
        let labels: Vec<&str> = jobs.iter().map(String::as_str).collect();
        let batch = Duration::from_millis(2);
        let m = measure::interleaved_in_batches(&labels, Duration::from_millis(1500), batch, |k| {
            run_job(conn, k)
        });
        m.into_iter().map(Some).collect()
    };

    let us = |ns: Option<f64>| ns.map_or(String::new(), |ns| format!("{:.1}", ns / 1e3));
    let (distribution, authors) = distribution_and_size(subject);
    for (k, job) in jobs.iter().enumerate() {
        let statements = if k == 0 { ran.len() } else { 1 };
        let _ = writeln!(
            results.csv,
            "{name},{distribution},{authors},{label},{},{},{statements},{},{}",
            position.depth,
            measure::csv_field(job),
            us(medians[k]),
            us(interleaved[k])
        );
    }
    // The columns after the per-author form: the recursive CTE or SQLite's union sorted
    // outside, then the keys-only form.
    let keys = (3..jobs.len()).find(|&k| jobs[k].contains("keys only"));
    let other = (3..jobs.len()).find(|&k| !jobs[k].contains("keys only"));
    let cell =
        |k: usize| interleaved.get(k).copied().flatten().map_or("—".into(), |ns| us(Some(ns)));
    let _ = writeln!(
        results.table,
        "| {name} | {distribution} | {authors} | {label} | {} | {} | {} | {} | {} | {} | {} |",
        position.depth,
        ran.len(),
        cell(0),
        cell(1),
        cell(2),
        other.map_or("—".into(), cell),
        keys.map_or("—".into(), cell)
    );

    let (api_median, naive_median) = (interleaved[0], interleaved[1]);
    let best = (2..jobs.len())
        .filter_map(|k| interleaved[k].map(|m| (k, m)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    if let Some((k, hand)) = best {
        let ratio = format!("API / best hand-written ({}), {label}", jobs[k]);
        results.ratios.add(subject, &ratio, api_median, Some(hand), Target::AtMost(1.05));
    }
    if let (Some(api), Some(plain)) = (api_median, naive_median) {
        if plain < api {
            let ratio = format!("API / naive (the naive is faster), {label}");
            results.ratios.push(subject, &ratio, api / plain, Target::AtMost(2.0));
        } else {
            let ratio = format!("naive / API (the naive is slower), {label}");
            results.ratios.push(subject, &ratio, plain / api, Target::None);
        }
    }
    api_median
}

/// Whether this run measures (not `--test` nor `--list`).
fn measuring() -> bool {
    !std::env::args().any(|arg| arg == "--test" || arg == "--list")
}

/// Whether a benchmark filter was given on the command line.
fn filter_given() -> bool {
    std::env::args().skip(1).any(|arg| !arg.starts_with('-'))
}

/// `uniform, 100 authors` of `SQLite, uniform, 100 authors`, without the size.
fn subject_tail(subject: &str) -> &str {
    let rest = subject.split_once(", ").map_or(subject, |(_, rest)| rest);
    rest.split_once(", ").map_or(rest, |(distribution, _)| distribution)
}

/// The distribution's name and the set's size of a subject.
fn distribution_and_size(subject: &str) -> (&str, &str) {
    let mut parts = subject.split(", ").skip(1);
    let distribution = parts.next().unwrap_or("");
    let size = parts.next().and_then(|s| s.split(' ').next()).unwrap_or("");
    (distribution, size)
}
