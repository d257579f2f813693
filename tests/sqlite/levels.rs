//! What a page after (or before) a cursor runs on SQLite for a model without nullable keys, or
//! with a nullable leading one among its values: one statement per tie level, innermost first,
//! only while the page is short (see `SeekDialect::SEEK_PER_TIE_LEVEL`), then the NULLs where they
//! follow; the single predicate for a boxed query, which cannot be run twice. Each page is
//! checked against the model's order too.

use std::sync::{Arc, Mutex};

use diesel::connection::{Instrumentation, InstrumentationEvent};
use diesel::prelude::*;
use keyset_runtime::{Keyset, Page, PageQuery, PageRequest, Paginate};
use keyset_tests::models::{Newest, TopScore};
use keyset_tests::schema::posts;

use crate::{suite::db, Conn};

/// Records the SQL of every statement the connection runs from now on.
fn record(conn: &mut Conn) -> Arc<Mutex<Vec<String>>> {
    let log = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&log);
    let recorder = move |event: InstrumentationEvent<'_>| {
        if let InstrumentationEvent::StartQuery { query, .. } = event {
            sink.lock().unwrap().push(query.to_string());
        }
    };
    conn.set_instrumentation(recorder);
    log
}

/// Stops recording.
fn stop(conn: &mut Conn) {
    conn.set_instrumentation(None::<Box<dyn Instrumentation>>);
}

/// The page of `limit` rows after (`forward`) or before row `at` of the model's order, and the
/// statements it ran, as `debug_query` shows them.
fn page_around<Q: PageQuery<'static, Conn, Item = <Q as keyset_runtime::Paginate>::Model>>(
    conn: &mut Conn,
    query: impl Fn() -> Q,
    at: usize,
    forward: bool,
    limit: u32,
) -> (Page<Q::Model>, Vec<String>) {
    // The token pointing at row `at`: the next cursor of the first `at + 1` rows, or the
    // previous cursor of the one-row page after the first `at` rows.
    let first = |conn: &mut Conn, rows: usize| {
        let request = PageRequest::first(rows as u32);
        query().paginate(&request).unwrap().max_limit(u32::MAX).load_page(conn).unwrap()
    };
    let request = if forward {
        PageRequest::after(first(conn, at + 1).next_cursor.unwrap(), limit)
    } else {
        let token = first(conn, at).next_cursor.unwrap();
        let page = query().paginate(&PageRequest::after(token, 1)).unwrap().load_page(conn);
        PageRequest::before(page.unwrap().prev_cursor.unwrap(), limit)
    };
    let log = record(conn);
    let page = query().paginate(&request).unwrap().load_page(conn).unwrap();
    stop(conn);
    let statements = log.lock().unwrap().clone();
    (page, statements)
}

/// A statement as `debug_query` shows it, without its bound values.
fn sql_only(statement: &str) -> String {
    statement.split(" -- binds:").next().unwrap().to_owned()
}

/// The WHERE clause and the rest of each statement, without its bound values.
fn wheres(statements: &[String]) -> Vec<String> {
    statements.iter().map(|sql| sql_only(sql).split(" WHERE ").nth(1).unwrap().to_owned()).collect()
}

/// The index of the last row of the tie group that row `at` belongs to, given each row's
/// leading key value in the model's order.
fn group_end<K: PartialEq>(keys: &[K], at: usize) -> usize {
    (at..keys.len()).take_while(|&i| keys[i] == keys[at]).last().unwrap()
}

const NEWEST_LEVEL_2: &str = "WHERE (`posts`.`created_at` = +? AND `posts`.`id` < +?) ORDER BY";
const NEWEST_LEVEL_1: &str = "WHERE (`posts`.`created_at` < +?) ORDER BY";

#[test]
fn a_page_inside_the_cursors_tie_group_is_one_statement_on_both_keys() {
    let mut conn = db::seeded(2_000);
    let query = || posts::table.select(Newest::as_select());
    let all = query().order(Newest::order_by()).load(&mut conn).unwrap();
    let leading: Vec<_> = all.iter().map(|row| row.created_at).collect();
    // 13 timestamps: about 150 rows per tie group; start ten rows into the second group.
    let at = group_end(&leading, 0) + 10;
    let (page, statements) = page_around(&mut conn, query, at, true, 20);
    assert_eq!(page.items, all[at + 1..at + 21]);
    assert_eq!(statements.len(), 1, "{statements:#?}");
    assert!(statements[0].contains(NEWEST_LEVEL_2), "{statements:#?}");
}

#[test]
fn a_page_across_tie_groups_runs_one_statement_per_level_innermost_first() {
    let mut conn = db::seeded(2_000);
    let query = || posts::table.select(Newest::as_select());
    let all = query().order(Newest::order_by()).load(&mut conn).unwrap();
    let leading: Vec<_> = all.iter().map(|row| row.created_at).collect();
    // Five rows before the end of the second tie group: five from level 2, the rest from level 1.
    let at = group_end(&leading, group_end(&leading, 0) + 1) - 5;
    let (page, statements) = page_around(&mut conn, query, at, true, 20);
    assert_eq!(page.items, all[at + 1..at + 21]);
    assert_eq!(statements.len(), 2, "{statements:#?}");
    assert!(statements[0].contains(NEWEST_LEVEL_2), "{statements:#?}");
    assert!(statements[1].contains(NEWEST_LEVEL_1), "{statements:#?}");
    // Each level asks only for the rows still missing: 21 (the page and the probe row) - 5.
    assert!(statements[1].ends_with(", 16]"), "{statements:#?}");

    // Backward from five rows after the start of a tie group: the mirror image.
    let at = group_end(&leading, 0) + 5;
    let (page, statements) = page_around(&mut conn, query, at, false, 20);
    assert_eq!(page.items, all[at - 20..at]);
    assert_eq!(statements.len(), 2, "{statements:#?}");
    assert!(
        statements[0].contains("WHERE (`posts`.`created_at` = +? AND `posts`.`id` > +?) ORDER BY"),
        "{statements:#?}"
    );
    assert!(
        statements[1].contains("WHERE (`posts`.`created_at` > +?) ORDER BY"),
        "{statements:#?}"
    );
}

#[test]
fn three_keys_take_at_most_three_statements() {
    let mut conn = db::seeded(2_000);
    let query = || posts::table.select(TopScore::as_select());
    let all = query().order(TopScore::order_by()).load(&mut conn).unwrap();
    let scores: Vec<_> = all.iter().map(|row| row.score).collect();
    // Two rows before the end of the first score: its last created_at group holds them (level
    // 3), no later created_at shares the score (level 2 is empty), and the next score fills the
    // page (level 1).
    let at = group_end(&scores, 0) - 2;
    assert_eq!(all[at].created_at, all[at + 2].created_at, "the seed's ties changed");
    let (page, statements) = page_around(&mut conn, query, at, true, 20);
    assert_eq!(page.items, all[at + 1..at + 21]);
    assert_eq!(
        wheres(&statements),
        [
            "(`posts`.`score` = +? AND `posts`.`created_at` = +? AND `posts`.`id` > +?) ORDER BY \
             `posts`.`score` ASC, `posts`.`created_at` DESC, `posts`.`id` ASC LIMIT +?",
            "(`posts`.`score` = +? AND `posts`.`created_at` < +?) ORDER BY `posts`.`score` ASC, \
             `posts`.`created_at` DESC, `posts`.`id` ASC LIMIT +?",
            "(`posts`.`score` > +?) ORDER BY `posts`.`score` ASC, `posts`.`created_at` DESC, \
             `posts`.`id` ASC LIMIT +?",
        ]
    );
}

/// A boxed query cannot be run twice: its page is the single predicate, one statement.
#[test]
fn a_boxed_query_is_one_statement_with_the_single_predicate() {
    let mut conn = db::seeded(2_000);
    let all = posts::table.select(Newest::as_select()).order(Newest::order_by()).load(&mut conn);
    let all = all.unwrap();
    let leading: Vec<_> = all.iter().map(|row| row.created_at).collect();
    let at = group_end(&leading, 0) - 5;
    let boxed = || posts::table.select(Newest::as_select()).into_boxed();
    let (page, statements) = page_around(&mut conn, boxed, at, true, 20);
    assert_eq!(page.items, all[at + 1..at + 21]);
    assert_eq!(statements.len(), 1, "{statements:#?}");
    assert!(
        statements[0].contains(
            "WHERE (`posts`.`created_at` <= +? AND (`posts`.`created_at` < +? OR \
             (`posts`.`created_at` = +? AND `posts`.`id` < +?))) ORDER BY"
        ),
        "{statements:#?}"
    );
}

/// A nullable key behind a non-nullable one gets no tie levels (`x = NULL` is never true, and its
/// NULLs lie inside the leading key's tie groups): a page is one statement with the single
/// predicate.
#[test]
fn a_nullable_key_keeps_the_single_predicate() {
    use keyset_tests::models::ScoreDue;

    let mut conn = db::seeded(2_000);
    let query = || posts::table.select(ScoreDue::as_select());
    let all = query().order(ScoreDue::order_by()).load(&mut conn).unwrap();
    let scores: Vec<_> = all.iter().map(|row| row.score).collect();
    let at = group_end(&scores, 0) - 5;
    let (page, statements) = page_around(&mut conn, query, at, true, 20);
    assert_eq!(page.items, all[at + 1..at + 21]);
    assert_eq!(statements.len(), 1, "{statements:#?}");
    assert!(statements[0].contains("WHERE (`posts`.`score` <= +? AND (`posts`.`score` < +? OR"));
}

/// A nullable leading key's values are walked by tie level, as non-nullable keys are (neither
/// `rank = +?` nor `rank < +?` matches a NULL), and its NULLs follow them as a region of their own.
#[test]
fn a_nullable_leading_keys_values_take_tie_levels_then_its_nulls() {
    use keyset_tests::models::RankDescNullsLast;

    let mut conn = db::seeded(2_000);
    let query = || posts::table.select(RankDescNullsLast::as_select());
    let all = query().order(RankDescNullsLast::order_by()).load(&mut conn).unwrap();
    let ranks: Vec<_> = all.iter().map(|row| row.rank).collect();
    let order = "ORDER BY `posts`.`rank` DESC, `posts`.`id` DESC LIMIT +?";

    // Inside the first value's tie group: one statement, exact on both keys.
    let at = 10;
    let (page, statements) = page_around(&mut conn, query, at, true, 20);
    assert_eq!(page.items, all[at + 1..at + 21]);
    assert_eq!(
        wheres(&statements),
        [format!("(`posts`.`rank` = +? AND `posts`.`id` < +?) {order}")]
    );

    // Five rows before the last value's end: those five, no smaller value, then the NULLs.
    let last_value = ranks.iter().rposition(Option::is_some).unwrap();
    let at = last_value - 5;
    let (page, statements) = page_around(&mut conn, query, at, true, 20);
    assert_eq!(page.items, all[at + 1..at + 21]);
    assert!(page.items[5].rank.is_none() && page.items[4].rank.is_some(), "the seed changed");
    assert_eq!(
        wheres(&statements),
        [
            format!("(`posts`.`rank` = +? AND `posts`.`id` < +?) {order}"),
            format!("(`posts`.`rank` < +?) {order}"),
            format!("(`posts`.`rank` IS NULL) {order}"),
        ]
    );
    // Each statement asks only for the rows still missing.
    assert!(statements[2].ends_with("binds: [16]"), "{statements:#?}");

    // Backward from five rows into the second value: the values before it, by level; no NULLs.
    let at = group_end(&ranks, 0) + 5;
    let (page, statements) = page_around(&mut conn, query, at, false, 20);
    assert_eq!(page.items, all[at - 20..at]);
    let backward = "ORDER BY `posts`.`rank` ASC, `posts`.`id` ASC LIMIT +?";
    assert_eq!(
        wheres(&statements),
        [
            format!("(`posts`.`rank` = +? AND `posts`.`id` > +?) {backward}"),
            format!("(`posts`.`rank` > +?) {backward}"),
        ]
    );

    // After a NULL cursor: the NULLs' region alone, one statement, as before.
    let at = last_value + 10;
    let (page, statements) = page_around(&mut conn, query, at, true, 20);
    assert_eq!(page.items, all[at + 1..at + 21]);
    assert_eq!(
        wheres(&statements),
        [format!("(((`posts`.`rank` IS NULL AND `posts`.`id` < +?))) {order}")]
    );
}

/// Every value a page binds is written `+?`, the cursor's, the `LIMIT`'s and a page number's
/// `OFFSET`: SQLite's planner reads a bare `?` it plans with and then re-prepares the cached
/// statement whenever the value is bound again, on every page (see
/// `SeekDialect::OPAQUE_BINDS`). The user's own filter keeps its `?`.
#[test]
fn every_value_a_page_binds_is_hidden_from_the_planner() {
    let mut conn = db::seeded(2_000);
    let query = || posts::table.select(Newest::as_select());
    let first = query().paginate(&PageRequest::first(20)).unwrap().load_page(&mut conn).unwrap();
    let after = PageRequest::after(first.next_cursor.unwrap(), 20);
    let second = query().paginate(&after).unwrap().load_page(&mut conn).unwrap();
    let requests = [
        PageRequest::first(20),
        PageRequest::last(20),
        PageRequest::page_number(3, 20),
        after,
        PageRequest::before(second.prev_cursor.unwrap(), 20),
    ];
    let log = record(&mut conn);
    for request in &requests {
        let query = query().filter(posts::score.ne(-1));
        query.clone().paginate(request).unwrap().load_page(&mut conn).unwrap();
        query.into_boxed().paginate(request).unwrap().load_page(&mut conn).unwrap();
    }
    stop(&mut conn);
    let statements = log.lock().unwrap().clone();
    assert!(statements.len() >= 2 * requests.len(), "{statements:#?}");
    for statement in &statements {
        let sql = sql_only(statement);
        let (user, page) = sql.split_once("`posts`.`score` != ?").expect("the user's filter");
        assert!(!user.contains('?'), "{statement}");
        let bare = page.match_indices('?').filter(|&(at, _)| !page[..at].ends_with('+'));
        assert_eq!(bare.count(), 0, "a value the planner reads: {statement}");
        assert!(page.contains("LIMIT +?"), "{statement}");
    }
    assert!(statements.iter().any(|s| s.contains("OFFSET +?")), "{statements:#?}");
}
