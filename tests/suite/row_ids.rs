//! Pages at a row given by its primary key (`Paginated::at_row_id`, what `?around=42` runs):
//! in uniform and mixed orders of a filtered listing, the page at each sampled row's id is the
//! page `at_row` opens with the row in hand (its rows and its tokens), which is the sorted
//! listing's slice from the row, and runs as many statements, the row's values read inside
//! them; rows outside the listing and ids of no row are `RowNotListed`; a request with a
//! position of its own keeps it. In orders led by a nullable key, the rows of either region: as
//! many statements as `at_row`'s where both regions' first statements run as a union, one more
//! for the rows of the region tried second where they cannot (a join's selection), and one in
//! all for a query that runs once (boxed). Async alike, and in a feed (`among`).

use std::cmp::Ordering;

use std::sync::{Arc, Mutex};

use diesel::connection::{Instrumentation, InstrumentationEvent};
use diesel::prelude::*;
use keyset_runtime::{Error, Page, PageRequest, Paginate, RequestError};
use keyset_tests::models::{
    Author, FeedPost, FeedPostOrder, Newest, NewestIdAsc, RankAscNullsFirst, RankAscNullsLast,
    RankDescNullsFirst, RankDescNullsLast, TopScore,
};
use keyset_tests::schema::{authors, posts};
use keyset_tests::walk::cursors;

use super::asynchronous::{runtime, seeded_async};
use super::db;
use super::feeds::walks::feed_post_order;
use super::orders::DIRECTIONS;
use keyset_runtime::migration::Backend;

use super::orders_plan::backend;
use crate::Conn;

const ROWS: i64 = 120;

/// Runs `page` with the statements it runs recorded: its page, and how many it ran.
fn counted<T>(conn: &mut Conn, page: impl FnOnce(&mut Conn) -> T) -> (T, usize) {
    let log = Arc::new(Mutex::new(0));
    let recorder = Arc::clone(&log);
    conn.set_instrumentation(move |event: InstrumentationEvent<'_>| {
        if let InstrumentationEvent::StartQuery { .. } = event {
            *recorder.lock().unwrap() += 1;
        }
    });
    let page = page(conn);
    conn.set_instrumentation(None::<Box<dyn Instrumentation>>);
    let statements = *log.lock().unwrap();
    (page, statements)
}

/// For `$model`'s listing of author `$author`'s posts, sorted by `$cmp` in Rust: the page at
/// every third row's id, for limits 1 and 4, against `at_row` (rows, tokens, and statements
/// run: as many, or `$extra(row)` more) and the sorted slice, its tokens paging on both ways;
/// then the ids it refuses, and a request whose token keeps its page.
macro_rules! check {
    ($conn:expr, $model:ty, $author:expr, $cmp:expr) => {
        check!($conn, $model, $author, $cmp, |_: &$model| 0)
    };
    ($conn:expr, $model:ty, $author:expr, $cmp:expr, $extra:expr) => {{
        let conn: &mut Conn = $conn;
        let listing =
            || posts::table.filter(posts::author_id.eq($author)).select(<$model>::as_select());
        let mut rows: Vec<$model> = listing().load(conn).unwrap();
        rows.sort_by($cmp);
        let expected = cursors(&rows);
        for limit in [1, 4] {
            let first = PageRequest::first(limit);
            for (at, row) in rows.iter().enumerate().step_by(3) {
                let by_id = listing().paginate(&first).unwrap().at_row_id(row.id).unwrap();
                let (page, statements) = counted(conn, |conn| by_id.load_page(conn).unwrap());
                let held = listing().paginate(&first).unwrap().at_row(row);
                let (held, held_statements) = counted(conn, |conn| held.load_page(conn).unwrap());
                // The row's values read inside the statements, not by one of its own.
                let extra: usize = $extra(row);
                assert_eq!(statements, held_statements + extra, "at row {at}, limit {limit}");
                let end = (at + limit as usize).min(rows.len());
                assert_eq!(cursors(&page.items), expected[at..end], "at row {at}, limit {limit}");
                assert_eq!(page.items, held.items, "at row {at}");
                assert_eq!(page.prev_cursor, held.prev_cursor, "at row {at}");
                assert_eq!(page.next_cursor, held.next_cursor, "at row {at}");
                let before = PageRequest::before(page.prev_cursor.clone().unwrap(), limit);
                let prev = listing().paginate(&before).unwrap().load_page(conn).unwrap();
                let from = at.saturating_sub(limit as usize);
                assert_eq!(cursors(&prev.items), expected[from..at], "before row {at}");
                if let Some(next) = page.next_cursor.clone() {
                    let after = PageRequest::after(next, limit);
                    let next = listing().paginate(&after).unwrap().load_page(conn).unwrap();
                    let until = (end + limit as usize).min(rows.len());
                    assert_eq!(cursors(&next.items), expected[end..until], "after row {at}");
                }
            }
        }
        // Another author's post, and an id no post has.
        let others = posts::table.filter(posts::author_id.ne($author));
        let outside: $model = others.select(<$model>::as_select()).first(conn).unwrap();
        for id in [outside.id, ROWS + 1_000] {
            let page = listing().paginate(&PageRequest::first(4)).unwrap().at_row_id(id);
            let refused = page.unwrap().load_page(conn);
            assert!(
                matches!(refused, Err(Error::Request(RequestError::RowNotListed))),
                "id {id}: {:?}",
                refused.map(|page| cursors(&page.items))
            );
        }
        // A token keeps its page: the id applies to a first page only.
        let token = listing().paginate(&PageRequest::first(2)).unwrap().load_page(conn).unwrap();
        let after = PageRequest::after(token.next_cursor.unwrap(), 2);
        let kept = listing().paginate(&after).unwrap().at_row_id(rows[9].id).unwrap();
        assert_eq!(cursors(&kept.load_page(conn).unwrap().items), expected[2..4]);
    }};
}

#[test]
fn a_page_at_a_row_id_is_the_page_at_the_row_without_a_statement_of_its_own() {
    let mut conn = db::seeded(ROWS);
    check!(&mut conn, Newest, 3, |a, b| (b.created_at, b.id).cmp(&(a.created_at, a.id)));
    check!(&mut conn, NewestIdAsc, 2, |a, b| b.published.cmp(&a.published).then(a.id.cmp(&b.id)));
    check!(&mut conn, TopScore, 1, |a, b| {
        a.score.cmp(&b.score).then(b.created_at.cmp(&a.created_at)).then(a.id.cmp(&b.id))
    });
}

/// `a` before `b` in a nullable key's order: `desc` or not, NULLs `last` or first.
fn nullable(a: Option<i32>, b: Option<i32>, desc: bool, last: bool) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) if desc => b.cmp(&a),
        (Some(a), Some(b)) => a.cmp(&b),
        (None, None) => Ordering::Equal,
        (None, Some(_)) if last => Ordering::Greater,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => nullable(b, a, desc, last).reverse(),
    }
}

/// Led by a nullable key, in each direction and placement: the page at each sampled row's id
/// holds the rows of its region and the next, whether the row's value is NULL or not. On
/// PostgreSQL in as many statements as `at_row`'s: the first statements of both regions run as
/// one union, each guarded by the row's value. Elsewhere the values' statement runs first, and a
/// NULL row's page runs one more.
#[test]
fn a_page_at_a_row_id_in_an_order_led_by_a_nullable_key() {
    // Author 4's posts are the seed's rows with a NULL rank among others.
    let mut conn = db::seeded(ROWS);
    let united = backend() == Backend::Postgres;
    let extra = |rank: Option<i32>| usize::from(rank.is_none() && !united);
    check!(
        &mut conn,
        RankDescNullsLast,
        4,
        |a, b| nullable(a.rank, b.rank, true, true).then(b.id.cmp(&a.id)),
        |row: &RankDescNullsLast| extra(row.rank)
    );
    check!(
        &mut conn,
        RankDescNullsFirst,
        4,
        |a, b| nullable(a.rank, b.rank, true, false).then(a.id.cmp(&b.id)),
        |row: &RankDescNullsFirst| extra(row.rank)
    );
    check!(
        &mut conn,
        RankAscNullsLast,
        4,
        |a, b| nullable(a.rank, b.rank, false, true).then(a.id.cmp(&b.id)),
        |row: &RankAscNullsLast| extra(row.rank)
    );
    check!(
        &mut conn,
        RankAscNullsFirst,
        4,
        |a, b| nullable(a.rank, b.rank, false, false).then(b.id.cmp(&a.id)),
        |row: &RankAscNullsFirst| extra(row.rank)
    );
    // A NULL row the filters leave out (post 13's rank is NULL): refused in every placement,
    // whether its region's statement runs beside the values' or after them.
    macro_rules! filtered_out {
        ($($model:ty),*) => {$(
            let listing = posts::table.filter(posts::author_id.eq(4).and(posts::id.ne(13)));
            let page = listing.select(<$model>::as_select()).paginate(&PageRequest::first(3));
            let refused = page.unwrap().at_row_id(13).unwrap().load_page(&mut conn);
            let refused = refused.map(|page| cursors(&page.items));
            let not_listed = matches!(refused, Err(Error::Request(RequestError::RowNotListed)));
            assert!(not_listed, "{refused:?}");
        )*};
    }
    filtered_out!(RankDescNullsLast, RankDescNullsFirst, RankAscNullsLast, RankAscNullsFirst);
}

/// A query that selects more than the model cannot run the two regions as a union: the values'
/// statement runs first, and the NULLs' only where it finds nothing, one statement more than
/// `at_row` for a NULL row, whichever the placement.
#[test]
fn a_joined_page_at_a_row_id_in_a_nullable_order_tries_the_regions_in_turn() {
    let mut conn = db::seeded(ROWS);
    macro_rules! regions {
        ($model:ty) => {{
            let listing = || {
                posts::table
                    .inner_join(authors::table)
                    .filter(posts::author_id.eq(4))
                    .select((<$model>::as_select(), Author::as_select()))
            };
            let rows: Vec<($model, Author)> = listing().load(&mut conn).unwrap();
            for (row, _) in &rows {
                let request = PageRequest::first(3);
                let by_id = listing().paginate(&request).unwrap().at_row_id(row.id).unwrap();
                let (page, statements) = counted(&mut conn, |conn| by_id.load_page(conn).unwrap());
                let held = listing().paginate(&request).unwrap().at_row(row);
                let (held, held_statements) =
                    counted(&mut conn, |conn| held.load_page(conn).unwrap());
                let second = usize::from(row.rank.is_none());
                assert_eq!(statements, held_statements + second, "row {}", row.id);
                assert_eq!(page.items, held.items, "row {}", row.id);
                assert_eq!(page.prev_cursor, held.prev_cursor, "row {}", row.id);
                assert_eq!(page.next_cursor, held.next_cursor, "row {}", row.id);
            }
            let outside = listing().paginate(&PageRequest::first(3)).unwrap().at_row_id(1);
            let refused = outside.unwrap().load_page(&mut conn);
            assert!(matches!(refused, Err(Error::Request(RequestError::RowNotListed))));
        }};
    }
    regions!(RankDescNullsLast);
    regions!(RankAscNullsFirst);
}

/// A boxed query runs one statement: at a row's id in an order led by a nullable key it holds
/// both regions' predicates, each holding nothing where the row's value says it is wrong. Its
/// pages equal the plain query's, NULL rows and values alike.
#[test]
fn a_boxed_page_at_a_row_id_in_a_nullable_order_is_one_statement() {
    let mut conn = db::seeded(ROWS);
    let listing =
        || posts::table.filter(posts::author_id.eq(4)).select(RankDescNullsLast::as_select());
    let rows: Vec<RankDescNullsLast> = listing().load(&mut conn).unwrap();
    assert!(rows.iter().any(|row| row.rank.is_none()) && rows.iter().any(|row| row.rank.is_some()));
    for row in &rows {
        let request = PageRequest::first(4);
        let plain = listing().paginate(&request).unwrap().at_row_id(row.id).unwrap();
        let plain = plain.load_page(&mut conn).unwrap();
        let boxed = listing().into_boxed().paginate(&request).unwrap().at_row_id(row.id).unwrap();
        let (boxed, statements) = counted(&mut conn, |conn| boxed.load_page(conn).unwrap());
        assert_eq!(statements, 1, "row {}", row.id);
        assert_eq!(cursors(&boxed.items), cursors(&plain.items), "row {}", row.id);
        assert_eq!(boxed.prev_cursor, plain.prev_cursor);
        assert_eq!(boxed.next_cursor, plain.next_cursor);
    }
    let boxed = listing().into_boxed().paginate(&PageRequest::first(4)).unwrap();
    let refused = boxed.at_row_id(1).unwrap().load_page(&mut conn);
    assert!(matches!(refused, Err(Error::Request(RequestError::RowNotListed))), "{refused:?}");
}

/// The async path runs the same statements: the page at an id equals the blocking one, and a
/// row outside the listing is refused alike.
#[test]
fn a_page_at_a_row_id_loads_alike_async() {
    let mut conn = db::seeded(ROWS);
    runtime().block_on(async {
        let mut async_conn = seeded_async(ROWS).await;
        let listing = || posts::table.filter(posts::author_id.eq(1)).select(TopScore::as_select());
        let rows: Vec<TopScore> = listing().load(&mut conn).unwrap();
        for row in rows.iter().step_by(4) {
            let request = PageRequest::first(3);
            let blocking = listing().paginate(&request).unwrap().at_row_id(row.id).unwrap();
            let blocking = blocking.load_page(&mut conn).unwrap();
            let awaited = listing().paginate(&request).unwrap().at_row_id(row.id).unwrap();
            let awaited = awaited.load_page_async(&mut async_conn).await.unwrap();
            assert_eq!(cursors(&awaited.items), cursors(&blocking.items), "row {}", row.id);
            assert_eq!(awaited.prev_cursor, blocking.prev_cursor);
            assert_eq!(awaited.next_cursor, blocking.next_cursor);
        }
        let outside = listing().paginate(&PageRequest::first(3)).unwrap().at_row_id(2).unwrap();
        let refused = outside.load_page_async(&mut async_conn).await;
        assert!(matches!(refused, Err(Error::Request(RequestError::RowNotListed))));
        // Led by a nullable key, where a NULL row's page runs the second region's statement.
        let listing = || posts::table.select(RankAscNullsFirst::as_select());
        for id in (1..=20).chain([ROWS + 1]) {
            let request = PageRequest::first(3);
            let blocking = listing().paginate(&request).unwrap().at_row_id(id).unwrap();
            let blocking = blocking.load_page(&mut conn).map(|page| cursors(&page.items));
            let awaited = listing().paginate(&request).unwrap().at_row_id(id).unwrap();
            let awaited = awaited.load_page_async(&mut async_conn).await;
            assert_eq!(
                format!("{:?}", awaited.map(|page| cursors(&page.items))),
                format!("{blocking:?}")
            );
        }
    });
}

/// A feed (`among`) opens at a row's id too, its statements per author reading the row's values:
/// each page is the plain listing's slice from the row, its `prev_cursor` pages back to the slice
/// before it, and a post of an author outside the set is `RowNotListed`.
#[test]
fn a_feed_opens_at_a_row_id() {
    let mut conn = db::seeded(ROWS);
    let authors = [2_i64, 5];
    let expected: Vec<i64> = posts::table
        .filter(posts::author_id.eq_any(authors))
        .order((posts::created_at.desc(), posts::id.desc()))
        .select(posts::id)
        .load(&mut conn)
        .unwrap();
    let feed = || posts::table.select(Newest::as_select()).among(posts::author_id, authors);
    let ids = |page: &Page<Newest>| page.items.iter().map(|post| post.id).collect::<Vec<_>>();
    let limit = 5;
    for at in (0..expected.len()).step_by(4) {
        let page = feed().paginate(&PageRequest::first(limit)).unwrap();
        let page = page.at_row_id(expected[at]).unwrap().load_page(&mut conn).unwrap();
        let end = (at + limit as usize).min(expected.len());
        assert_eq!(ids(&page), expected[at..end], "at row {at}");
        let before = PageRequest::before(page.prev_cursor.unwrap(), limit);
        let before = feed().paginate(&before).unwrap().load_page(&mut conn).unwrap();
        assert_eq!(ids(&before), expected[at.saturating_sub(limit as usize)..at], "before {at}");
    }
    let outside: i64 =
        posts::table.filter(posts::author_id.eq(1)).select(posts::id).first(&mut conn).unwrap();
    let page = feed().paginate(&PageRequest::first(limit)).unwrap().at_row_id(outside).unwrap();
    let refused = page.load_page(&mut conn);
    assert!(matches!(refused, Err(Error::Request(RequestError::RowNotListed))), "{refused:?}");
}

/// Named orders, the nullable one (`ranked`) included, as declared and reversed, in a feed: the
/// page at a row's id is the feed's sorted slice from the row.
#[test]
fn a_feed_in_a_named_order_opens_at_a_row_id() {
    let mut conn = db::seeded(ROWS);
    let authors = [3_i64, 4];
    let feed = || posts::table.select(FeedPost::as_select()).among(posts::author_id, authors);
    let listed = posts::table.filter(posts::author_id.eq_any(authors));
    let rows: Vec<FeedPost> = listed.select(FeedPost::as_select()).load(&mut conn).unwrap();
    let limit = 4;
    for order in FeedPostOrder::ALL {
        for dir in DIRECTIONS {
            let mut sorted = rows.clone();
            sorted.sort_by(|a, b| feed_post_order(order, dir, a, b));
            let ids = |posts: &[FeedPost]| posts.iter().map(|post| post.id).collect::<Vec<_>>();
            for at in (0..sorted.len()).step_by(5) {
                let page = feed().paginate_by(order, dir, &PageRequest::first(limit)).unwrap();
                let page = page.at_row_id(sorted[at].id).unwrap().load_page(&mut conn).unwrap();
                let end = (at + limit as usize).min(sorted.len());
                assert_eq!(ids(&page.items), ids(&sorted[at..end]), "{order:?} {dir:?} at {at}");
            }
        }
    }
}
