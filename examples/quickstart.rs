//! The keyset quickstart, on SQLite (diesel's bundled libsqlite3): nothing to install.
//!
//! Runs the migrations of the example blog (`examples/blog`): its tables, then the indexes its
//! build script wrote from the models' sort orders. Seeds 100 000 posts whose timestamps tie in
//! groups of 100; pages forward and back; prints the SQL of a page (on SQLite, one statement per
//! tie level) and SQLite's query plans, which must be index SEARCHes on the generated index with no
//! sort.
//!
//! Run it with `cargo run --example quickstart`.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use chrono::DateTime;
use diesel::connection::{Instrumentation, InstrumentationEvent};
use diesel::prelude::*;
use diesel_migrations::MigrationHarness;
use keyset_example_blog::schema::posts;
use keyset_example_blog::{Post, SQLITE_MIGRATIONS};
use keyset_runtime::migration::Backend;
use keyset_runtime::{Keyset, Page, PageRequest, Paginate};

const ROWS: i64 = 100_000;
const TIE_GROUP: i64 = 100;
const PAGE: u32 = 5;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut conn = SqliteConnection::establish(":memory:")?;
    println!("keyset quickstart: SQLite {} in memory\n", sqlite_version(&mut conn)?);
    println!("model:  {}", Post::SORT_ORDER);
    for migration in
        conn.run_pending_migrations(SQLITE_MIGRATIONS).map_err(|err| err.to_string())?
    {
        println!("migrated: {migration}");
    }
    // The order's index, and the one its prefix declares for feeds (`#[keyset(prefix(author_id))]`).
    println!("indexes (written by the build script from the model):");
    for index in Post::INDEXES {
        println!("  {}", index.create(Backend::Sqlite));
    }
    println!();

    let started = Instant::now();
    seed(&mut conn)?;
    println!("seeded {ROWS} posts, {TIE_GROUP} per timestamp, in {:.1?}\n", started.elapsed());

    // The query users write: any filters, any select of the model; paginate adds the rest.
    let query = || posts::table.filter(posts::score.ge(0)).select(Post::as_select());

    println!("== forward: PageRequest::first({PAGE}), then after(next_cursor)");
    let page1 = query().paginate(&PageRequest::first(PAGE))?.load_page(&mut conn)?;
    show("page 1", &page1);
    let page2 = query()
        .paginate(&PageRequest::after(page1.next_cursor.clone().expect("page 2 exists"), PAGE))?
        .load_page(&mut conn)?;
    show("page 2", &page2);
    let page3 = query()
        .paginate(&PageRequest::after(page2.next_cursor.clone().expect("page 3 exists"), PAGE))?
        .load_page(&mut conn)?;
    show("page 3", &page3);

    println!("\n== backward: before(prev_cursor of page 3) is page 2 again, in the same order");
    let back = query()
        .paginate(&PageRequest::before(page3.prev_cursor.clone().expect("page 2 exists"), PAGE))?
        .load_page(&mut conn)?;
    show("page 2", &back);
    assert_eq!(back.items, page2.items, "going back returns the same page");

    println!("\n== the end: PageRequest::last({PAGE}) has no next page");
    let last = query().paginate(&PageRequest::last(PAGE))?.load_page(&mut conn)?;
    show("last page", &last);
    assert_eq!(last.next_cursor, None);

    println!("\n== a malformed token is an error (HTTP 400), never a silent first page");
    let err = query().paginate(&PageRequest::after("not-a-token", PAGE)).err().expect("refused");
    println!("after(\"not-a-token\"): {err} (client error: {})", err.is_client_error());

    // A cursor 90% of the way down, and the page after it: what paginate runs, as Diesel's
    // instrumentation sees it.
    let depth = ROWS * 9 / 10;
    let number = u32::try_from(depth / i64::from(PAGE))?;
    let deep = query().paginate(&PageRequest::page_number(number, PAGE))?.load_page(&mut conn)?;
    let token = deep.next_cursor.expect("rows lie deeper");
    let statements = recorded(&mut conn, |conn| {
        query().paginate(&PageRequest::after(token, PAGE))?.load_page(conn)
    })?;
    println!(
        "\n== the SQL of a page at depth {depth} (limit + 1 rows: the extra one says if a next page exists)"
    );
    println!("on SQLite, one statement per tie level, the next only while the page is short:");
    for (number, statement) in statements.iter().enumerate() {
        println!("\nstatement {}: {statement}", number + 1);
        // SQLite plans a statement without its values: `EXPLAIN QUERY PLAN` of its text.
        let sql = statement.split(" -- binds:").next().unwrap_or(statement);
        let plan: Vec<PlanStep> =
            diesel::sql_query(format!("EXPLAIN QUERY PLAN {sql}")).load(&mut conn)?;
        for step in &plan {
            println!("  EXPLAIN QUERY PLAN: {}", step.detail);
        }
        let seeks = plan.iter().any(|step| {
            step.detail.starts_with("SEARCH") && step.detail.contains(Post::INDEXES[0].name)
        });
        assert!(seeks, "the generated index serves the page");
        assert!(plan.iter().all(|step| !step.detail.contains("TEMP B-TREE")), "no sort");
    }
    println!(
        "→ index SEARCHes, no TEMP B-TREE sort: every page costs the same seeks, at any depth"
    );

    println!("\n== walking all {ROWS} posts, 1000 per page");
    let started = Instant::now();
    let (rows, pages) = walk_all(&mut conn, 1000)?;
    let unique: HashSet<i64> = rows.iter().map(|post| post.id).collect();
    println!(
        "{} rows in {pages} pages, {} distinct, in {:.1?}",
        rows.len(),
        unique.len(),
        started.elapsed()
    );
    assert_eq!(
        (rows.len(), unique.len()),
        (ROWS as usize, ROWS as usize),
        "no row lost or repeated"
    );
    assert!(rows.windows(2).all(|w| (w[0].created_at, w[0].id) > (w[1].created_at, w[1].id)));
    println!("every row exactly once, in order");
    Ok(())
}

/// 100 000 posts, ids shuffled against time, `TIE_GROUP` posts per timestamp, by 50 authors.
fn seed(conn: &mut SqliteConnection) -> QueryResult<()> {
    conn.transaction(|conn| {
        let rows: Vec<_> = (1..=ROWS)
            .map(|id| {
                let slot = (id * 7919) % (ROWS / TIE_GROUP);
                let micros = 1_700_000_000_000_000 + slot * 60_000_123;
                let created_at =
                    DateTime::from_timestamp_micros(micros).expect("in range").naive_utc();
                (
                    posts::id.eq(id),
                    posts::created_at.eq(created_at),
                    posts::score.eq((id % 10) as i32),
                    posts::author_id.eq(1 + id % 50),
                    posts::slug.eq(format!("post-{id}")),
                    posts::title.eq(format!("post {id}")),
                )
            })
            .collect();
        for chunk in rows.chunks(2_000) {
            diesel::insert_into(posts::table).values(chunk).execute(conn)?;
        }
        Ok(())
    })
}

fn walk_all(
    conn: &mut SqliteConnection,
    limit: u32,
) -> Result<(Vec<Post>, usize), keyset_runtime::Error> {
    let mut rows = Vec::new();
    let mut pages = 0;
    let mut request = PageRequest::first(limit);
    loop {
        let page = posts::table
            .select(Post::as_select())
            .paginate(&request)?
            .max_limit(limit)
            .load_page(conn)?;
        pages += 1;
        rows.extend(page.items);
        match page.next_cursor {
            Some(token) => request = PageRequest::after(token, limit),
            None => return Ok((rows, pages)),
        }
    }
}

fn show(label: &str, page: &Page<Post>) {
    let ids: Vec<String> = page
        .items
        .iter()
        .map(|post| format!("{} ({})", post.id, post.created_at.format("%H:%M:%S%.6f")))
        .collect();
    println!("{label}: {}", ids.join(", "));
    println!("  next_cursor: {}", page.next_cursor.as_deref().unwrap_or("None"));
    println!("  prev_cursor: {}", page.prev_cursor.as_deref().unwrap_or("None"));
}

/// One step of SQLite's `EXPLAIN QUERY PLAN`.
#[derive(QueryableByName)]
struct PlanStep {
    #[diesel(sql_type = diesel::sql_types::Text)]
    detail: String,
}

/// Runs `load` with every statement it sends recorded, as Diesel shows it (SQL and binds).
fn recorded<T, E>(
    conn: &mut SqliteConnection,
    load: impl FnOnce(&mut SqliteConnection) -> Result<T, E>,
) -> Result<Vec<String>, E> {
    let log = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&log);
    conn.set_instrumentation(move |event: InstrumentationEvent<'_>| {
        if let InstrumentationEvent::StartQuery { query, .. } = event {
            sink.lock().expect("not poisoned").push(query.to_string());
        }
    });
    let loaded = load(conn);
    conn.set_instrumentation(None::<Box<dyn Instrumentation>>);
    loaded?;
    let statements = log.lock().expect("not poisoned").clone();
    Ok(statements)
}

fn sqlite_version(conn: &mut SqliteConnection) -> QueryResult<String> {
    diesel::select(diesel::dsl::sql::<diesel::sql_types::Text>("sqlite_version()")).get_result(conn)
}
