//! Page cost against depth: keyset through the public API beside `LIMIT/OFFSET`, on one table of
//! 1,000,000 rows; then, at the deepest cursor, keyset beside the same page written by hand in
//! Diesel and beside a bare primary-key range page. SQLite always; PostgreSQL and MariaDB with the
//! `postgres` / `mysql` features (their server must answer, or the bench fails).
//!
//! ```sh
//! bash benches/run.sh                                   # everything, CSV and plot into docs/
//! cargo bench -p keyset-benches --bench depth           # SQLite only, results in target/keyset-bench/
//! cargo bench -p keyset-benches --bench depth --features postgres,mysql
//! ```
//!
//! Writes `depth.csv` (criterion's median per depth), `pages.csv` (the pages compared at the
//! deepest cursor, timed interleaved),
//! and `depth-ratios.csv` into `KEYSET_BENCH_OUT` (default `<target>/keyset-bench/`), and Markdown
//! tables of both (`depth.md`, `depth-ratios.md`) into `<target>/keyset-bench/`.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, SamplingMode};
use diesel::prelude::*;
use keyset_benches::measure::{self, Group, Ratios, Target};
use keyset_benches::pages::{self, PAGE};
use keyset_benches::schema::{Post, PostCursor};
use keyset_benches::seed;
use keyset_runtime::__testing::token;
use keyset_runtime::explain::PlanError;
use keyset_runtime::Direction;
use keyset_runtime::{Keyset, Page, PageRequest};

/// A backend: its connection, and the pages on it (the same code for each backend, see
/// `keyset_benches::pages`, but the expert's).
struct Backend<C> {
    name: &'static str,
    conn: C,
    /// Keyset through the public API.
    keyset_page: fn(&mut C, &PageRequest) -> Page<Post>,
    /// The keyset query alone, given the cursor.
    keyset_query: fn(&mut C, &PostCursor) -> Vec<Post>,
    /// `LIMIT 21 OFFSET depth`.
    offset: fn(&mut C, i64) -> Vec<Post>,
    /// `WHERE id < ? ORDER BY id DESC LIMIT 21`.
    pk_range: fn(&mut C, i64) -> Vec<Post>,
    /// The cursor of the row at a depth.
    cursor_at: fn(&mut C, i64) -> PostCursor,
    /// The shape of the expert's hand-written predicate.
    expert_shape: &'static str,
    /// The expert's page after a cursor.
    expert: fn(&mut C, &PostCursor) -> Vec<Post>,
    /// The same page with its `LIMIT` written into the SQL, where that changes the engine's
    /// planning (PostgreSQL's generic plans): what the API's own literal limit is measured against.
    expert_literal: Option<fn(&mut C, &PostCursor) -> Vec<Post>>,
    /// The most the API page may cost, as a ratio of the expert's.
    expert_target: f64,
    /// The engine's plan of the keyset, expert and primary-key queries: each must be an index seek.
    plans: fn(&mut C, &PostCursor) -> Vec<NamedPlan>,
}

/// A query's name and its plan, or why it is not an index seek.
type NamedPlan = (&'static str, Result<Vec<String>, PlanError>);

/// One depth of the sweep: the depth, then the keyset and OFFSET medians in µs (none when not
/// measured).
type DepthRow = (i64, Option<f64>, Option<f64>);

/// Everything measured in this run.
#[derive(Default)]
struct Results {
    /// `backend,method,depth,median_us`
    depth_csv: String,
    /// `backend,page,median_us` (interleaved)
    pages_csv: String,
    /// backend → (depth → (keyset, offset)) in µs, for the Markdown table.
    depth_table: Vec<(&'static str, Vec<DepthRow>)>,
    ratios: Ratios,
}

fn main() {
    let mut criterion = Criterion::default().without_plots().configure_from_args();
    let mut results = Results::default();

    sweep(&mut criterion, sqlite(), &mut results);
    #[cfg(feature = "postgres")]
    sweep(&mut criterion, postgres(), &mut results);
    #[cfg(feature = "mysql")]
    sweep(&mut criterion, mysql(), &mut results);

    criterion.final_summary();
    if results.ratios.0.is_empty() {
        return; // `--test`, or everything filtered out: nothing measured, nothing to write
    }
    let out = keyset_benches::out_dir();
    measure::write(
        &out,
        "depth.csv",
        &format!("backend,method,depth,median_us\n{}", results.depth_csv),
    );
    measure::write(&out, "pages.csv", &format!("backend,page,median_us\n{}", results.pages_csv));
    measure::write(&out, "depth-ratios.csv", &results.ratios.csv());
    let depth_md = depth_markdown(&results);
    let work = keyset_benches::work_dir();
    measure::write(&work, "depth.md", &depth_md);
    let ratios_md = results.ratios.markdown("backend");
    measure::write(&work, "depth-ratios.md", &ratios_md);
    println!("\n{depth_md}\n{ratios_md}");
}

/// The depths of the sweep: the first page, the second, 1%, 10%, 50% and the last full page.
fn depths(rows: i64) -> [i64; 6] {
    [0, i64::from(PAGE), rows / 100, rows / 10, rows / 2, rows - i64::from(PAGE) - 10]
}

/// Where the sweep's second page, its page at 1% and its deepest page are in [`depths`].
const SECOND: usize = 1;
const ONE_PERCENT: usize = 2;
const DEEPEST: usize = 5;

fn sweep<C>(criterion: &mut Criterion, backend: Backend<C>, results: &mut Results) {
    let Backend {
        name,
        mut conn,
        keyset_page,
        keyset_query,
        offset: offset_page,
        pk_range,
        cursor_at,
        expert_shape,
        expert,
        expert_literal,
        expert_target,
        plans,
    } = backend;
    let conn = &mut conn;
    let rows = seed::rows();
    let depths = depths(rows);

    // The request for the page at each depth: `first` at 0, else `after` the token of the row just
    // before it, as the previous page's `next_cursor` would be.
    let requests: Vec<PageRequest> = depths
        .iter()
        .map(|&depth| match depth {
            0 => PageRequest::first(PAGE),
            _ => {
                let cursor = cursor_at(conn, depth - 1);
                let token =
                    token::encode(Post::FINGERPRINT, Direction::After, &cursor).expect("a token");
                PageRequest::after(token, PAGE)
            }
        })
        .collect();

    // Every method returns the same rows at every depth; time one OFFSET page per depth to size
    // criterion's measurement of it.
    let mut offset_cost = Vec::new();
    for (&depth, request) in depths.iter().zip(&requests) {
        let page = keyset_page(conn, request);
        let started = Instant::now();
        let offset = offset_page(conn, depth);
        offset_cost.push(started.elapsed());
        assert_eq!(
            page.items,
            offset[..PAGE as usize],
            "{name}: keyset and OFFSET disagree at depth {depth}"
        );
        assert!(page.next_cursor.is_some(), "{name}: a page follows depth {depth}");
    }
    let deepest = cursor_at(conn, depths[DEEPEST] - 1);
    let hand = expert(conn, &deepest);
    assert_eq!(hand, keyset_query(conn, &deepest), "{name}: the expert's page differs");
    if let Some(literal) = expert_literal {
        assert_eq!(literal(conn, &deepest), hand, "{name}: the literal-LIMIT page differs");
    }
    let pk = pk_range(conn, deepest.id);
    assert_eq!(pk.len(), pages::FETCH as usize, "{name}: the primary-key page is full");
    for (query, plan) in plans(conn, &deepest) {
        match plan {
            Ok(plan) => eprintln!("{name} {query}: an index seek: {}", summary(&plan)),
            Err(err) => panic!("{name} {query}: {err}"),
        }
    }

    // (a) keyset through the public API, at every depth.
    let mut keyset = Vec::new();
    let mut group = Group::new(criterion.benchmark_group(format!("{name} keyset page")), 50);
    group.settings().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    for (&depth, request) in depths.iter().zip(&requests) {
        keyset.push(group.bench(BenchmarkId::new("depth", depth), || keyset_page(conn, request)));
    }
    group.finish();

    // (b) LIMIT/OFFSET, same ORDER BY. Deep pages take up to seconds: flat sampling, 10 samples,
    // and a measurement time sized from the one page timed above.
    let mut offset = Vec::new();
    let mut group = Group::new(criterion.benchmark_group(format!("{name} OFFSET page")), 10);
    group.settings().sampling_mode(SamplingMode::Flat).warm_up_time(Duration::from_millis(500));
    for (&depth, cost) in depths.iter().zip(&offset_cost) {
        group.settings().measurement_time((*cost * 12).max(Duration::from_secs(2)));
        offset.push(group.bench(BenchmarkId::new("depth", depth), || offset_page(conn, depth)));
    }
    group.finish();

    // At the deepest cursor: keyset (API, then the query alone) beside the hand-written pages.
    let deep_request = &requests[DEEPEST];
    let mut group = Group::new(criterion.benchmark_group(format!("{name} deepest page")), 100);
    group.settings().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    group.bench(BenchmarkId::from_parameter("keyset page (API)"), || {
        keyset_page(conn, deep_request)
    });
    group.bench(BenchmarkId::from_parameter("keyset query"), || keyset_query(conn, &deepest));
    group.bench(BenchmarkId::from_parameter("expert page"), || expert(conn, &deepest));
    if let Some(literal) = expert_literal {
        group.bench(BenchmarkId::from_parameter("expert page, literal LIMIT"), || {
            literal(conn, &deepest)
        });
    }
    group.bench(BenchmarkId::from_parameter("pk range page"), || pk_range(conn, deepest.id));
    group.finish();

    // The ratios with tight targets, from one interleaved run (see `measure::interleaved`).
    let mut contenders = vec![
        "keyset page (API) at depth 0",
        "keyset page (API) at depth 1%",
        "keyset page (API)",
        "keyset page (API), the second page",
        "keyset query",
        "expert page",
        "pk range page",
    ];
    if expert_literal.is_some() {
        contenders.push("expert page, literal LIMIT");
    }
    let interleaved = if keyset.iter().any(Option::is_none) {
        None // criterion did not measure (`--test`, or a filter): neither do we
    } else {
        eprintln!("{name}: interleaving {} pages for 10 s", contenders.len());
        Some(measure::interleaved(&contenders, Duration::from_secs(10), |i| match i {
            0 => drop(std::hint::black_box(keyset_page(conn, &requests[0]))),
            1 => drop(std::hint::black_box(keyset_page(conn, &requests[ONE_PERCENT]))),
            2 => drop(std::hint::black_box(keyset_page(conn, deep_request))),
            3 => drop(std::hint::black_box(keyset_page(conn, &requests[SECOND]))),
            4 => drop(std::hint::black_box(keyset_query(conn, &deepest))),
            5 => drop(std::hint::black_box(expert(conn, &deepest))),
            6 => drop(std::hint::black_box(pk_range(conn, deepest.id))),
            _ => drop(std::hint::black_box(expert_literal.map(|page| page(conn, &deepest)))),
        }))
    };
    let measured = |i: usize| interleaved.as_ref().and_then(|m| m.get(i).copied());
    let [first, shallow, api, second, query, hand, range, literal] =
        [0, 1, 2, 3, 4, 5, 6, 7].map(measured);

    // The files.
    let us = |ns: Option<f64>| ns.map_or(String::new(), |ns| format!("{:.2}", ns / 1e3));
    for (i, depth) in depths.iter().enumerate() {
        let _ = writeln!(results.depth_csv, "{name},keyset,{depth},{}", us(keyset[i]));
        let _ = writeln!(results.depth_csv, "{name},offset,{depth},{}", us(offset[i]));
    }
    for (page, ns) in
        contenders.iter().zip([first, shallow, api, second, query, hand, range, literal])
    {
        let _ = writeln!(results.pages_csv, "{name},{page},{}", us(ns));
    }
    results.depth_table.push((
        name,
        depths
            .iter()
            .enumerate()
            .map(|(i, &d)| (d, keyset[i].map(|ns| ns / 1e3), offset[i].map(|ns| ns / 1e3)))
            .collect(),
    ));
    let ratios = &mut results.ratios;
    let deepest_name = format!("depth {} / depth 0", depths[DEEPEST]);
    ratios.add(name, &format!("keyset {deepest_name}"), api, first, Target::AtMost(1.3));
    // The page users ask for most after the first: near the top of the listing a planner that
    // reads the cursor's values sees that most rows pass its bound.
    ratios.add(
        name,
        &format!("keyset depth {} (the second page) / depth 0", depths[SECOND]),
        second,
        first,
        Target::AtMost(1.3),
    );
    ratios.add(
        name,
        &format!(
            "keyset depth {} / depth {} (both after a cursor)",
            depths[DEEPEST], depths[ONE_PERCENT]
        ),
        api,
        shallow,
        Target::None,
    );
    ratios.add(name, &format!("OFFSET {deepest_name}"), offset[DEEPEST], offset[0], Target::None);
    ratios.add(
        name,
        &format!("keyset page / expert page ({expert_shape})"),
        api,
        hand,
        Target::AtMost(expert_target),
    );
    if expert_literal.is_some() {
        ratios.add(
            name,
            &format!("keyset page / expert page ({expert_shape}, literal LIMIT)"),
            api,
            literal,
            Target::AtMost(1.0),
        );
    }
    ratios.add(name, "keyset page / pk range page", api, range, Target::AtMost(1.3));
    ratios.add(name, "keyset query alone / expert page", query, hand, Target::None);
    ratios.add(
        name,
        "OFFSET / keyset page at the deepest cursor",
        offset[DEEPEST],
        keyset[DEEPEST],
        Target::None,
    );
}

/// The lines of a plan that say how the table is read (MariaDB's JSON plans are long).
fn summary(plan: &[String]) -> String {
    const TELLING: &[&str] =
        &["SEARCH", "SCAN", "Index", "\"access_type\"", "\"key\"", "_condition\""];
    let lines: Vec<&str> = plan
        .iter()
        .map(|line| line.trim())
        .filter(|line| TELLING.iter().any(|word| line.contains(word)))
        .collect();
    lines.join(" / ")
}

/// Median page latency per depth, µs, one column per backend and method.
fn depth_markdown(results: &Results) -> String {
    let mut out = String::from("| depth |");
    let mut rule = String::from("|---:|");
    for (name, _) in &results.depth_table {
        let _ = write!(out, " {name} keyset | {name} OFFSET |");
        rule.push_str("---:|---:|");
    }
    out.push('\n');
    out.push_str(&rule);
    out.push('\n');
    let cell = |v: Option<f64>| match v {
        Some(v) if v >= 1000.0 => format!("{:.1} ms", v / 1e3),
        Some(v) => format!("{v:.0} µs"),
        None => "–".into(),
    };
    let depths: Vec<i64> = results
        .depth_table
        .first()
        .map(|(_, r)| r.iter().map(|r| r.0).collect())
        .unwrap_or_default();
    for (i, depth) in depths.iter().enumerate() {
        let _ = write!(out, "| {depth} |");
        for (_, rows) in &results.depth_table {
            let _ = write!(out, " {} | {} |", cell(rows[i].1), cell(rows[i].2));
        }
        out.push('\n');
    }
    out
}

fn sqlite() -> Backend<SqliteConnection> {
    use keyset_runtime::explain::sqlite_index_seek as seek;
    Backend {
        name: "SQLite",
        keyset_page: pages::sqlite::keyset_page,
        keyset_query: |conn, cursor| pages::load(conn, pages::sqlite::keyset_query(cursor)),
        offset: |conn, depth| pages::load(conn, pages::sqlite::offset_query(depth)),
        pk_range: |conn, below| pages::load(conn, pages::sqlite::pk_query(below)),
        cursor_at: pages::sqlite::cursor_at,
        conn: seed::sqlite(),
        expert_shape: "OR + leading bound",
        expert: |conn, cursor| pages::load(conn, pages::sqlite::or_bound_query(cursor)),
        expert_literal: None,
        expert_target: 1.0,
        plans: |conn, cursor| {
            vec![
                ("keyset query", seek(&pages::sqlite::keyset_query(cursor), conn)),
                ("expert query", seek(&pages::sqlite::or_bound_query(cursor), conn)),
                ("pk range query", seek(&pages::sqlite::pk_query(cursor.id), conn)),
            ]
        },
    }
}

#[cfg(feature = "postgres")]
fn postgres() -> Backend<PgConnection> {
    use keyset_runtime::explain::postgres_index_seek as seek;
    let url = keyset_benches::database_url("PG_DATABASE_URL", keyset_benches::POSTGRES_URL);
    Backend {
        name: "PostgreSQL",
        keyset_page: pages::postgres::keyset_page,
        keyset_query: |conn, cursor| pages::load(conn, pages::postgres::keyset_query(cursor)),
        offset: |conn, depth| pages::load(conn, pages::postgres::offset_query(depth)),
        pk_range: |conn, below| pages::load(conn, pages::postgres::pk_query(below)),
        cursor_at: pages::postgres::cursor_at,
        conn: seed::postgres(&url),
        expert_shape: "row value",
        expert: |conn, cursor| pages::load(conn, pages::row_value_query(cursor)),
        // The API writes its LIMIT literally, so PostgreSQL plans its statement once (issue 17's
        // goal: at most 0.85x the expert's page with a bound LIMIT).
        expert_literal: Some(|conn, cursor| {
            pages::load(conn, pages::row_value_literal_query(cursor))
        }),
        expert_target: 0.85,
        plans: |conn, cursor| {
            vec![
                ("keyset query", seek(&pages::postgres::keyset_query(cursor), conn)),
                ("expert query", seek(&pages::row_value_query(cursor), conn)),
                ("pk range query", seek(&pages::postgres::pk_query(cursor.id), conn)),
            ]
        },
    }
}

#[cfg(feature = "mysql")]
fn mysql() -> Backend<MysqlConnection> {
    use keyset_runtime::explain::mysql_index_seek as seek;
    let url = keyset_benches::database_url("MYSQL_DATABASE_URL", keyset_benches::MYSQL_URL);
    Backend {
        name: "MariaDB",
        keyset_page: pages::mysql::keyset_page,
        keyset_query: |conn, cursor| pages::load(conn, pages::mysql::keyset_query(cursor)),
        offset: |conn, depth| pages::load(conn, pages::mysql::offset_query(depth)),
        pk_range: |conn, below| pages::load(conn, pages::mysql::pk_query(below)),
        cursor_at: pages::mysql::cursor_at,
        conn: seed::mysql(&url),
        expert_shape: "OR + leading bound",
        expert: |conn, cursor| pages::load(conn, pages::mysql::or_bound_query(cursor)),
        expert_literal: None,
        expert_target: 1.0,
        plans: |conn, cursor| {
            vec![
                ("keyset query", seek(&pages::mysql::keyset_query(cursor), conn)),
                ("expert query", seek(&pages::mysql::or_bound_query(cursor), conn)),
                ("pk range query", seek(&pages::mysql::pk_query(cursor.id), conn)),
            ]
        },
    }
}
