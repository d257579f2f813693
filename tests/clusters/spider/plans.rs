//! What each data node receives for a page through the head node, read from its general log
//! (`mysql.general_log`), and what it reads for it (its handler counters).

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use keyset_runtime::{PageRequest, Paginate};
use keyset_tests::models::story_orders::New as OnePredicateNew;
use keyset_tests::schema::stories;

use super::{fixture, nodes};
use crate::listing::{orders_both_ways, Layout, RemoteStory, RemoteStoryOrder, LAYOUTS, PLAN_ROWS};
use crate::walks::deep_requests;

#[derive(QueryableByName)]
struct Logged {
    #[diesel(sql_type = Text)]
    statement: String,
}

/// The statements on `stories` each data node of `layout` received while `page` ran.
fn sent_to_nodes(layout: Layout, page: impl FnOnce()) -> Vec<Vec<String>> {
    let mut nodes = nodes(layout);
    for node in &mut nodes {
        diesel::sql_query("TRUNCATE TABLE mysql.general_log").execute(node).unwrap();
    }
    page();
    nodes
        .iter_mut()
        .map(|node| {
            diesel::sql_query(
                "SELECT CONVERT(argument USING utf8mb4) AS statement FROM mysql.general_log \
                 WHERE command_type = 'Query' AND argument LIKE '%select%`stories`%' \
                 AND argument NOT LIKE '%general_log%'",
            )
            .load::<Logged>(node)
            .unwrap()
            .into_iter()
            .map(|logged| logged.statement)
            .collect()
        })
        .collect()
}

/// What a data node does not get of a page's seek: a statement without `where` (no seek),
/// `order by` or `limit` (every row it finds, in no order).
fn not_sent(statements: &[String]) -> Vec<String> {
    statements
        .iter()
        .filter(|sql| {
            !(sql.contains(" where ") && sql.contains(" order by ") && sql.contains(" limit "))
        })
        .map(|sql| format!("no seek, order or limit: {sql}"))
        .collect()
}

#[test]
fn every_data_node_receives_the_cursor_predicate_the_order_and_the_limit() {
    for layout in LAYOUTS {
        let (_guard, mut conn) = fixture(layout, PLAN_ROWS);
        for (order, dir, _) in orders_both_ways() {
            // Within the first tie group, and among `due`'s NULLs (about the last 1,450).
            for depth in [150, 12_500] {
                for (side, request) in ["after", "before"].into_iter().zip(deep_requests(
                    &mut conn,
                    (order, dir),
                    depth,
                )) {
                    let label = format!("{layout:?} {order} {dir}, {side} row {depth}");
                    let sent = sent_to_nodes(layout, || {
                        let page = stories::table
                            .select(RemoteStory::as_select())
                            .paginate_by(order, Some(dir), &request)
                            .unwrap()
                            .load_page(&mut conn)
                            .unwrap();
                        assert_eq!(page.items.len(), 20, "{label}");
                    });
                    assert!(
                        sent.iter().any(|node| !node.is_empty()),
                        "{label}: no node got a statement"
                    );
                    for (node, statements) in sent.iter().enumerate() {
                        let missing = not_sent(statements);
                        assert!(missing.is_empty(), "{label}, node {}: {missing:#?}", node + 1);
                    }
                }
            }
        }
    }
}

#[derive(QueryableByName)]
struct Reads {
    #[diesel(sql_type = BigInt)]
    entries: i64,
}

/// The index entries a data node has read so far (`Handler_read_key`, `_next`, `_prev`).
fn index_reads(node: &mut MysqlConnection) -> i64 {
    diesel::sql_query(
        "SELECT CAST(SUM(VARIABLE_VALUE) AS SIGNED) AS entries FROM information_schema.GLOBAL_STATUS \
         WHERE VARIABLE_NAME IN ('HANDLER_READ_KEY', 'HANDLER_READ_NEXT', 'HANDLER_READ_PREV')",
    )
    .get_result::<Reads>(node)
    .unwrap()
    .entries
}

/// Spider sends each data node the page's `LIMIT`: a page of 20 deep in the table reads about
/// the page from each, per tie level, whatever the depth. Not yet among a nullable key's NULLs
/// (the shards guide): the head drops the disjunct that makes MariaDB seek them as a range
/// (`published_at < NULL`, always false), and each data node reads the NULLs before the cursor
/// as MariaDB's own tables did before it; measured, and printed here.
#[test]
fn each_data_node_reads_about_a_page() {
    let (_guard, mut conn) = fixture(Layout::Hashed, PLAN_ROWS);
    let mut nodes = nodes(Layout::Hashed);
    for (order, dir, _) in orders_both_ways() {
        for depth in [150, 6_000, 12_500] {
            let [after, _] = deep_requests(&mut conn, (order, dir), depth);
            let before: Vec<i64> = nodes.iter_mut().map(index_reads).collect();
            let page = stories::table
                .select(RemoteStory::as_select())
                .paginate_by(order, Some(dir), &after)
                .unwrap()
                .load_page(&mut conn)
                .unwrap();
            let read: Vec<i64> = nodes
                .iter_mut()
                .zip(&before)
                .map(|(node, before)| index_reads(node) - before)
                .collect();
            let among_nulls = page.items.iter().all(|row| row.published_at.is_none())
                && order == RemoteStoryOrder::Due;
            println!(
                "{order} {dir}, after row {depth}: index entries read per data node {read:?}{}",
                if among_nulls { " (among the NULLs)" } else { "" }
            );
            if among_nulls {
                continue;
            }
            for (node, read) in read.iter().enumerate() {
                // Two tie levels of a page and its probe each, and the entries that end them.
                assert!(
                    *read <= 2 * 22 + 2,
                    "{order} {dir} after row {depth}: node {} read {read}",
                    node + 1
                );
            }
        }
    }
}

/// Why `#[keyset(spider)]`: `new` without it (`story_orders::New`) seeks past a cursor with one
/// predicate, two ranges of the index, which Spider 10.11 sends a data node as one statement
/// per range (a `UNION ALL` of them, or one after the other with `spider_multi_split_read = 0`),
/// each with the whole predicate rather than its range's bounds, so the first range's rows come
/// back again with the second's. keyset fails such a page rather than serve a row twice.
#[test]
fn one_predicate_of_two_ranges_gets_rows_twice_through_spider() {
    let (_guard, mut conn) = fixture(Layout::Hashed, PLAN_ROWS);
    for split_read in [100, 0] {
        let set = format!("SET SESSION spider_multi_split_read = {split_read}");
        diesel::sql_query(set).execute(&mut conn).unwrap();
        // Past a row whose tie group has fewer rows before it than the page: both ranges.
        let first = stories::table
            .select(OnePredicateNew::as_select())
            .paginate(&PageRequest::first(995))
            .unwrap()
            .max_limit(995)
            .load_page(&mut conn)
            .unwrap();
        let after = PageRequest::after(first.next_cursor.expect("a deep page"), 20);
        let page = stories::table
            .select(OnePredicateNew::as_select())
            .paginate(&after)
            .unwrap()
            .load_page(&mut conn);
        assert!(
            matches!(page, Err(keyset_runtime::Error::RepeatedKeys { .. })),
            "spider_multi_split_read = {split_read}: {:?}",
            page.map(|page| page.items.iter().map(|row| row.id).collect::<Vec<_>>())
        );
    }
}
