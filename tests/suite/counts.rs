//! Counts served with a page (`PageRequest::count`): exact ones equal the naive `COUNT(*)` with
//! the query's filters; bounded ones equal it under their cap and say "at least the cap" over
//! it; estimated ones are the planner's, near the truth after `ANALYZE` on PostgreSQL and
//! MariaDB, and a bounded count on SQLite; among a set, in a join, in a named order, over
//! shards, and on the async path alike.

use diesel::prelude::*;
use keyset_runtime::{
    Count, Error, Page, PageRequest, Paginate, RequestError, SortDirection, TotalCount, TotalKind,
};
use keyset_tests::models::{Author, Newest, Story, StoryOrder, TopScore};
use keyset_tests::schema::{authors, posts, stories};

use super::asynchronous::{runtime, seeded_async};
use super::db;
use super::orders::{fill, NewStory};
use crate::Conn;

/// Whether this suite runs on SQLite, whose planner gives no row estimate.
fn sqlite() -> bool {
    std::any::type_name::<Conn>().contains("Sqlite")
}

/// The naive count of author `author`'s posts, or of every post.
fn naive(conn: &mut Conn, author: Option<i64>) -> u64 {
    let count: i64 = match author {
        Some(author) => posts::table.filter(posts::author_id.eq(author)).count().get_result(conn),
        None => posts::table.count().get_result(conn),
    }
    .unwrap();
    count as u64
}

/// The total of the page `request` asks for among author `author`'s posts, the listing capped
/// at `cap` and allowing exact counts.
fn total_of(conn: &mut Conn, author: i64, request: &PageRequest, cap: u32) -> TotalCount {
    let query = posts::table.filter(posts::author_id.eq(author)).select(Newest::as_select());
    let page = query.paginate(request).unwrap().count_cap(cap).allow_exact_count();
    page.load_page(conn).unwrap().total.expect("a count was asked for")
}

fn exact(count: u64) -> TotalCount {
    TotalCount { kind: TotalKind::Exact, count, page: None, pages: None }
}

fn at_least(count: u64) -> TotalCount {
    TotalCount { kind: TotalKind::AtLeast, count, page: None, pages: None }
}

#[test]
fn no_count_is_run_unless_asked() {
    let mut conn = db::seeded(30);
    let page = posts::table
        .select(Newest::as_select())
        .paginate(&PageRequest::first(5))
        .unwrap()
        .load_page(&mut conn)
        .unwrap();
    assert_eq!(page.total, None);
}

/// Exact and bounded counts are the naive count with the query's filters, whatever the page.
#[test]
fn exact_and_bounded_counts_are_the_naive_count_of_the_filtered_query() {
    let mut conn = db::seeded(120);
    let expected = naive(&mut conn, Some(3));
    assert!(expected > 5 && expected < 120, "{expected}");
    let first = PageRequest::first(5);
    assert_eq!(total_of(&mut conn, 3, &first.clone().count(Count::Exact), 1), exact(expected));
    let cap = expected as u32;
    for (cap, total) in [
        (cap + 10, exact(expected)),
        (cap, exact(expected)),
        (cap - 1, at_least(expected - 1)),
        (1, at_least(1)),
    ] {
        let bounded = first.clone().count(Count::Bounded);
        assert_eq!(total_of(&mut conn, 3, &bounded, cap), total, "cap {cap}");
    }
    // A cursor does not narrow the count, nor does a backward page.
    let query = || posts::table.filter(posts::author_id.eq(3)).select(Newest::as_select());
    let page = query().paginate(&first).unwrap().load_page(&mut conn).unwrap();
    let after = PageRequest::after(page.next_cursor.unwrap(), 5).count(Count::Exact);
    assert_eq!(total_of(&mut conn, 3, &after, 1), exact(expected));
    let last = PageRequest::last(5).count(Count::Bounded);
    assert_eq!(total_of(&mut conn, 3, &last, 1_000), exact(expected));
}

#[test]
fn an_exact_count_is_refused_unless_the_listing_allows_it() {
    let mut conn = db::seeded(10);
    let request = PageRequest::first(5).count(Count::Exact);
    let refused = posts::table
        .select(Newest::as_select())
        .paginate(&request)
        .unwrap()
        .load_page(&mut conn)
        .unwrap_err();
    assert!(
        matches!(refused, Error::Request(RequestError::CountRefused { count: Count::Exact })),
        "{refused}"
    );
    assert!(refused.is_client_error());
}

/// The estimate is the planner's: after `ANALYZE`, within a factor of two of the truth (the
/// planner samples the table; these are whole-table and one-in-five filters). On SQLite it is a
/// bounded count, and says so.
#[test]
fn an_estimate_is_near_the_truth_and_places_the_page() {
    let mut conn = db::seeded(2_000);
    let analyze = match std::any::type_name::<Conn>() {
        name if name.contains("Mysql") => "ANALYZE TABLE posts",
        _ => "ANALYZE posts",
    };
    diesel::sql_query(analyze).execute(&mut conn).unwrap();
    for author in [None, Some(2)] {
        let truth = naive(&mut conn, author);
        let request = PageRequest::first(20).count(Count::Estimated);
        let page = match author {
            Some(author) => {
                let query = posts::table.filter(posts::author_id.eq(author));
                let paginated = query.select(Newest::as_select()).paginate(&request).unwrap();
                paginated.count_cap(500).load_page(&mut conn)
            }
            None => {
                let paginated =
                    posts::table.select(Newest::as_select()).paginate(&request).unwrap();
                paginated.count_cap(500).load_page(&mut conn)
            }
        };
        let total = page.unwrap().total.unwrap();
        if sqlite() {
            let expected = if truth > 500 { at_least(500) } else { exact(truth) };
            assert_eq!(total, expected, "author {author:?}");
            continue;
        }
        assert_eq!(total.kind, TotalKind::Estimated, "author {author:?}");
        assert!(
            total.count >= truth / 2 && total.count <= truth * 2,
            "estimated {} rows of author {author:?}, {truth} in truth",
            total.count
        );
        assert_eq!(total.page, Some(1));
        assert_eq!(total.pages, Some(total.count.div_ceil(20)));
    }
    // A page by number is about that page; the estimate is at least the rows it has seen.
    if !sqlite() {
        let request = PageRequest::page_number(3, 20).count(Count::Estimated);
        let query = posts::table.select(Newest::as_select()).paginate(&request).unwrap();
        let total = query.load_page(&mut conn).unwrap().total.unwrap();
        assert_eq!(total.page, Some(3));
        assert!(total.count >= 61, "{total:?}");
    }
}

/// A page among a set counts the set's rows, as does one among a subquery's values.
#[test]
fn a_page_among_a_set_counts_among_the_set() {
    let mut conn = db::seeded(120);
    let expected = naive(&mut conn, Some(2)) + naive(&mut conn, Some(5));
    let request = PageRequest::first(7).count(Count::Bounded);
    let feed = || posts::table.select(Newest::as_select()).among(posts::author_id, [2, 5]);
    let page = feed().paginate(&request).unwrap().load_page(&mut conn).unwrap();
    assert_eq!(page.total, Some(exact(expected)));
    let capped = feed().paginate(&request).unwrap().count_cap(10).load_page(&mut conn).unwrap();
    assert_eq!(capped.total, Some(at_least(10)));
    let followed = authors::table.filter(authors::id.eq_any([2, 5])).select(authors::id);
    let feed = posts::table.select(Newest::as_select()).among_query(posts::author_id, followed);
    let page = feed.paginate(&request).unwrap().load_page(&mut conn).unwrap();
    assert_eq!(page.total, Some(exact(expected)));
}

/// A named order and a join count the query's rows: the order does not change them, and a join
/// one-to-one does not repeat them.
#[test]
fn named_orders_and_joins_count_the_querys_rows() {
    let mut conn = db::seeded(120);
    let expected = naive(&mut conn, None);
    let request = PageRequest::first(5).count(Count::Bounded);
    let at = chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap().naive_utc();
    let stories: Vec<NewStory> = (1..=17)
        .map(|id| NewStory {
            id,
            created_at: at,
            score: (id % 3) as i32,
            title: "a".into(),
            published_at: None,
        })
        .collect();
    fill(&mut conn, &stories);
    let query = || stories::table.select(Story::as_select());
    for (order, dir) in [(StoryOrder::Top, None), (StoryOrder::Mixed, Some(SortDirection::Desc))] {
        let page = query().paginate_by(order, dir, &request).unwrap().load_page(&mut conn);
        assert_eq!(page.unwrap().total, Some(exact(17)), "{order:?}");
    }
    // Both tables have an `id`: the count's subquery selects neither (MariaDB refuses a derived
    // table with two columns of one name).
    let joined = posts::table
        .inner_join(authors::table)
        .filter(authors::name.ne("author 2"))
        .select((TopScore::as_select(), Author::as_select()));
    let page: Page<(TopScore, Author)> =
        joined.paginate(&request).unwrap().load_page(&mut conn).unwrap();
    assert_eq!(page.total, Some(exact(expected - naive(&mut conn, Some(2)))));
}

/// A sharded page sums its shards' counts.
#[test]
fn shards_sum_their_counts() {
    let mut shards = vec![db::seeded(0), db::seeded(0)];
    db::insert_posts(&mut shards[0], (1..=40).filter(|id| id % 2 == 1));
    db::insert_posts(&mut shards[1], (1..=40).filter(|id| id % 2 == 0));
    let request = PageRequest::first(7).count(Count::Bounded);
    let page = posts::table
        .select(Newest::as_select())
        .paginate(&request)
        .unwrap()
        .load_page_sharded(&mut shards)
        .unwrap();
    assert_eq!(page.total, Some(exact(40)));
    let capped = posts::table
        .select(Newest::as_select())
        .paginate(&request)
        .unwrap()
        .count_cap(15)
        .load_page_sharded(&mut shards)
        .unwrap();
    assert_eq!(capped.total, Some(at_least(30)), "15 or more on each of two shards");
}

/// A boxed query gives no copy to count: the server's listing, never the client's error.
#[test]
fn a_boxed_query_is_not_counted() {
    let mut conn = db::seeded(10);
    let request = PageRequest::first(5).count(Count::Bounded);
    let error = posts::table
        .select(Newest::as_select())
        .into_boxed()
        .paginate(&request)
        .unwrap()
        .load_page(&mut conn)
        .unwrap_err();
    assert!(!error.is_client_error(), "{error}");
    assert!(error.to_string().contains("boxed"), "{error}");
}

/// The async path counts with the same statements, to the same totals.
#[test]
fn the_async_path_counts_alike() {
    let mut conn = db::seeded(120);
    runtime().block_on(async {
        let mut async_conn = seeded_async(120).await;
        let query = || posts::table.filter(posts::author_id.eq(4)).select(Newest::as_select());
        for (count, cap) in [(Count::Exact, 1_000), (Count::Bounded, 1_000), (Count::Bounded, 9)] {
            let request = PageRequest::first(5).count(count);
            let paged = || query().paginate(&request).unwrap().count_cap(cap).allow_exact_count();
            let sync = paged().load_page(&mut conn).unwrap();
            let awaited = paged().load_page_async(&mut async_conn).await.unwrap();
            assert_eq!(awaited.total, sync.total, "{count} capped at {cap}");
            assert!(awaited.total.is_some());
        }
        let request = PageRequest::first(5).count(Count::Exact);
        let refused = query().paginate(&request).unwrap().load_page_async(&mut async_conn).await;
        assert!(matches!(refused, Err(Error::Request(RequestError::CountRefused { .. }))));
    });
}
