//! Three orders over one table of 1,000,000 posts (`bench_orders`, see
//! `keyset_benches::order_seed`): uniform directions (`created_at DESC, id DESC`), mixed
//! (`created_at DESC, id ASC`) and a nullable leading key (`published_at DESC NULLS LAST, id
//! DESC`, one post in seven a draft). For each order and engine, through the public API, in the
//! field order and in the run-time order of the same keys (`paginate_by`): the first page and
//! the deepest pages, at a cursor inside its tie group and at one that ends it (for the nullable
//! key: deep in the values, at the last value, which the drafts follow, half-way through the
//! drafts and deep in them); beside them the expert's page written by hand for that order
//! (`.limit(21)` bound; on PostgreSQL also with a literal `LIMIT 21`) and a bare primary-key
//! page. SQLite always; PostgreSQL and MariaDB with the `postgres` / `mysql` features (their
//! server must answer).
//!
//! With the `async` feature, which the server features bring, every page of the field order also
//! through the async path (`load_page_async`, see `keyset_benches::order_async`): on one
//! diesel-async connection per engine (SQLite's sync connection in diesel-async's
//! `SyncConnectionWrapper`), each page awaited with one `block_on` of a current-thread runtime,
//! as the async bench does. Beside the sync page, it measures what the async driver costs, the
//! runtime's `block_on` included (on SQLite also the wrapper's hop of every statement to a
//! blocking thread, diesel-async's, so that ratio has no target); and its deepest pages against
//! its first page.
//!
//! ```sh
//! cargo bench -p keyset-benches --bench orders           # SQLite, results in target/keyset-bench/
//! cargo bench -p keyset-benches --bench orders --features postgres,mysql
//! ```
//!
//! Before timing, every page is checked against `LIMIT/OFFSET`, and every statement it runs is
//! recorded (Diesel's instrumentation), matched to one built from the model's seek, tie levels or
//! NULL regions, and explained with `keyset_runtime::plan`; so are the expert's and the
//! primary-key statements. The async page must equal the sync one, tokens included, and run the
//! same SQL (recorded by diesel-async's instrumentation). A statement that is not an index seek
//! is reported in the plans table, not hidden. The ratios come from one interleaved run per
//! engine and order.
//!
//! Writes `orders.csv` and `orders-ratios.csv` into `KEYSET_BENCH_OUT` (default
//! `<target>/keyset-bench/`) and `orders.md` (every table) into `<target>/keyset-bench/`.

use std::fmt::Write as _;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion};
use diesel::Connection;
use keyset_benches::measure::{self, Group, Ratios, Target};
use keyset_benches::order_cursors;
use keyset_benches::order_pages::{self as pages, Candidate};
use keyset_benches::pages::PAGE;
use keyset_runtime::Keyset;

#[path = "orders/backends.rs"]
mod backends;
use backends::{Backend, Order};

/// What is timed, in turn.
#[derive(Clone, Copy)]
enum Job {
    Api(usize),
    /// The API page through the run-time order.
    Named(usize),
    /// The API page through the async path.
    Async(usize),
    Expert(usize),
    Literal(usize),
    Pk(i64),
}

#[derive(Default)]
struct Results {
    /// `backend,order,page,depth,statements,criterion_us,interleaved_us`
    csv: String,
    pages: String,
    plans: String,
    ratios: Ratios,
}

fn main() {
    let mut criterion = Criterion::default().without_plots().configure_from_args();
    let mut results = Results::default();
    let load_before = load_average();

    run(&mut criterion, backends::sqlite(), &mut results);
    #[cfg(feature = "postgres")]
    run(&mut criterion, backends::postgres(), &mut results);
    #[cfg(feature = "mysql")]
    run(&mut criterion, backends::mysql(), &mut results);

    criterion.final_summary();
    if results.ratios.0.is_empty() {
        return; // `--test`, or everything filtered out: nothing measured, nothing to write
    }
    let markdown = format!(
        "{} rows, pages of {PAGE} (each statement fetches {}); load average (1, 5, 15 min) at \
         the start {load_before}, at the end {}. Medians in µs; `statements` is how many the \
         API page ran.\n\n\
         | backend | order | page | depth | statements | criterion | interleaved |\n\
         |---|---|---|---:|---:|---:|---:|\n{}\n{}\n\
         Every statement timed, explained before timing:\n\n\
         | backend | order | page | statement | plan |\n|---|---|---|---|---|\n{}",
        keyset_benches::seed::rows(),
        PAGE + 1,
        load_average(),
        results.pages,
        results.ratios.markdown("backend, order"),
        results.plans,
    );
    let header = "backend,order,page,depth,statements,criterion_median_us,interleaved_median_us\n";
    let csv = format!("{header}{}", results.csv);
    measure::write_results("orders", &csv, &results.ratios, &markdown);
}

/// `/proc/loadavg`'s first three fields, or `?` where there is none.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(", "))
        .unwrap_or_else(|_| "?".into())
}

fn run<C: Connection>(criterion: &mut Criterion, backend: Backend<C>, results: &mut Results) {
    let Backend {
        name,
        mut conn,
        newest,
        mixed,
        published,
        pk,
        pk_candidate,
        expert_target,
        async_target,
    } = backend;
    let conn = &mut conn;
    let ctx = (name, pk, pk_candidate, expert_target, async_target);
    order(criterion, conn, ctx, newest, results);
    order(criterion, conn, ctx, mixed, results);
    order(criterion, conn, ctx, published, results);
}

type Context<C> = (&'static str, fn(&mut C, i64) -> usize, fn(i64) -> Candidate<C>, f64, Target);

fn order<C: Connection, M: Keyset + Clone + PartialEq + std::fmt::Debug>(
    criterion: &mut Criterion,
    conn: &mut C,
    (name, pk, pk_candidate, expert_target, async_target): Context<C>,
    order: Order<C, M>,
    results: &mut Results,
) {
    let positions = order_cursors::positions(
        |offset, rows| (order.window)(conn, offset, rows),
        order.ties,
        order.nullable,
    );
    let subject = format!("{name}, {}", order.name);

    // Each page returns the rows OFFSET does, and every statement it runs is explained.
    let mut statements = Vec::new();
    let mut plan = |page: &str, candidate: &Candidate<C>, conn: &mut C| {
        let verdict = order_cursors::verdict(&candidate.name, (candidate.explain)(conn));
        eprintln!("{subject}, {page}, {}: {verdict}", candidate.name);
        let _ = writeln!(
            results.plans,
            "| {name} | {} | {page} | {} | {verdict} |",
            order.name, candidate.name
        );
    };
    let deepest = positions.iter().rev().find_map(|p| p.cursor.clone()).expect("a deep cursor");
    for position in &positions {
        let (page, ran) = pages::recorded(conn, |conn| (order.page)(conn, &position.request));
        assert_eq!(
            page.items, position.expected,
            "{subject}: {} differs from OFFSET",
            position.label
        );
        assert!(page.next_cursor.is_some(), "{subject}: a page follows {}", position.label);
        let candidates = (order.candidates)(position.cursor.as_ref().unwrap_or(&deepest));
        for statement in &ran {
            let sql = pages::sql_only(statement);
            let Some(candidate) = candidates.iter().find(|c| c.sql == sql) else {
                panic!(
                    "{subject}, {}: a statement this bench does not know: {statement}",
                    position.label
                );
            };
            plan(position.label, candidate, conn);
        }
        statements.push(ran.len());
        // The run-time order runs the same statements (its SELECT list is its own model's).
        let (ids, named) = pages::recorded(conn, |conn| (order.named)(conn, &position.request));
        let rows: Vec<i64> = position.expected.iter().map(order.id).collect();
        assert_eq!(ids, rows, "{subject}: the run-time order's {} differs", position.label);
        // Each SELECT without its list (a union has one per branch).
        let from = |statements: &[String]| -> Vec<String> {
            let unlisted =
                |select: &str| select.split_once(" FROM ").map_or("", |(_, r)| r).to_owned();
            let sql =
                |s: &String| pages::sql_only(s).split("SELECT ").map(unlisted).collect::<Vec<_>>();
            statements.iter().map(|s| sql(s).join("SELECT ")).collect()
        };
        assert_eq!(from(&named), from(&ran), "{subject}: the run-time order's statements differ");
        // The async path returns the same page, tokens included, and runs the same SQL. Its binds
        // are left out: diesel-async's SQLite wrapper shows them as SQLite's values, the sync
        // connection as Rust's; the rows and tokens, equal, check what they bound.
        if let Some(asynchronous) = &order.asynchronous {
            let (async_page, async_ran) = asynchronous.recorded(&position.request);
            assert_eq!(async_page, page, "{subject}: the async path's {} differs", position.label);
            let sql = |statements: &[String]| -> Vec<String> {
                statements.iter().map(|s| pages::sql_only(s)).collect()
            };
            let differ =
                format!("{subject}: the async path's statements for {} differ", position.label);
            assert_eq!(sql(&async_ran), sql(&ran), "{differ}");
        }
        if let (true, Some(cursor)) = (position.expert, &position.cursor) {
            let hand = (order.expert)(conn, cursor);
            assert_eq!(
                hand[..PAGE as usize],
                position.expected[..],
                "{subject}: the expert's page differs"
            );
            plan(position.label, &(order.expert_candidate)(cursor), conn);
            if let Some((literal, candidate)) = order.literal {
                assert_eq!(
                    literal(conn, cursor),
                    hand,
                    "{subject}: the literal-LIMIT page differs"
                );
                plan(position.label, &candidate(cursor), conn);
            }
        }
    }
    let below = (order.id)(&positions[1].expected[0]) + 1;
    assert_eq!(pk(conn, below), PAGE as usize + 1, "{subject}: the primary-key page is full");
    plan("primary-key page", &pk_candidate(below), conn);

    // The contenders: every page through the API, the expert's where it is written, the
    // primary-key page.
    let mut jobs: Vec<(String, Job)> = Vec::new();
    for (i, position) in positions.iter().enumerate() {
        jobs.push((format!("API: {}", position.label), Job::Api(i)));
        jobs.push((format!("API, run-time order: {}", position.label), Job::Named(i)));
        if order.asynchronous.is_some() {
            jobs.push((format!("API, async: {}", position.label), Job::Async(i)));
        }
    }
    for (i, position) in positions.iter().enumerate().filter(|(_, p)| p.expert) {
        jobs.push((format!("expert ({}): {}", order.expert_shape, position.label), Job::Expert(i)));
        if order.literal.is_some() {
            jobs.push((format!("expert, literal LIMIT: {}", position.label), Job::Literal(i)));
        }
    }
    jobs.push(("primary-key page".into(), Job::Pk(below)));
    let run_job = |conn: &mut C, job: Job| match job {
        Job::Api(i) => drop(std::hint::black_box((order.page)(conn, &positions[i].request))),
        Job::Named(i) => drop(std::hint::black_box((order.named)(conn, &positions[i].request))),
        Job::Async(i) => {
            let asynchronous = order.asynchronous.as_ref().expect("the async path");
            drop(std::hint::black_box(asynchronous.page(&positions[i].request)))
        }
        Job::Expert(i) => {
            let cursor = positions[i].cursor.as_ref().expect("a cursor");
            drop(std::hint::black_box((order.expert)(conn, cursor)))
        }
        Job::Literal(i) => {
            let cursor = positions[i].cursor.as_ref().expect("a cursor");
            let literal = order.literal.expect("a literal page").0;
            drop(std::hint::black_box(literal(conn, cursor)))
        }
        Job::Pk(below) => drop(std::hint::black_box(pk(conn, below))),
    };

    let mut group =
        Group::new(criterion.benchmark_group(format!("{name} {} page", order.name)), 20);
    group
        .settings()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    let medians: Vec<Option<f64>> = jobs
        .iter()
        .map(|(label, job)| group.bench(BenchmarkId::from_parameter(label), || run_job(conn, *job)))
        .collect();
    group.finish();
    let interleaved: Vec<Option<f64>> = if medians.iter().any(Option::is_none) {
        vec![None; jobs.len()] // criterion did not measure (`--test`, or a filter): neither do we
    } else {
        eprintln!("{subject}: interleaving {} pages for 10 s", jobs.len());
        let labels: Vec<&str> = jobs.iter().map(|(label, _)| label.as_str()).collect();
        let m =
            measure::interleaved(&labels, Duration::from_secs(10), |i| run_job(conn, jobs[i].1));
        m.into_iter().map(Some).collect()
    };

    let us = |ns: Option<f64>| ns.map_or(String::new(), |ns| format!("{:.1}", ns / 1e3));
    for (k, (label, job)) in jobs.iter().enumerate() {
        let (depth, ran) = match *job {
            Job::Api(i) | Job::Named(i) | Job::Async(i) => {
                (positions[i].depth.to_string(), statements[i].to_string())
            }
            Job::Expert(i) | Job::Literal(i) => (positions[i].depth.to_string(), "1".into()),
            Job::Pk(_) => (String::new(), "1".into()),
        };
        let (crit, inter) = (us(medians[k]), us(interleaved[k]));
        let (order_name, page) = (measure::csv_field(order.name), measure::csv_field(label));
        let _ = writeln!(results.csv, "{name},{order_name},{page},{depth},{ran},{crit},{inter}");
        let _ = writeln!(
            results.pages,
            "| {name} | {} | {label} | {depth} | {ran} | {crit} | {inter} |",
            order.name
        );
    }

    let of = |wanted: &dyn Fn(Job) -> bool| {
        jobs.iter().position(|(_, job)| wanted(*job)).and_then(|k| interleaved[k])
    };
    let first = of(&|job| matches!(job, Job::Api(0)));
    let first_async = of(&|job| matches!(job, Job::Async(0)));
    let ratios = &mut results.ratios;
    for (i, position) in positions.iter().enumerate() {
        let api = of(&|job| matches!(job, Job::Api(j) if j == i));
        let named = of(&|job| matches!(job, Job::Named(j) if j == i));
        let ratio = format!("run-time order / field order, {}", position.label);
        ratios.add(&subject, &ratio, named, api, Target::AtMost(1.05));
        // What the async driver costs beyond the sync one for the same statements, one
        // `block_on` of the current-thread runtime per page included (on SQLite also the
        // wrapper's thread hop per statement: `async_target`).
        let asynchronous = of(&|job| matches!(job, Job::Async(j) if j == i));
        let ratio = format!("async API / sync API, {}", position.label);
        ratios.add(&subject, &ratio, asynchronous, api, async_target);
    }
    for (i, position) in positions.iter().enumerate().skip(1) {
        let api = of(&|job| matches!(job, Job::Api(j) if j == i));
        let (depth, ran) = (position.depth, statements[i]);
        let what = format!("{} (depth {depth}, {ran} statement{})", position.label, plural(ran));
        ratios.add(&subject, &format!("{what} / first page"), api, first, Target::AtMost(1.1));
        let asynchronous = of(&|job| matches!(job, Job::Async(j) if j == i));
        let ratio = format!("async: {what} / async first page");
        ratios.add(&subject, &ratio, asynchronous, first_async, Target::AtMost(1.1));
        if position.expert {
            let hand = of(&|job| matches!(job, Job::Expert(j) if j == i));
            let target = Target::AtMost(expert_target);
            let ratio = format!("API / expert page ({}), {}", order.expert_shape, position.label);
            ratios.add(&subject, &ratio, api, hand, target);
            let literal = of(&|job| matches!(job, Job::Literal(j) if j == i));
            let ratio = format!("API / expert page, literal LIMIT, {}", position.label);
            ratios.add(&subject, &ratio, api, literal, Target::AtMost(1.0));
        }
    }
    let deepest = of(&|job| matches!(job, Job::Api(j) if j == positions.len() - 1));
    let pk = of(&|job| matches!(job, Job::Pk(_)));
    ratios.add(&subject, "API deepest page / primary-key page", deepest, pk, Target::None);
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
