//! The client chooses a page's limit, not how many prepared statements a connection keeps: a
//! client asking for every page size from 1 to 100, in every position, in a uniform, a mixed and
//! a nullable order, leaves at most eight prepared statements per statement shape on its
//! connection (the common page sizes written literally, every other size bound:
//! `sql/limit.rs`). The backend's memory before and after is printed (`--nocapture`).

use std::collections::BTreeMap;

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use keyset_runtime::{PageQuery, PageRequest};
use keyset_tests::models::{Newest, RankDescNullsLast, TopScore};
use keyset_tests::schema::posts;

use crate::suite::db;

#[derive(QueryableByName)]
struct Statement {
    #[diesel(sql_type = Text)]
    statement: String,
}

#[derive(QueryableByName)]
struct Bytes {
    #[diesel(sql_type = BigInt)]
    bytes: i64,
}

/// The statement with its limits, literal or bound, as `LIMIT _`, and its parameters unnumbered
/// (a bound limit shifts the numbers of those after it): its shape.
fn shape(statement: &str) -> String {
    let mut parts = statement.split(" LIMIT ");
    let mut shape = parts.next().unwrap_or_default().to_owned();
    for part in parts {
        let end = part.find(|c: char| !(c.is_ascii_digit() || c == '$')).unwrap_or(part.len());
        shape.push_str(" LIMIT _");
        shape.push_str(&part[end..]);
    }
    let mut unnumbered = String::with_capacity(shape.len());
    let mut chars = shape.chars().peekable();
    while let Some(c) = chars.next() {
        unnumbered.push(c);
        if c == '$' {
            while chars.next_if(char::is_ascii_digit).is_some() {}
        }
    }
    unnumbered
}

/// The connection's prepared statements of pages over `posts`, counted per shape.
fn shapes(conn: &mut PgConnection) -> BTreeMap<String, usize> {
    let statements: Vec<Statement> = diesel::sql_query(
        "SELECT statement FROM pg_prepared_statements WHERE statement LIKE '%FROM \"posts\"%'",
    )
    .load(conn)
    .unwrap();
    let mut shapes = BTreeMap::new();
    for Statement { statement } in statements {
        *shapes.entry(shape(&statement)).or_insert(0) += 1;
    }
    shapes
}

fn backend_bytes(conn: &mut PgConnection) -> i64 {
    diesel::sql_query("SELECT sum(total_bytes)::bigint AS bytes FROM pg_backend_memory_contexts")
        .get_result::<Bytes>(conn)
        .unwrap()
        .bytes
}

/// The first, last, next and previous page of `limit` rows.
fn every_position<Q: PageQuery<'static, PgConnection>>(
    conn: &mut PgConnection,
    limit: u32,
    query: impl Fn() -> Q,
) {
    let first = query().paginate(&PageRequest::first(limit)).unwrap().load_page(conn).unwrap();
    query().paginate(&PageRequest::last(limit)).unwrap().load_page(conn).unwrap();
    let next = PageRequest::after(first.next_cursor.expect("a second page"), limit);
    let second = query().paginate(&next).unwrap().load_page(conn).unwrap();
    let back = PageRequest::before(second.prev_cursor.expect("a first page"), limit);
    query().paginate(&back).unwrap().load_page(conn).unwrap();
}

#[test]
fn every_page_size_makes_at_most_eight_statements_per_shape() {
    let mut conn = db::seeded(300);
    let before = backend_bytes(&mut conn);
    for limit in 1..=100 {
        every_position(&mut conn, limit, || posts::table.select(Newest::as_select()));
        every_position(&mut conn, limit, || posts::table.select(TopScore::as_select()));
        every_position(&mut conn, limit, || posts::table.select(RankDescNullsLast::as_select()));
    }
    let after = backend_bytes(&mut conn);
    let shapes = shapes(&mut conn);
    let statements: usize = shapes.values().sum();
    eprintln!(
        "every page size 1..=100: {statements} prepared statements in {} shapes; backend memory \
         {before} -> {after} bytes",
        shapes.len()
    );
    assert!(shapes.len() >= 8, "the walk covered the statement shapes: {shapes:#?}");
    for (shape, count) in &shapes {
        assert!(*count <= 8, "{count} statements of one shape: {shape}");
    }
}

#[test]
fn shapes_differ_only_in_their_limits() {
    assert_eq!(
        shape("SELECT 1 FROM \"posts\" LIMIT 21) UNION ALL (SELECT 2 LIMIT $3) LIMIT 21"),
        "SELECT 1 FROM \"posts\" LIMIT _) UNION ALL (SELECT 2 LIMIT _) LIMIT _"
    );
    assert_eq!(shape("WHERE a < $1 LIMIT $2 OFFSET $3"), "WHERE a < $ LIMIT _ OFFSET $");
}
