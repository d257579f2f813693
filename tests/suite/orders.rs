//! Named sort orders chosen at run time (`#[keyset(order(..))]`, `paginate_by`): property tests
//! over every order of [`Story`] in every direction a client can ask for, on the sync and the
//! async path. Generated tables (ties in every key, NULLs in the nullable one, `i64` extremes),
//! random page sizes: a walk forward to the end and back to the start with the pages' tokens
//! reads every row exactly once, in the order an oracle sorts them in Rust from the order's
//! definition (directions, NULL placement, and the reversal a direction other than the first
//! key's asks for).
//!
//! Cases per test: `PROPTEST_CASES`, else a quarter of the suite's [`crate::PROPERTY_CASES`]
//! (each case walks 18 orders and directions).

use std::cell::RefCell;
use std::cmp::Ordering;

use chrono::{DateTime, NaiveDateTime};
use diesel::prelude::*;
use keyset_runtime::{
    AsyncPageQuery, Error, Keyset, Page, PageQuery, PageRequest, Paginate, SortDirection,
};
use keyset_tests::models::{Story, StoryOrder};
use keyset_tests::order::{key, plain};
use keyset_tests::schema::stories;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

use crate::{connect, connect_async, AsyncConn, Conn};

/// Rows per generated table.
const MAX_ROWS: usize = 30;

/// What a client can send with an order: no direction (as declared), or either by name.
pub(crate) const DIRECTIONS: [Option<SortDirection>; 3] =
    [None, Some(SortDirection::Asc), Some(SortDirection::Desc)];

/// A sort key of [`Story`], as the oracle reads it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Field {
    CreatedAt,
    Score,
    Title,
    PublishedAt,
    Id,
}

/// One key of an order: its column, descending, and (nullable keys only) NULLs first.
pub(crate) type OracleKey = (Field, bool, bool);

/// Each order as `tests/support/models.rs` declares it, written out again for the oracle.
pub(crate) fn definition(order: StoryOrder) -> &'static [OracleKey] {
    use Field::*;
    match order {
        StoryOrder::New => &[(CreatedAt, true, false), (Id, true, false)],
        StoryOrder::Top => &[(Score, true, false), (CreatedAt, true, false), (Id, true, false)],
        StoryOrder::Title => &[(Title, false, false), (Id, false, false)],
        StoryOrder::Due => &[(PublishedAt, false, false), (Id, false, false)],
        StoryOrder::Mixed => &[(Score, false, false), (CreatedAt, true, false), (Id, false, false)],
        StoryOrder::Old => &[(CreatedAt, false, false), (Id, false, false)],
    }
}

/// The direction of `order`'s first key, as declared.
fn declared(order: StoryOrder) -> SortDirection {
    if definition(order)[0].1 {
        SortDirection::Desc
    } else {
        SortDirection::Asc
    }
}

/// Whether `dir` asks for `order` reversed: a direction other than its first key's.
pub(crate) fn reversed(order: StoryOrder, dir: Option<SortDirection>) -> bool {
    dir.is_some_and(|dir| dir != declared(order))
}

/// The oracle: `a` against `b` in `order`, reversed (every direction and NULL placement flipped)
/// when `dir` asks for it.
fn compare(order: StoryOrder, dir: Option<SortDirection>, a: &Story, b: &Story) -> Ordering {
    let flip = reversed(order, dir);
    definition(order).iter().fold(Ordering::Equal, |so_far, &(field, desc, nulls_first)| {
        let (desc, nulls_first) = (desc != flip, nulls_first != flip);
        so_far.then_with(|| match field {
            Field::CreatedAt => plain(&a.created_at, &b.created_at, desc),
            Field::Score => plain(&a.score, &b.score, desc),
            Field::Title => plain(&a.title, &b.title, desc),
            Field::PublishedAt => key(&a.published_at, &b.published_at, desc, nulls_first),
            Field::Id => plain(&a.id, &b.id, desc),
        })
    })
}

/// The label a token of `order` in `dir` names it by in errors: `top desc`.
pub(crate) fn label(order: StoryOrder, dir: Option<SortDirection>) -> String {
    format!("{order} {}", dir.unwrap_or(declared(order)))
}

#[test]
fn the_orders_are_declared_as_the_oracle_reads_them() {
    assert_eq!(
        StoryOrder::ALL.map(StoryOrder::name),
        ["new", "top", "title", "due", "mixed", "old"]
    );
    for order in StoryOrder::ALL {
        assert_eq!(order.direction(), declared(order), "{order}");
        assert_eq!(order.to_string().parse::<StoryOrder>(), Ok(order));
    }
    // Without field attributes, `paginate` pages in the first order, as declared.
    assert_eq!(StoryOrder::default(), StoryOrder::New);
    assert_eq!(Story::SORT_ORDER, "stories: created_at DESC, id DESC");
}

fn config() -> Config {
    let mut config = Config::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = (crate::PROPERTY_CASES / 4).max(16);
    }
    config.failure_persistence = None;
    config
}

/// A story, before it is inserted.
#[derive(Insertable, Debug, Clone)]
#[diesel(table_name = stories)]
pub(crate) struct NewStory {
    pub id: i64,
    pub created_at: NaiveDateTime,
    pub score: i32,
    pub title: String,
    pub published_at: Option<NaiveDateTime>,
}

fn timestamp() -> impl Strategy<Value = NaiveDateTime> {
    let at = |micros: i64| DateTime::from_timestamp_micros(micros).expect("in range").naive_utc();
    let (first, last) = crate::TIMESTAMP_MICROS;
    prop_oneof![
        // Three seconds, two microseconds apart within each: heavy ties, and ties broken by 1 µs.
        8 => (0..3i64, 0..2i64).prop_map(move |(s, us)| at(1_700_000_000_000_000 + s * 1_000_000 + us)),
        1 => Just(at(first)),
        1 => Just(at(last)),
    ]
}

fn story() -> impl Strategy<Value = NewStory> {
    let id = prop_oneof![
        1 => Just(i64::MIN),
        1 => Just(i64::MAX),
        8 => -40..40i64,
        1 => any::<i64>(),
    ];
    // Lower-case ASCII: every engine's collation orders (and ties) it as Rust does.
    let title = prop::sample::select(&["", "a", "ab", "b", "ba", "z"][..]);
    let score = prop_oneof![6 => -1..2i32, 1 => Just(i32::MIN), 1 => Just(i32::MAX)];
    (id, timestamp(), score, title, prop::option::weighted(0.7, timestamp())).prop_map(
        |(id, created_at, score, title, published_at)| NewStory {
            id,
            created_at,
            score,
            title: title.to_owned(),
            published_at,
        },
    )
}

/// A table of stories with distinct ids.
pub(crate) fn table() -> impl Strategy<Value = Vec<NewStory>> {
    prop::collection::vec(story(), 0..=MAX_ROWS).prop_map(|mut rows| {
        rows.sort_by_key(|row| row.id);
        rows.dedup_by_key(|row| row.id);
        rows
    })
}

/// A page size for each order and direction: small ones cross many boundaries, large ones hold
/// the whole table.
fn limits() -> impl Strategy<Value = Vec<u32>> {
    let limit = prop_oneof![3 => 1..=4u32, 1 => 1..=(MAX_ROWS as u32 + 3)];
    prop::collection::vec(limit, StoryOrder::ALL.len() * DIRECTIONS.len())
}

/// Replaces the stories with `rows`.
pub(crate) fn fill(conn: &mut Conn, rows: &[NewStory]) {
    diesel::delete(stories::table).execute(conn).expect("empty stories");
    if !rows.is_empty() {
        diesel::insert_into(stories::table).values(rows).execute(conn).expect("insert stories");
    }
}

/// Every story, unordered.
fn all(conn: &mut Conn) -> Vec<Story> {
    stories::table.select(Story::as_select()).load(conn).expect("stories load")
}

/// The page `request` asks for in `order` and `dir`, through the bound a generic helper names.
fn load<Q>(
    conn: &mut Conn,
    query: Q,
    (order, dir): (StoryOrder, Option<SortDirection>),
    request: &PageRequest,
) -> Result<Page<Story>, Error>
where
    Q: Paginate<Model = Story, Item = Story> + PageQuery<'static, Conn, StoryOrder>,
{
    query.paginate_by(order, dir, request)?.load_page(conn)
}

/// [`load`] on the async path.
async fn load_async<Q>(
    conn: &mut AsyncConn,
    query: Q,
    (order, dir): (StoryOrder, Option<SortDirection>),
    request: &PageRequest,
) -> Result<Page<Story>, Error>
where
    Q: Paginate<Model = Story, Item = Story> + AsyncPageQuery<'static, AsyncConn, StoryOrder>,
{
    query.paginate_by(order, dir, request)?.load_page_async(conn).await
}

/// Walks forward from the first page to the end, then back from the last page to the start with
/// its `prev_cursor`, loading each page with `page`: both walks read `expected` exactly, every
/// page but the last of a walk is full, and only the ends lack a token onward.
pub(crate) fn check_walks(
    expected: &[Story],
    limit: u32,
    mut page: impl FnMut(&PageRequest) -> Result<Page<Story>, Error>,
) -> Result<(), TestCaseError> {
    let expected = ids(expected);
    let l = limit as usize;
    let mut load = |request: &PageRequest| {
        page(request).map_err(|err| TestCaseError::fail(format!("{request:?}: {err}")))
    };
    let (mut forward, mut request, mut last) = (Vec::new(), PageRequest::first(limit), None);
    for index in 0..=expected.len() + 1 {
        let page = load(&request)?;
        prop_assert!(page.items.len() <= l, "forward page {} holds more than {}", index, l);
        prop_assert_eq!(page.has_prev(), index > 0, "forward page {}: prev_cursor", index);
        forward.extend(ids(&page.items));
        match page.next_cursor {
            Some(token) => {
                prop_assert_eq!(page.items.len(), l, "forward page {} is full", index);
                request = PageRequest::after(token, limit);
            }
            None => {
                last = Some((page.prev_cursor, page.items.len()));
                break;
            }
        }
    }
    prop_assert_eq!(&forward, &expected, "forward, limit {}", limit);
    let Some((mut back, last_len)) = last else {
        return Err(TestCaseError::fail("the forward walk did not end"));
    };
    // Back from the last page: each page ends where the one after it starts.
    let mut backward = expected[expected.len() - last_len..].to_vec();
    let mut pages = 0;
    while let Some(token) = back {
        let page = load(&PageRequest::before(token, limit))?;
        prop_assert!(!page.items.is_empty() && page.items.len() <= l, "a page back holds rows");
        prop_assert!(page.has_next(), "a page back leads forward again");
        backward.splice(0..0, ids(&page.items));
        back = page.prev_cursor;
        pages += 1;
        prop_assert!(pages <= expected.len(), "the walk back does not end");
    }
    prop_assert_eq!(&backward, &expected, "backward, limit {}", limit);
    Ok(())
}

/// The stories' ids: the tiebreaker, so they name the rows and their order.
pub(crate) fn ids(stories: &[Story]) -> Vec<i64> {
    stories.iter().map(|story| story.id).collect()
}

/// Every order and direction, each with its own page size.
fn each_order_and_direction() -> impl Iterator<Item = (StoryOrder, Option<SortDirection>)> {
    StoryOrder::ALL.into_iter().flat_map(|order| DIRECTIONS.map(|dir| (order, dir)))
}

#[test]
fn every_order_in_every_direction_walks_exactly_forward_and_back() {
    let conn = RefCell::new(connect());
    let mut runner = TestRunner::new(config());
    let result = runner.run(&(table(), limits()), |(rows, limits)| {
        let conn = &mut *conn.borrow_mut();
        fill(conn, &rows);
        let rows = all(conn);
        for ((order, dir), limit) in each_order_and_direction().zip(limits) {
            let mut expected = rows.clone();
            expected.sort_by(|a, b| compare(order, dir, a, b));
            let query = || stories::table.select(Story::as_select());
            check_walks(&expected, limit, |request| load(conn, query(), (order, dir), request))
                .map_err(|err| TestCaseError::fail(format!("{}: {err}", label(order, dir))))?;
        }
        Ok(())
    });
    if let Err(err) = result {
        panic!("{err}");
    }
}

/// The same walks through `load_page_async`, on this backend's async connection (its own copy
/// of the rows).
#[test]
fn every_order_in_every_direction_walks_exactly_on_the_async_path() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let conn = RefCell::new(rt.block_on(connect_async()));
    let mut runner = TestRunner::new(config());
    let result = runner.run(&(table(), limits()), |(rows, limits)| {
        let conn = &mut *conn.borrow_mut();
        rt.block_on(async {
            diesel_async::RunQueryDsl::execute(diesel::delete(stories::table), &mut *conn)
                .await
                .expect("empty stories");
            // One row per statement: diesel-async's SQLite wrapper has no batch insert.
            for row in &rows {
                let insert = diesel::insert_into(stories::table).values(row);
                diesel_async::RunQueryDsl::execute(insert, &mut *conn).await.expect("insert");
            }
        });
        let query = || stories::table.select(Story::as_select());
        let rows: Vec<Story> =
            rt.block_on(diesel_async::RunQueryDsl::load(query(), conn)).expect("stories load");
        for ((order, dir), limit) in each_order_and_direction().zip(limits) {
            let mut expected = rows.clone();
            expected.sort_by(|a, b| compare(order, dir, a, b));
            check_walks(&expected, limit, |request| {
                rt.block_on(load_async(conn, query(), (order, dir), request))
            })
            .map_err(|err| TestCaseError::fail(format!("{}: {err}", label(order, dir))))?;
        }
        Ok(())
    });
    if let Err(err) = result {
        panic!("{err}");
    }
}
