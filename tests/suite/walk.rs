//! Walking every model forward and backward, for several page sizes, equals one full ORDER BY
//! scan written by hand: no duplicate, no gap, `None` cursors exactly at the ends.

use diesel::prelude::*;
use keyset_runtime::__testing::token;
use keyset_runtime::{Direction, Keyset, PageRequest, Paginate};
use keyset_tests::models::{
    ByTag, ByUniqueTitle, Membership, Newest, NewestCursor, NewestIdAsc, Post, TopScore,
};
use keyset_tests::schema::{memberships, posts};
use keyset_tests::seed;
use keyset_tests::walk::{self, cursors};

use super::db;
use crate::{connect, Conn};

const ROWS: i64 = 300;
const LIMITS: &[u32] = &[1, 2, 7, 50, 299, 300, 301, 1000];

fn seeded() -> Conn {
    db::seeded(ROWS)
}

/// Walks forward and backward at every page size and compares with `expected` (the oracle: the
/// model's rows in a hand-written ORDER BY).
fn check_walks<Q>(conn: &mut Conn, expected: Vec<Q::Model>, query: impl Fn() -> Q)
where
    Q: keyset_runtime::PageQuery<'static, Conn, Item = <Q as keyset_runtime::Paginate>::Model>,
    <Q::Model as Keyset>::Cursor: std::fmt::Debug + PartialEq,
{
    let expected = cursors(&expected);
    assert!(expected.len() > 1, "the oracle returned rows");
    for &limit in LIMITS {
        let forward = cursors(&walk::forward(conn, limit, &query));
        assert_eq!(forward, expected, "forward walk, limit {limit}");
        let backward = cursors(&walk::backward(conn, limit, &query));
        assert_eq!(backward, expected, "backward walk, limit {limit}");
    }
}

#[test]
fn one_key_primary_key_ascending() {
    let mut conn = seeded();
    let expected =
        posts::table.order(posts::id.asc()).select(Post::as_select()).load(&mut conn).unwrap();
    assert_eq!(expected.len(), ROWS as usize);
    check_walks(&mut conn, expected, || posts::table.select(Post::as_select()));
}

#[test]
fn two_keys_descending_with_ties() {
    let mut conn = seeded();
    let expected = posts::table
        .order((posts::created_at.desc(), posts::id.desc()))
        .select(Newest::as_select())
        .load(&mut conn)
        .unwrap();
    check_walks(&mut conn, expected, || posts::table.select(Newest::as_select()));
}

#[test]
fn two_keys_mixed_directions_renamed_column() {
    let mut conn = seeded();
    let expected = posts::table
        .order((posts::created_at.desc(), posts::id.asc()))
        .select(NewestIdAsc::as_select())
        .load(&mut conn)
        .unwrap();
    check_walks(&mut conn, expected, || posts::table.select(NewestIdAsc::as_select()));
}

#[test]
fn three_keys_mixed_directions() {
    let mut conn = seeded();
    let expected = posts::table
        .order((posts::score.asc(), posts::created_at.desc(), posts::id.asc()))
        .select(TopScore::as_select())
        .load(&mut conn)
        .unwrap();
    check_walks(&mut conn, expected, || posts::table.select(TopScore::as_select()));
}

#[test]
fn three_keys_descending_with_a_text_key() {
    let mut conn = seeded();
    let expected = posts::table
        .order((posts::score.desc(), posts::tag.desc(), posts::id.desc()))
        .select(ByTag::as_select())
        .load(&mut conn)
        .unwrap();
    check_walks(&mut conn, expected, || posts::table.select(ByTag::as_select()));
}

#[test]
fn composite_primary_key_tiebreaker() {
    let mut conn = seeded();
    let expected = memberships::table
        .order((
            memberships::joined_at.asc(),
            memberships::team_id.asc(),
            memberships::user_id.desc(),
        ))
        .select(Membership::as_select())
        .load(&mut conn)
        .unwrap();
    check_walks(&mut conn, expected, || memberships::table.select(Membership::as_select()));
}

#[test]
fn unique_column_tiebreaker() {
    let mut conn = seeded();
    let expected = posts::table
        .order(posts::title.asc())
        .select(ByUniqueTitle::as_select())
        .load(&mut conn)
        .unwrap();
    check_walks(&mut conn, expected, || posts::table.select(ByUniqueTitle::as_select()));
}

/// From any page, `prev_cursor` leads back to exactly the page before, and `next_cursor` from
/// there leads to the same page again.
#[test]
fn back_and_forth_returns_the_same_pages() {
    let mut conn = seeded();
    let query = || posts::table.select(TopScore::as_select());
    let mut pages = vec![walk::page(&mut conn, &query, &PageRequest::first(13))];
    while let Some(token) = pages.last().unwrap().next_cursor.clone() {
        pages.push(walk::page(&mut conn, &query, &PageRequest::after(token, 13)));
    }
    assert!(pages.len() > 10);
    for pair in pages.windows(2) {
        let back = walk::page(
            &mut conn,
            &query,
            &PageRequest::before(pair[1].prev_cursor.clone().unwrap(), 13),
        );
        assert_eq!(back.items, pair[0].items);
        let again =
            walk::page(&mut conn, &query, &PageRequest::after(back.next_cursor.unwrap(), 13));
        assert_eq!(again.items, pair[1].items);
    }
}

#[test]
fn empty_table_has_one_empty_page_without_cursors() {
    let mut conn = connect();
    for request in [PageRequest::first(5), PageRequest::last(5)] {
        let page = walk::page(&mut conn, &|| posts::table.select(Newest::as_select()), &request);
        assert!(page.items.is_empty());
        assert_eq!((page.next_cursor, page.prev_cursor), (None, None));
    }
}

/// Cursors are values, not positions: rows inserted before the cursor and the deletion of the
/// cursor row itself shift nothing.
#[test]
fn cursor_survives_inserts_and_deletion_of_its_row() {
    let mut conn = seeded();
    let query = || posts::table.select(Newest::as_select());
    let first = walk::page(&mut conn, &query, &PageRequest::first(10));
    let last_seen = first.items.last().unwrap().clone();
    let expected_next =
        walk::page(&mut conn, &query, &PageRequest::after(first.next_cursor.clone().unwrap(), 10));

    diesel::delete(posts::table.find(last_seen.id)).execute(&mut conn).unwrap();
    let mut newer = seed::post(10_000);
    newer.created_at = seed::timestamp(20);
    diesel::insert_into(posts::table).values(&newer).execute(&mut conn).unwrap();

    let next = walk::page(&mut conn, &query, &PageRequest::after(first.next_cursor.unwrap(), 10));
    assert_eq!(next.items, expected_next.items);
}

/// Every statement of a page, of every position, on one connection with page sizes changing
/// between pages: each page holds the rows its own size asks for. Where a backend writes the
/// `LIMIT` into the SQL (PostgreSQL), a statement cached for one size must never serve another.
#[test]
fn pages_of_different_sizes_get_their_own_statements() {
    let mut conn = seeded();
    let query = || posts::table.select(Newest::as_select());
    let expected = posts::table
        .order((posts::created_at.desc(), posts::id.desc()))
        .select(Newest::as_select())
        .load(&mut conn)
        .unwrap();
    let mut request = PageRequest::first(3);
    let mut seen = Vec::new();
    for (step, limit) in [5u32, 3, 8, 3, 5, 1, 8, 2].into_iter().cycle().take(24).enumerate() {
        let page = walk::page(&mut conn, &query, &request);
        let served = request.limit().unwrap() as usize;
        assert_eq!(page.items.len(), served, "step {step}: {request:?}");
        seen.extend(page.items);
        request = PageRequest::after(page.next_cursor.unwrap(), limit);
    }
    assert_eq!(cursors(&seen), cursors(&expected[..seen.len()]));
    // The other positions, alternating sizes too.
    for limit in [4u32, 6, 4] {
        assert_eq!(
            walk::page(&mut conn, &query, &PageRequest::last(limit)).items.len(),
            limit as usize
        );
        let numbered = PageRequest::page_number(3, limit);
        let page = walk::page(&mut conn, &query, &numbered);
        assert_eq!(
            cursors(&page.items),
            cursors(&expected[2 * limit as usize..3 * limit as usize])
        );
    }
}

/// A token holds its timestamp to the microsecond the backend stores, so the next page starts
/// exactly past its row.
#[test]
fn microsecond_timestamps_survive_a_walk_step() {
    let mut conn = db::seeded(50);
    let first = posts::table
        .select(Newest::as_select())
        .paginate(&PageRequest::first(3))
        .unwrap()
        .load_page(&mut conn)
        .unwrap();
    let token = first.next_cursor.unwrap();
    let cursor: NewestCursor =
        token::decode(Newest::FINGERPRINT, Direction::After, &token).unwrap();
    assert_eq!(cursor, first.items[2].cursor());
    assert_ne!(
        cursor.created_at.and_utc().timestamp_subsec_micros(),
        0,
        "the seed has sub-second timestamps"
    );
}
