//! Navigation without a token (issue 35), over the orders bench's 1,000,000 posts
//! (`bench_orders`, see `keyset_benches::order_seed`) in its three orders: uniform directions,
//! mixed, and a nullable leading key. At the first row, half-way, and at each of the orders
//! bench's deep positions (the deepest pages; for the nullable key also deep in the values, at
//! the last value and half-way through the drafts), for the row there:
//!
//! - **token page**: the page after the row, by its token (what a `next_cursor` asks for; at the
//!   first row too, where the first page, without a predicate, is cheaper than any seek);
//! - **start at its value**: `allow_starts().start_at(..)` with the row's leading value, the page
//!   from the first row of that value (a draft's: the first draft), as `?from=` runs it;
//! - **page at the row**: `at_row(&row)`, the row in hand;
//! - **around the row**: what a handler of `?around=<id>` runs: `at_row_id(id)`, the row's values
//!   read inside the page's statements (in the nullable order, on PostgreSQL both regions' first
//!   statements as one union, each guarded by the row's value; elsewhere the values' first, so
//!   that a draft's page runs one statement more).
//!
//! Target: each at most 1.2× the token page, measured in one interleaved run per position.
//! Before timing, every page is checked against `LIMIT/OFFSET`, and the statements each runs are
//! counted (Diesel's instrumentation): around the row by id runs as many as the page at the row
//! (a draft's one more but on PostgreSQL). SQLite always; PostgreSQL and MariaDB with the `postgres` / `mysql`
//! features.
//!
//! ```sh
//! cargo bench -p keyset-benches --bench starts --features postgres,mysql
//! ```
//!
//! Writes `starts.csv` and `starts-ratios.csv` into `KEYSET_BENCH_OUT` (default
//! `<target>/keyset-bench/`) and `starts.md` into `<target>/keyset-bench/`.

use std::fmt::{Debug, Write as _};
use std::time::Duration;

use criterion::{BenchmarkId, Criterion};
use diesel::Connection;
use keyset_benches::measure::{self, Group, Results, Target};
use keyset_benches::order_cursors;
use keyset_benches::order_pages::{self, recorded};
use keyset_benches::order_seed::DRAFT_EVERY;
use keyset_benches::pages::PAGE;
use keyset_benches::schema::{Newest, NewestOldId, Published};
use keyset_benches::start_pages;
use keyset_runtime::{Keyset, Page, PageRequest};

/// What is timed at each position, in turn.
const FORMS: [&str; 4] = ["token page", "start at its value", "page at the row", "around the row"];

/// The most each form may cost, as a ratio of the token page.
const TARGET: f64 = 1.2;

/// One order's pages on a backend whose connection is `C`.
struct Order<C, M: Keyset> {
    name: &'static str,
    nullable: bool,
    /// Whether a page at a row's id runs both regions of a nullable key as one union.
    unites: bool,
    page: fn(&mut C, &PageRequest) -> Page<M>,
    window: fn(&mut C, i64, i64) -> Vec<M>,
    ties: fn(&M, &M) -> bool,
    start: fn(&mut C, &M, bool) -> Page<M>,
    at_row: fn(&mut C, &M) -> Page<M>,
    around: fn(&mut C, i64) -> Page<M>,
    id: fn(&M) -> i64,
}

/// The [`Order`] of `$backend`'s `$module` (a backend's module in `order_pages` and in
/// `start_pages`, an order's in it).
macro_rules! order {
    ($backend:ident, $module:ident, $name:expr, $nullable:expr) => {
        Order {
            name: $name,
            nullable: $nullable,
            unites: stringify!($backend) == "postgres",
            page: order_pages::$backend::$module::page,
            window: order_pages::$backend::$module::window,
            ties: order_pages::$backend::$module::ties,
            start: start_pages::$backend::$module::start,
            at_row: start_pages::$backend::$module::at_row,
            around: start_pages::$backend::$module::around,
            id: |row| row.id,
        }
    };
}

/// Runs every order on one engine.
macro_rules! engine {
    ($criterion:expr, $results:expr, $backend:ident, $name:expr, $conn:expr) => {{
        let (criterion, results, mut conn) = (&mut $criterion, &mut $results, $conn);
        let conn = &mut conn;
        let uniform = order!($backend, newest, "uniform (created_at DESC, id DESC)", false);
        order::<_, Newest>(criterion, $name, conn, uniform, results);
        let mixed = order!($backend, mixed, "mixed (created_at DESC, id ASC)", false);
        order::<_, NewestOldId>(criterion, $name, conn, mixed, results);
        let nullable = "nullable leading (published_at DESC NULLS LAST, id DESC)";
        let published = order!($backend, published, nullable, true);
        order::<_, Published>(criterion, $name, conn, published, results);
    }};
}

fn main() {
    let mut criterion = Criterion::default().without_plots().configure_from_args();
    let mut results = Results::default();

    engine!(criterion, results, sqlite, "SQLite", keyset_benches::order_seed::sqlite());
    #[cfg(feature = "postgres")]
    {
        let url = keyset_benches::database_url("PG_DATABASE_URL", keyset_benches::POSTGRES_URL);
        let conn = keyset_benches::order_seed::postgres(&url);
        engine!(criterion, results, postgres, "PostgreSQL", conn);
    }
    #[cfg(feature = "mysql")]
    {
        let url = keyset_benches::database_url("MYSQL_DATABASE_URL", keyset_benches::MYSQL_URL);
        let conn = keyset_benches::order_seed::mysql(&url);
        engine!(criterion, results, mysql, "MariaDB", conn);
    }

    criterion.final_summary();
    if results.is_empty() {
        return; // `--test`, or everything filtered out: nothing measured, nothing to write
    }
    let markdown = format!(
        "{} rows, pages of {PAGE}. Medians in µs of one interleaved run per position; the \
         statements each form ran in brackets. A start's page begins at the first row of the \
         row's value (its depth in the last column).\n\n\
         | backend | order | position | token page | start at its value | page at the row | \
         around the row | start's depth |\n|---|---|---|---:|---:|---:|---:|---:|\n{}\n{}",
        keyset_benches::seed::rows(),
        results.table,
        results.ratios.markdown("backend, order, position"),
    );
    let header =
        "backend,order,position,form,statements,criterion_median_us,interleaved_median_us\n";
    results.write("starts", header, &markdown);
}

/// Checks and times every form at each of `order`'s positions.
fn order<C: Connection, M: Keyset + Clone + PartialEq + Debug>(
    criterion: &mut Criterion,
    backend: &str,
    conn: &mut C,
    order: Order<C, M>,
    results: &mut Results,
) {
    // The orders bench's cursors are rows, at `depth - 1`; its first page is the first row's.
    let deep = order_cursors::positions(
        |offset, rows| (order.window)(conn, offset, rows),
        order.ties,
        order.nullable,
    );
    let mut positions: Vec<(&str, i64)> =
        deep.iter().skip(1).map(|position| (position.label, position.depth - 1)).collect();
    let half = keyset_benches::seed::rows() / 2 + 37; // inside a tie group of 100
    positions.splice(0..0, [("the first row", 0), ("half-way: inside a tie group", half)]);
    // Named by the order's first word and the position's depth: criterion cuts long names.
    let short = order.name.split(' ').next().unwrap_or(order.name);
    let mut group = Group::new(criterion.benchmark_group(format!("starts/{backend}/{short}")), 10);
    group.settings().warm_up_time(Duration::from_millis(300));
    group.settings().measurement_time(Duration::from_secs(1));
    for &(label, at) in &positions {
        let checked = check(conn, &order, label, at);
        let run = |conn: &mut C, form: usize| match form {
            0 => drop((order.page)(conn, &checked.token)),
            1 => drop((order.start)(conn, &checked.row, true)),
            2 => drop((order.at_row)(conn, &checked.row)),
            _ => drop((order.around)(conn, (order.id)(&checked.row))),
        };
        let mut criterion_us = Vec::new();
        for (form, label) in FORMS.iter().enumerate() {
            let id = BenchmarkId::new(*label, at);
            criterion_us.push(group.bench(id, || run(conn, form)).map(|ns| ns / 1e3));
        }
        let medians = measure::interleaved(&FORMS, Duration::from_secs(4), |form| run(conn, form));
        let subject = format!("{backend}, {}, {label}", order.name);
        for (form, form_label) in FORMS.iter().enumerate().skip(1) {
            let ratio = format!("{form_label} / token page");
            let target = Target::AtMost(TARGET);
            results.ratios.push(&subject, &ratio, medians[form] / medians[0], target);
        }
        let mut cells = String::new();
        for (form, form_label) in FORMS.iter().enumerate() {
            let (statements, us) = (checked.statements[form], medians[form] / 1e3);
            let criterion = criterion_us[form].map_or(String::new(), |us| format!("{us:.2}"));
            let _ = writeln!(
                results.csv,
                "{backend},{},{},{form_label},{statements},{criterion},{us:.2}",
                measure::csv_field(order.name),
                measure::csv_field(label),
            );
            let _ = write!(cells, " {us:.1} ({statements}) |");
        }
        let _ = writeln!(
            results.table,
            "| {backend} | {} | {label} |{cells} {} |",
            order.name, checked.start_depth
        );
    }
    group.finish();
}

/// A position's row, checked: every form's page equals its cut of the listing.
struct Checked<M> {
    row: M,
    /// The request for the page after the row, by its token.
    token: PageRequest,
    /// Where the page from the row's value starts: the first row of that value.
    start_depth: i64,
    /// How many statements each form ran, in [`FORMS`] order.
    statements: [usize; 4],
}

/// Loads every form's page at the row at offset `at` (`label`) once, checks its rows against
/// `LIMIT/OFFSET`, and counts the statements it ran. Panics on a page that is not what it says.
fn check<C: Connection, M: Keyset + Clone + PartialEq + Debug>(
    conn: &mut C,
    order: &Order<C, M>,
    label: &str,
    at: i64,
) -> Checked<M> {
    let row = (order.window)(conn, at, 1).remove(0);
    let request = order_pages::after::<M>(&row.cursor());
    let start_depth = value_start(conn, order, &row, at);
    let place = format!("{}, {label}", order.name);

    let (token, token_statements) = recorded(conn, |conn| (order.page)(conn, &request));
    let after = (order.window)(conn, at + 1, i64::from(PAGE));
    assert_eq!(token.items, after, "{place}: the token page");
    let (start, start_statements) = recorded(conn, |conn| (order.start)(conn, &row, true));
    let from_value = (order.window)(conn, start_depth, i64::from(PAGE));
    assert_eq!(start.items, from_value, "{place}: the page from the row's value");
    assert!(start.prev_cursor.is_some(), "{place}: a start has a prev_cursor");
    let (at_row, at_row_statements) = recorded(conn, |conn| (order.at_row)(conn, &row));
    assert_eq!(at_row.items, (order.window)(conn, at, i64::from(PAGE)), "{place}: at the row");
    assert!(at_row.prev_cursor.is_some(), "{place}: a page at a row has a prev_cursor");
    let (around, around_statements) = recorded(conn, |conn| (order.around)(conn, (order.id)(&row)));
    assert_eq!(around.items, at_row.items, "{place}: around the row");
    // In the nullable order, except on PostgreSQL (one union of both regions' statements), a
    // draft's page first runs the values' statement, which finds nothing.
    let values_first = order.nullable && !order.unites && at >= drafts_from();
    assert!(
        around_statements.len() == at_row_statements.len() + usize::from(values_first),
        "{place}: around the row ran {around_statements:#?}, at the row {at_row_statements:#?}"
    );
    let statements = [token_statements, start_statements, at_row_statements, around_statements]
        .map(|statements| statements.len());
    Checked { row, token: request, start_depth, statements }
}

/// The offset of the first row whose leading value is `row`'s (at offset `at`): within the 200
/// rows before it (a tie group holds 100), or, for a draft, where the drafts begin.
fn value_start<C: Connection, M: Keyset + Clone + PartialEq + Debug>(
    conn: &mut C,
    order: &Order<C, M>,
    row: &M,
    at: i64,
) -> i64 {
    let from = (at - 200).max(0);
    let before = (order.window)(conn, from, at - from + 1);
    let first = before.iter().position(|other| (order.ties)(other, row)).expect("the row ties");
    if first > 0 || from == 0 {
        return from + first as i64;
    }
    assert!(order.nullable, "{}: a tie group longer than 200 rows", order.name);
    let drafts = drafts_from();
    let edge = (order.window)(conn, drafts - 1, 2);
    assert!(
        !(order.ties)(&edge[0], row) && (order.ties)(&edge[1], row),
        "drafts begin at {drafts}"
    );
    drafts
}

/// The offset of the first draft (a NULL `published_at`) in the nullable order: the drafts, one
/// post in [`DRAFT_EVERY`], come last.
fn drafts_from() -> i64 {
    let rows = keyset_benches::seed::rows();
    rows - rows / DRAFT_EVERY
}
