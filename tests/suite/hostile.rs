//! Hostile input on a real database: key values that look like SQL travel as bound parameters
//! (stored, compared and returned verbatim, never executed), and a cursor, even one crafted to
//! point at another tenant's row, only moves the start of a page within the rows the query's
//! own filters allow.

use diesel::prelude::*;
use keyset_runtime::__testing::token;
use keyset_runtime::Direction;
use keyset_runtime::{Keyset, PageRequest};
use keyset_tests::models::{ByTag, ByUniqueTitle, ByUniqueTitleCursor, TopScore, TopScoreCursor};
use keyset_tests::order::plain;
use keyset_tests::schema::{authors, posts};
use keyset_tests::seed::{self, NewPost};
use keyset_tests::walk::{self, cursors};

use super::db;
use crate::Conn;

/// Strings that would change a statement if they were spliced into it, on one engine or another
/// (quotes of every kind, comments, statement separators, placeholders, LIKE wildcards,
/// backslash escapes). NUL is left out: PostgreSQL refuses it in text, as an error.
const HOSTILE: &[&str] = &[
    "x' OR 1=1; DROP TABLE posts; --",
    "'); DELETE FROM posts; --",
    "\" OR \"\"=\"",
    "\\' OR 1=1 -- ",
    "\\",
    "`posts`",
    "$1",
    "?",
    "%",
    "_",
    "*/ /*",
    "'; SELECT pg_sleep(10); --",
    "1; UPDATE posts SET score = 0",
];

pub(crate) fn hostile_rows() -> Vec<NewPost> {
    HOSTILE
        .iter()
        .enumerate()
        .map(|(i, text)| NewPost {
            tag: (*text).to_owned(),
            title: (*text).to_owned(),
            score: (i % 2) as i32,
            ..seed::post(1_000 + i as i64)
        })
        .collect()
}

fn count(conn: &mut Conn) -> (i64, i64) {
    let posts = posts::table.count().get_result(conn).expect("posts still exists");
    let authors = authors::table.count().get_result(conn).expect("authors still exists");
    (posts, authors)
}

#[test]
fn hostile_key_values_are_bound_never_spliced() {
    let mut conn = db::seeded(40);
    diesel::insert_into(posts::table).values(&hostile_rows()).execute(&mut conn).expect("insert");
    let before = count(&mut conn);

    // Walks over hostile text keys (whose tokens carry them) equal the hand-written order.
    let by_tag = posts::table
        .order((posts::score.desc(), posts::tag.desc(), posts::id.desc()))
        .select(ByTag::as_select())
        .load(&mut conn)
        .unwrap();
    for limit in [1, 3] {
        let query = || posts::table.select(ByTag::as_select());
        assert_eq!(
            cursors(&walk::forward(&mut conn, limit, query)),
            cursors(&by_tag),
            "limit {limit}"
        );
        assert_eq!(
            cursors(&walk::backward(&mut conn, limit, query)),
            cursors(&by_tag),
            "limit {limit}"
        );
    }

    // A token crafted with each hostile value pages exactly as a hand-written bound comparison.
    let query = || posts::table.select(ByUniqueTitle::as_select());
    for text in HOSTILE {
        let cursor = ByUniqueTitleCursor { title: (*text).to_owned() };
        let expected: Vec<ByUniqueTitle> = posts::table
            .filter(posts::title.gt(*text))
            .order(posts::title.asc())
            .limit(5)
            .select(ByUniqueTitle::as_select())
            .load(&mut conn)
            .unwrap();
        let after = token::encode(ByUniqueTitle::FINGERPRINT, Direction::After, &cursor).unwrap();
        let page = walk::page(&mut conn, &query, &PageRequest::after(after, 5));
        assert_eq!(page.items, expected, "after {text:?}");
        let before_token =
            token::encode(ByUniqueTitle::FINGERPRINT, Direction::Before, &cursor).unwrap();
        walk::page(&mut conn, &query, &PageRequest::before(before_token, 5));
    }
    assert_eq!(count(&mut conn), before, "no row or table was touched");
    let stored: Vec<String> = posts::table
        .filter(posts::id.ge(1_000))
        .order(posts::id.asc())
        .select(posts::tag)
        .load(&mut conn)
        .unwrap();
    assert_eq!(stored, HOSTILE, "stored and returned verbatim");
}

fn top_score_order(a: &TopScore, b: &TopScore) -> std::cmp::Ordering {
    plain(&a.score, &b.score, false)
        .then(plain(&a.created_at, &b.created_at, true))
        .then(plain(&a.id, &b.id, false))
}

/// A cursor crafted from another tenant's row (or from extreme values), sent after or before,
/// returns only the requesting tenant's rows, exactly those on that side of the cursor.
#[test]
fn a_crafted_cursor_never_crosses_into_another_tenant() {
    let mut conn = db::seeded(200);
    let tenant = |author: i64| {
        move || posts::table.filter(posts::author_id.eq(author)).select(TopScore::as_select())
    };
    let mut mine: Vec<TopScore> = tenant(1)().load(&mut conn).unwrap();
    mine.sort_by(top_score_order);
    let theirs: Vec<TopScore> = tenant(2)().load(&mut conn).unwrap();
    let extremes = [
        TopScoreCursor { score: i32::MIN, created_at: seed::timestamp(0), id: i64::MIN },
        TopScoreCursor { score: i32::MAX, created_at: seed::timestamp(0), id: i64::MAX },
    ];
    let crafted = theirs.iter().step_by(7).map(TopScore::cursor).chain(extremes);
    for cursor in crafted {
        let probe = TopScore {
            score: cursor.score,
            created_at: cursor.created_at,
            id: cursor.id,
            title: String::new(),
        };
        let split = mine.partition_point(|row| top_score_order(row, &probe).is_lt());
        for (direction, expected) in
            [(Direction::After, &mine[split..]), (Direction::Before, &mine[..split])]
        {
            let token = token::encode(TopScore::FINGERPRINT, direction, &cursor).unwrap();
            let request = match direction {
                Direction::After => PageRequest::after(token, 1_000),
                Direction::Before => PageRequest::before(token, 1_000),
            };
            let page = walk::page(&mut conn, &tenant(1), &request);
            assert_eq!(cursors(&page.items), cursors(expected), "{direction} {cursor:?}");
        }
    }
}

/// A query whose own filter is an OR stays within it: the keyset filter is ANDed with the whole
/// of it, never with its last branch.
#[test]
fn the_keyset_filter_is_anded_with_an_or_filter_as_a_whole() {
    let mut conn = db::seeded(200);
    let query = || {
        posts::table
            .filter(posts::author_id.eq(1))
            .or_filter(posts::author_id.eq(3))
            .select(TopScore::as_select())
    };
    let mut expected: Vec<TopScore> = query().load(&mut conn).unwrap();
    expected.sort_by(top_score_order);
    assert!(expected.len() > 20 && expected.len() < 200);
    assert_eq!(cursors(&walk::forward(&mut conn, 6, query)), cursors(&expected));
    assert_eq!(cursors(&walk::backward(&mut conn, 6, query)), cursors(&expected));
}
