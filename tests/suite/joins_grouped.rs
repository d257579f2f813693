//! Orders grouped by a joined row (`PostByAuthorGroup`: `authors.name, authors.id, created_at
//! DESC, id DESC`), whose pages may walk one author at a time (on MariaDB, `machine/groups.rs`):
//! exact both ways at every page size with authors of one name, under a writer, and from values
//! of the joined keys and from a row. Each against the rows Diesel loads in the same ORDER BY.

use diesel::prelude::*;
use keyset_runtime::{PageRequest, Paginate};
use keyset_tests::models::PostByAuthorGroup;
use keyset_tests::schema::{authors, posts};
use keyset_tests::{seed, walk};

use super::db;

const ROWS: i64 = 240;

/// Four authors (2 to 5) of one name, "author 2".
fn seeded() -> crate::Conn {
    let mut conn = db::seeded(ROWS);
    diesel::update(authors::table.filter(authors::id.ge(3)))
        .set(authors::name.eq("author 2"))
        .execute(&mut conn)
        .unwrap();
    conn
}

/// Every post of the listing in its order, as Diesel loads it.
fn ordered(conn: &mut crate::Conn) -> Vec<PostByAuthorGroup> {
    let order = (authors::name.asc(), authors::id.asc(), posts::created_at.desc());
    query().order((order, posts::id.desc())).load(conn).unwrap()
}

type Backend = <crate::Conn as diesel::Connection>::Backend;
type Query = diesel::dsl::Select<
    diesel::dsl::InnerJoin<posts::table, authors::table>,
    diesel::dsl::AsSelect<PostByAuthorGroup, Backend>,
>;

/// The listing: posts with their author's keys.
fn query() -> Query {
    posts::table.inner_join(authors::table).select(PostByAuthorGroup::as_select())
}

/// `PostByAuthorGroup` (`authors.name, authors.id, created_at DESC, id DESC`), with four authors
/// of one name: each author's posts come together, in order, both ways and at every page size,
/// as the plain ORDER BY lists them.
#[test]
fn an_order_grouped_by_the_joined_row_pages_both_ways() {
    let mut conn = seeded();
    let expected = ordered(&mut conn);
    let tied: std::collections::BTreeSet<i64> = expected
        .iter()
        .filter(|post| post.author_name == "author 2")
        .map(|p| p.author_key)
        .collect();
    assert_eq!(tied.into_iter().collect::<Vec<_>>(), [2, 3, 4, 5], "authors of one name");
    let cursors = walk::cursors(&expected);
    for limit in [1, 9, 47] {
        assert_eq!(walk::cursors(&walk::forward(&mut conn, limit, query)), cursors);
        assert_eq!(walk::cursors(&walk::backward(&mut conn, limit, query)), cursors);
    }
}

/// A writer between pages of the grouped order, walked forward and back: it deletes every post
/// of the author after the page (on MariaDB, the group the next page would find first) and adds
/// posts to authors already passed and not yet reached. Every row present throughout the walk is
/// paged exactly once, in order, and none twice.
#[test]
fn an_order_grouped_by_the_joined_row_pages_exactly_under_a_writer() {
    let mut conn = seeded();
    let all = ordered;
    let mut next_id = ROWS + 1;
    for backward in [false, true] {
        let start = all(&mut conn);
        let (mut seen, mut deleted) = (Vec::new(), Vec::new());
        let mut request = match backward {
            false => PageRequest::first(9),
            true => PageRequest::last(9),
        };
        loop {
            let page = query().paginate(&request).unwrap().load_page(&mut conn).unwrap();
            let rows = page.items.iter().map(|post| post.id).collect::<Vec<_>>();
            let edge = if backward { page.items.first() } else { page.items.last() };
            if let Some(edge) = edge {
                // The author after (or before) the page's last row in the walk.
                let key = |post: &PostByAuthorGroup| (post.author_name.clone(), post.author_key);
                let ahead = |post: &&PostByAuthorGroup| match backward {
                    false => key(post) > key(edge),
                    true => key(post) < key(edge),
                };
                let current = all(&mut conn);
                let mut later = current.iter().filter(ahead);
                let next = if backward { later.next_back() } else { later.next() };
                if let Some(next) = next.map(|post| post.author_key) {
                    let gone = posts::table.filter(posts::author_id.eq(next));
                    deleted.extend(gone.select(posts::id).load::<i64>(&mut conn).unwrap());
                    diesel::delete(gone).execute(&mut conn).unwrap();
                }
                for author in [edge.author_key, 1 + next_id % 5] {
                    let post = seed::NewPost { author_id: author, ..seed::post(next_id) };
                    diesel::insert_into(posts::table).values(&post).execute(&mut conn).unwrap();
                    next_id += 1;
                }
            }
            if backward {
                seen.splice(0..0, rows);
            } else {
                seen.extend(rows);
            }
            let token = if backward { page.prev_cursor } else { page.next_cursor };
            match token {
                Some(token) if backward => request = PageRequest::before(token, 9),
                Some(token) => request = PageRequest::after(token, 9),
                None => break,
            }
        }
        let mut unique = seen.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), seen.len(), "a row paged twice: {seen:?}");
        let present = start.iter().map(|post| post.id).filter(|id| !deleted.contains(id));
        let present: Vec<i64> = present.collect();
        let walked: Vec<i64> = seen.iter().copied().filter(|id| present.contains(id)).collect();
        assert_eq!(walked, present, "backward: {backward}");
    }
}

/// A page from values of the joined keys (the author's name, or name and id; at them or past
/// them), and from a row, is the same page cut from the whole listing, and so is the next.
#[test]
fn an_order_grouped_by_the_joined_row_starts_at_values_and_at_rows() {
    let mut conn = seeded();
    let all = ordered(&mut conn);
    let key = |post: &PostByAuthorGroup| (post.author_name.clone(), post.author_key);
    let name = |name: &str| (name.to_owned(), i64::MIN);
    let cases: [(PageRequest, Box<dyn Fn(&PostByAuthorGroup) -> bool>); 4] = [
        (PageRequest::starting_at(["author 2"], 7), Box::new(move |p| key(p) >= name("author 2"))),
        (
            PageRequest::starting_past(["author 1"], 7),
            Box::new(move |p| p.author_name.as_str() > "author 1"),
        ),
        (
            PageRequest::starting_at(["author 2", "4"], 7),
            Box::new(move |p| key(p) >= ("author 2".into(), 4)),
        ),
        (
            PageRequest::starting_past(["author 2", "4"], 7),
            Box::new(move |p| key(p) > ("author 2".into(), 4)),
        ),
    ];
    let ids = |rows: &[PostByAuthorGroup]| rows.iter().map(|post| post.id).collect::<Vec<_>>();
    for (request, kept) in cases {
        let page = query().paginate(&request).unwrap().allow_starts().load_page(&mut conn).unwrap();
        let from = all.iter().position(|post| kept(post)).unwrap();
        assert_eq!(ids(&page.items), ids(&all[from..from + 7]), "{request:?}");
        let next = PageRequest::after(page.next_cursor.unwrap(), 7);
        let next = query().paginate(&next).unwrap().load_page(&mut conn).unwrap();
        assert_eq!(ids(&next.items), ids(&all[from + 7..from + 14]), "after {request:?}");
    }
    // From a row half-way through an author's posts: the row first.
    let at = all.len() / 2 + 3;
    let page = query().paginate(&PageRequest::first(7)).unwrap().at_row(&all[at]);
    let page = page.load_page(&mut conn).unwrap();
    assert_eq!(ids(&page.items), ids(&all[at..at + 7]));
    let prev = PageRequest::before(page.prev_cursor.unwrap(), 7);
    let prev = query().paginate(&prev).unwrap().load_page(&mut conn).unwrap();
    assert_eq!(ids(&prev.items), ids(&all[at - 7..at]));
}
