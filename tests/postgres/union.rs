//! A page past a cursor in mixed directions is one statement on PostgreSQL: the `UNION ALL` of its
//! tie levels, each an exact seek under its own ORDER BY and LIMIT, the union ordered by the keys'
//! output columns (`sql/union.rs`). Only where SQL can name those columns unambiguously and the
//! query can be a union's branch: a join's tuple, a boxed query, a locking clause and a model that
//! selects a column of another table keep the single predicate.

use std::sync::{Arc, Mutex};

use diesel::connection::{Instrumentation, InstrumentationEvent};
use diesel::prelude::*;
use keyset_runtime::{Keyset, PageQuery, PageRequest, Paginate};
use keyset_tests::models::{Author, NewestIdAsc, PostByAuthor};
use keyset_tests::schema::{authors, posts};

use crate::{suite::db, Conn};

/// Runs `load` with every statement recorded, as Diesel shows it without its binds.
fn recorded<T>(conn: &mut Conn, load: impl FnOnce(&mut Conn) -> T) -> (T, Vec<String>) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&log);
    conn.set_instrumentation(move |event: InstrumentationEvent<'_>| {
        if let InstrumentationEvent::StartQuery { query, .. } = event {
            let sql = query.to_string();
            sink.lock().unwrap().push(sql.split(" -- binds:").next().unwrap().to_owned());
        }
    });
    let loaded = load(conn);
    conn.set_instrumentation(None::<Box<dyn Instrumentation>>);
    let statements = log.lock().unwrap().clone();
    (loaded, statements)
}

/// The token of the row at `at` in the listing's order: the next cursor of the first `at + 1`.
fn token_at<Q: PageQuery<'static, Conn>>(
    conn: &mut Conn,
    query: impl Fn() -> Q,
    at: u32,
) -> String {
    let page = query().paginate(&PageRequest::first(at + 1)).unwrap().max_limit(u32::MAX);
    page.load_page(conn).unwrap().next_cursor.unwrap()
}

/// The token of the row after `page`, to page back from: the previous cursor of the one-row page
/// that follows it.
fn token_before<Q: PageQuery<'static, Conn>>(
    conn: &mut Conn,
    query: impl Fn() -> Q,
    page: &keyset_runtime::Page<Q::Item>,
) -> String {
    let after = PageRequest::after(page.next_cursor.clone().unwrap(), 1);
    query().paginate(&after).unwrap().load_page(conn).unwrap().prev_cursor.unwrap()
}

/// One tie level's statement: `predicate`, in the order (`forward`) or against it.
fn level_branch(limit: u32, predicate: &str, forward: bool) -> String {
    let (created_at, id) = if forward { ("DESC", "ASC") } else { ("ASC", "DESC") };
    format!(
        "(SELECT \"posts\".\"created_at\", \"posts\".\"id\" FROM \"posts\" WHERE ({predicate}) \
         ORDER BY \"posts\".\"created_at\" {created_at}, \"posts\".\"id\" {id} LIMIT {limit})"
    )
}

#[test]
fn mixed_directions_run_their_tie_levels_as_one_union() {
    let mut conn = db::seeded(300);
    let query = || posts::table.select(NewestIdAsc::as_select());
    let all: Vec<NewestIdAsc> = query().order(NewestIdAsc::order_by()).load(&mut conn).unwrap();
    // Inside a tie group (13 timestamps over 300 rows) and at its last row.
    let group_end = (0..all.len()).find(|&i| all[i + 1].published != all[i].published).unwrap();
    for at in [group_end - 3, group_end] {
        let token = token_at(&mut conn, query, at as u32);
        // Pages of other common sizes are other statements: their LIMIT is in the SQL text
        // (`statement_count.rs` pages the sizes that are bound).
        for limit in [5, 10] {
            let request = PageRequest::after(token.clone(), limit);
            let (page, ran) = recorded(&mut conn, |conn| {
                query().paginate(&request).unwrap().load_page(conn).unwrap()
            });
            let rows = (limit + 1) as usize;
            let expected: Vec<&NewestIdAsc> =
                all.iter().skip(at + 1).take(limit as usize).collect();
            assert_eq!(page.items.iter().collect::<Vec<_>>(), expected, "after row {at}");
            let union = format!(
                "{} UNION ALL {} ORDER BY \"created_at\" DESC, \"id\" ASC LIMIT {rows}",
                level_branch(
                    limit + 1,
                    "\"posts\".\"created_at\" >= (SELECT $1) AND \"posts\".\"created_at\" <= (SELECT $2) AND \"posts\".\"id\" > (SELECT $3)",
                    true,
                ),
                level_branch(limit + 1, "\"posts\".\"created_at\" < (SELECT $4)", true),
            );
            assert_eq!(ran, [union], "after row {at}, pages of {limit}");

            // Back from the row after the page: the same rows, in the order's direction.
            let back = PageRequest::before(token_before(&mut conn, query, &page), limit);
            let (before, ran) = recorded(&mut conn, |conn| {
                query().paginate(&back).unwrap().load_page(conn).unwrap()
            });
            assert_eq!(before.items, page.items, "before row {}", at + limit as usize);
            let union = format!(
                "{} UNION ALL {} ORDER BY \"created_at\" ASC, \"id\" DESC LIMIT {rows}",
                level_branch(
                    limit + 1,
                    "\"posts\".\"created_at\" >= (SELECT $1) AND \"posts\".\"created_at\" <= (SELECT $2) AND \"posts\".\"id\" < (SELECT $3)",
                    false,
                ),
                level_branch(limit + 1, "\"posts\".\"created_at\" > (SELECT $4)", false),
            );
            assert_eq!(ran, [union], "before, pages of {limit}");
        }
    }
}

/// Every listing below pages correctly without the union: one statement each, the single
/// predicate (`OR`), never `UNION ALL`.
#[test]
fn queries_a_union_cannot_serve_keep_the_single_predicate() {
    let mut conn = db::seeded(120);
    fn single_predicate(ran: &[String], what: &str) {
        assert_eq!(ran.len(), 1, "{what}: {ran:#?}");
        assert!(ran[0].contains(" OR ") && !ran[0].contains("UNION"), "{what}: {ran:#?}");
    }
    fn second_page<Q: PageQuery<'static, Conn>>(
        conn: &mut Conn,
        query: impl Fn() -> Q,
    ) -> (usize, Vec<String>) {
        let token = token_at(conn, &query, 10);
        let request = PageRequest::after(token, 7);
        let (page, ran) =
            recorded(conn, |conn| query().paginate(&request).unwrap().load_page(conn).unwrap());
        (page.items.len(), ran)
    }

    // A join's tuple: its output columns repeat names (`id` beside `id`).
    let (rows, ran) = second_page(&mut conn, || {
        posts::table
            .inner_join(authors::table)
            .select((NewestIdAsc::as_select(), Author::as_select()))
    });
    assert_eq!(rows, 7);
    single_predicate(&ran, "a join's tuple");

    // A boxed query cannot be copied into branches.
    let (rows, ran) =
        second_page(&mut conn, || posts::table.select(NewestIdAsc::as_select()).into_boxed());
    assert_eq!(rows, 7);
    single_predicate(&ran, "a boxed query");

    // PostgreSQL refuses `FOR UPDATE` in a union.
    let (rows, ran) = conn
        .transaction(|conn| {
            Ok::<_, diesel::result::Error>(second_page(conn, || {
                posts::table.select(NewestIdAsc::as_select()).for_update()
            }))
        })
        .unwrap();
    assert_eq!(rows, 7);
    single_predicate(&ran, "a locking query");

    // A model that selects another table's column (`authors.name`) outputs no name for it that
    // SQL could order a union by: its mixed order keeps the predicate.
    assert_eq!(PostByAuthor::SELECTED_NAMES, None);
    assert_eq!(NewestIdAsc::SELECTED_NAMES, Some(&["created_at", "id"][..]));
    let (rows, ran) = second_page(&mut conn, || {
        posts::table.inner_join(authors::table).select(PostByAuthor::as_select())
    });
    assert_eq!(rows, 7);
    single_predicate(&ran, "a model with a joined column");
}
