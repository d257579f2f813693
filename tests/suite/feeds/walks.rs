//! Exact walks of feeds in every shape a listing pages in: sets of up to a thousand values,
//! nullable leading keys in both placements, three keys in
//! mixed directions, named orders chosen at run time in both directions, and signed and encrypted
//! tokens. Each walk, forward from the first page and backward from the last, must be exactly the
//! rows among the set in the order, which the oracle sorts in Rust (NULL placement is spelled
//! differently on each engine).

use std::cmp::Ordering;
use std::collections::HashSet;

use diesel::prelude::*;
use keyset_runtime::migration::Backend;
use keyset_runtime::{Page, PageRequest, Paginate, SortDirection, TokenKeys};
use keyset_tests::models::{
    FeedPost, FeedPostOrder, Newest, NewestCursor, RankAscNullsFirst, RankDescNullsLast, RankDue,
    TopScore,
};
use keyset_tests::order::{key, plain};
use keyset_tests::schema::posts;
use keyset_tests::walk::cursors;

use super::{feed, naive, recorded, walk_both};
use crate::suite::db;
use crate::suite::orders::DIRECTIONS;
use crate::suite::orders_plan::{backend, DB};
use crate::suite::props::sorted;
use crate::Conn;

/// Sets of every kind over the seed's five authors: none, one, two, all of them, authors
/// without posts, repeated values.
const SETS: &[&[i64]] = &[&[], &[3], &[2, 4], &[1, 2, 3, 4, 5], &[7, 9], &[4, 9, 4], &[5, 5, 1]];

/// The rows of `M` among `authors`, in the order `cmp` describes: the oracle.
macro_rules! among {
    ($conn:expr, $model:ty, $authors:expr, $cmp:expr) => {
        cursors(&sorted(
            $conn,
            posts::table
                .filter(posts::author_id.eq_any($authors.to_vec()))
                .select(<$model>::as_select()),
            $cmp,
        ))
    };
}

/// Walks the feed of `$model` among `$authors` both ways at each of `$limits` and compares both
/// walks with `$expected`.
macro_rules! walks_exactly {
    ($conn:expr, $model:ty, $authors:expr, $limits:expr, $expected:expr) => {
        for limit in $limits {
            let (forward, backward) = walk_both(limit, |request| {
                posts::table
                    .select(<$model>::as_select())
                    .among(posts::author_id, $authors.to_vec())
                    .paginate(request)
                    .unwrap()
                    .load_page($conn)
                    .unwrap()
            });
            let model = stringify!($model);
            assert_eq!(forward, $expected, "{model} forward among {:?}, limit {limit}", $authors);
            assert_eq!(backward, $expected, "{model} backward among {:?}, limit {limit}", $authors);
        }
    };
}

/// 600 values (padded to 640: more than SQLite's 500 terms of one compound SELECT, which SQLite's
/// `IN (..)` list is not bound by) and the default bound's 1,000 with repeats: the seed's
/// authors among values without posts.
#[test]
fn large_sets_walk_exactly() {
    let mut conn = db::seeded(300);
    let six_hundred: Vec<i64> = (-300..300).rev().collect();
    let thousand: Vec<i64> = (0..1_000).map(|i| [4, 2, 9_000 + i][i as usize % 3]).collect();
    for authors in [&six_hundred[..], &thousand[..]] {
        let expected: Vec<i64> = naive(&mut conn, authors);
        assert!(!expected.is_empty());
        for limit in [13, 100] {
            let (forward, backward) =
                walk_both(limit, |request| feed(&mut conn, authors, request).unwrap());
            assert_eq!(forward.iter().map(|c| c.id).collect::<Vec<_>>(), expected, "{limit}");
            assert_eq!(backward.iter().map(|c| c.id).collect::<Vec<_>>(), expected, "{limit}");
        }
    }
}

/// A nullable leading key, descending with NULLs last and ascending with NULLs first (pages
/// cross the NULL boundary, which some engines fetch with one seek per side), and two nullable
/// keys in opposite placements: every walk among every set is exact.
#[test]
fn nullable_keys_walk_exactly_among_every_set() {
    let mut conn = db::seeded(150);
    for authors in SETS {
        let expected = among!(&mut conn, RankDescNullsLast, authors, |a: &RankDescNullsLast, b| {
            key(&a.rank, &b.rank, true, false).then(plain(&a.id, &b.id, true))
        });
        walks_exactly!(&mut conn, RankDescNullsLast, authors, [1, 4, 9, 100], expected);
        let expected = among!(&mut conn, RankAscNullsFirst, authors, |a: &RankAscNullsFirst, b| {
            key(&a.rank, &b.rank, false, true).then(plain(&a.id, &b.id, true))
        });
        walks_exactly!(&mut conn, RankAscNullsFirst, authors, [1, 4, 9, 100], expected);
        let expected = among!(&mut conn, RankDue, authors, |a: &RankDue, b| {
            key(&a.rank, &b.rank, false, false)
                .then(key(&a.due, &b.due, true, true))
                .then(plain(&a.id, &b.id, false))
        });
        walks_exactly!(&mut conn, RankDue, authors, [1, 4, 9, 100], expected);
    }
}

/// Three keys in mixed directions (`score ASC, created_at DESC, id ASC`): heavy ties on both
/// leading keys, so pages start inside tie groups of either.
#[test]
fn three_keys_in_mixed_directions_walk_exactly() {
    let mut conn = db::seeded(150);
    for authors in SETS {
        let expected = among!(&mut conn, TopScore, authors, |a: &TopScore, b| {
            plain(&a.score, &b.score, false)
                .then(plain(&a.created_at, &b.created_at, true))
                .then(plain(&a.id, &b.id, false))
        });
        walks_exactly!(&mut conn, TopScore, authors, [1, 3, 10, 100], expected);
    }
}

/// `a` against `b` in the named order of [`FeedPost`], reversed where `dir` asks for it.
pub(crate) fn feed_post_order(
    order: FeedPostOrder,
    dir: Option<SortDirection>,
    a: &FeedPost,
    b: &FeedPost,
) -> Ordering {
    let declared = match order {
        FeedPostOrder::New | FeedPostOrder::Top => SortDirection::Desc,
        FeedPostOrder::Ranked => SortDirection::Asc,
    };
    let as_declared = match order {
        FeedPostOrder::New => {
            plain(&a.created_at, &b.created_at, true).then(plain(&a.id, &b.id, true))
        }
        FeedPostOrder::Top => plain(&a.score, &b.score, true)
            .then(plain(&a.created_at, &b.created_at, true))
            .then(plain(&a.id, &b.id, true)),
        FeedPostOrder::Ranked => {
            key(&a.rank, &b.rank, false, false).then(plain(&a.id, &b.id, false))
        }
    };
    if dir.is_some_and(|dir| dir != declared) {
        as_declared.reverse()
    } else {
        as_declared
    }
}

/// `among(..).paginate_by(order, dir, ..)`: every named order of [`FeedPost`], as declared and
/// reversed, walks exactly among every set; a token is the order's and pages on in it alone.
#[test]
fn named_orders_walk_exactly_in_both_directions() {
    let mut conn = db::seeded(120);
    for order in FeedPostOrder::ALL {
        for dir in DIRECTIONS {
            for authors in SETS {
                let mut rows: Vec<FeedPost> = posts::table
                    .filter(posts::author_id.eq_any(*authors))
                    .select(FeedPost::as_select())
                    .load(&mut conn)
                    .unwrap();
                rows.sort_by(|a, b| feed_post_order(order, dir, a, b));
                let expected = cursors(&rows);
                for limit in [1, 6, 100] {
                    let (forward, backward) = walk_both(limit, |request| {
                        posts::table
                            .select(FeedPost::as_select())
                            .among(posts::author_id, authors.to_vec())
                            .paginate_by(order, dir, request)
                            .unwrap()
                            .load_page(&mut conn)
                            .unwrap()
                    });
                    let what = format!("{order} {dir:?} among {authors:?}, limit {limit}");
                    assert_eq!(forward, expected, "forward, {what}");
                    assert_eq!(backward, expected, "backward, {what}");
                }
            }
        }
    }
    // A feed's token is its order's: another order refuses it before any query.
    let query = || posts::table.select(FeedPost::as_select());
    let first = query()
        .among(posts::author_id, [1, 2])
        .paginate_by(FeedPostOrder::Top, None, &PageRequest::first(3))
        .unwrap()
        .load_page(&mut conn)
        .unwrap();
    let after = PageRequest::after(first.next_cursor.unwrap(), 3);
    let refused = query()
        .paginate_by(FeedPostOrder::New, None, &after)
        .err()
        .expect("a `top` token is refused in `new`");
    assert!(refused.is_client_error(), "{refused}");
}

/// Test keys: 32 distinct bytes each.
const KEY: [u8; 32] = *b"feed test key, 32 bytes, unreal!";

/// Signed and encrypted tokens page a feed as plain ones do, in the model's order and in a named
/// order; a plain token is refused where tokens are signed, and a signed one where they are not.
#[test]
fn signed_and_encrypted_feeds_walk_exactly() {
    let mut conn = db::seeded(120);
    let authors = [1, 4, 4, 8];
    let expected = among!(&mut conn, Newest, &authors, |a: &Newest, b| {
        plain(&a.created_at, &b.created_at, true).then(plain(&a.id, &b.id, true))
    });
    let named = among!(&mut conn, FeedPost, &authors, |a: &FeedPost, b| {
        feed_post_order(FeedPostOrder::New, None, a, b)
    });
    for keys in [TokenKeys::new(KEY).unwrap(), TokenKeys::encrypting(KEY).unwrap()] {
        for limit in [1, 7] {
            let (forward, backward) = walk_both(limit, |request| {
                posts::table
                    .select(Newest::as_select())
                    .among(posts::author_id, authors)
                    .paginate_signed(request, &keys)
                    .unwrap()
                    .load_page(&mut conn)
                    .unwrap()
            });
            assert_eq!(forward, expected, "forward, limit {limit}");
            assert_eq!(backward, expected, "backward, limit {limit}");
            let (forward, _) = walk_both(limit, |request| {
                posts::table
                    .select(FeedPost::as_select())
                    .among(posts::author_id, authors)
                    .paginate_by_signed(FeedPostOrder::New, None, request, &keys)
                    .unwrap()
                    .load_page(&mut conn)
                    .unwrap()
            });
            assert_eq!(forward, named, "named order, limit {limit}");
        }
        let signed: Page<Newest> = posts::table
            .select(Newest::as_select())
            .among(posts::author_id, authors)
            .paginate_signed(&PageRequest::first(3), &keys)
            .unwrap()
            .load_page(&mut conn)
            .unwrap();
        let after = PageRequest::after(signed.next_cursor.unwrap(), 3);
        let newest = posts::table.select(<Newest as SelectableHelper<DB>>::as_select());
        let refused = newest.paginate(&after).err().unwrap();
        assert!(refused.is_client_error(), "{refused}");
    }
    let plain_page = feed(&mut conn, &authors, &PageRequest::first(3)).unwrap();
    let after = PageRequest::after(plain_page.next_cursor.unwrap(), 3);
    let keys = TokenKeys::new(KEY).unwrap();
    let newest = posts::table.select(<Newest as SelectableHelper<DB>>::as_select());
    let refused = newest.paginate_signed(&after, &keys).err().unwrap();
    assert!(refused.is_client_error(), "{refused}");
}

/// A token is a position in the order, not in the set: a feed's token pages the listing without
/// a set from the same row, and the listing's token pages a feed.
#[test]
fn a_feed_token_pages_the_listing_without_a_set_and_back() {
    let mut conn = db::seeded(90);
    let first = feed(&mut conn, &[2, 3], &PageRequest::first(4)).unwrap();
    let last = first.items.last().unwrap().clone();
    let after = PageRequest::after(first.next_cursor.unwrap(), 4);
    let listing = posts::table
        .select(Newest::as_select())
        .paginate(&after)
        .unwrap()
        .load_page(&mut conn)
        .unwrap();
    let all: Vec<Newest> = posts::table
        .order((posts::created_at.desc(), posts::id.desc()))
        .select(Newest::as_select())
        .load(&mut conn)
        .unwrap();
    let at = all.iter().position(|row| *row == last).unwrap();
    assert_eq!(listing.items, all[at + 1..at + 5]);
    // The listing's token back, from its first row, pages the feed before that row.
    let back = PageRequest::before(listing.prev_cursor.unwrap(), 4);
    let ids: Vec<i64> =
        feed(&mut conn, &[2, 3], &back).unwrap().items.iter().map(|p| p.id).collect();
    let in_feed: HashSet<i64> = naive(&mut conn, &[2, 3]).into_iter().collect();
    let earlier: Vec<i64> =
        all[..=at].iter().map(|row| row.id).filter(|id| in_feed.contains(id)).collect();
    assert_eq!(ids, earlier[earlier.len().saturating_sub(4)..]);
    assert_eq!(ids.last(), Some(&last.id));
}

/// The oracle's own check: the seed's sets are not all alike, so the walks above compare
/// listings of different lengths, the empty one among them.
#[test]
fn the_sets_list_different_rows() {
    let mut conn: Conn = db::seeded(150);
    let lengths: Vec<usize> = SETS.iter().map(|authors| naive(&mut conn, authors).len()).collect();
    assert_eq!(lengths[0], 0);
    assert_eq!(lengths[4], 0, "authors 7 and 9 have no posts");
    assert_eq!(lengths[3], 150);
    assert!(lengths[1] > 0 && lengths[1] < lengths[2] && lengths[2] < lengths[3], "{lengths:?}");
}

/// Text values that a collation may hold equal (`'apple'`, `'Apple'`, `'APPLE '` under
/// MariaDB's `utf8mb4_general_ci`, which ignores case and trailing spaces; `'ß'` and `'ss'`
/// there too): each row comes once, as from `IN (..)`, so their seeks are merged with `UNION`.
/// Integers cannot be equal unless they are alike, so theirs, once repeats are dropped, with
/// `UNION ALL`, which sorts nothing out.
#[test]
fn text_values_a_collation_holds_equal_give_each_row_once() {
    let mut conn = db::seeded(90);
    let sets: &[&[&str]] =
        &[&["apple", "Apple"], &["APPLE ", "apple", "Apple", "apple"], &["ß", "ss", "été"]];
    for tags in sets {
        let tags: Vec<String> = tags.iter().map(|tag| (*tag).to_owned()).collect();
        let expected: Vec<i64> = posts::table
            .filter(posts::tag.eq_any(&tags))
            .order((posts::created_at.desc(), posts::id.desc()))
            .select(posts::id)
            .load(&mut conn)
            .unwrap();
        assert!(!expected.is_empty(), "the seed has posts tagged {tags:?}");
        for limit in [1, 3, 7] {
            let (forward, backward) = walk_both(limit, |request| {
                posts::table
                    .select(Newest::as_select())
                    .among(posts::tag, tags.clone())
                    .paginate(request)
                    .unwrap()
                    .load_page(&mut conn)
                    .unwrap()
            });
            let ids = |cursors: Vec<_>| cursors.into_iter().map(|c: NewestCursor| c.id).collect();
            let (forward, backward): (Vec<i64>, Vec<i64>) = (ids(forward), ids(backward));
            assert_eq!(forward, expected, "forward, tags {tags:?}, limit {limit}");
            assert_eq!(backward, expected, "backward, tags {tags:?}, limit {limit}");
        }
    }

    // The merge each set's statement runs, where the seeks are a union (MariaDB; not
    // PostgreSQL's `LATERAL`, nor SQLite's loop over the `IN (..)` list, which keeps each row
    // once itself): `UNION` for text, `UNION ALL` for integers, one branch per distinct value.
    // Two values walk no window (`SeekDialect::WINDOW_MIN_SET`): the seeks run.
    let first = PageRequest::first(50);
    let tags = vec!["apple".to_owned(), "Apple".to_owned()];
    let (_, by_tag) = recorded(&mut conn, |conn| {
        let page = posts::table.select(Newest::as_select()).among(posts::tag, tags.clone());
        page.paginate(&first).unwrap().load_page(conn).unwrap()
    });
    let (_, by_author) = recorded(&mut conn, |conn| feed(conn, &[4, 9, 4, 2], &first).unwrap());
    let seeks = |ran: &[String]| ran.iter().find(|sql| sql.contains("UNION")).cloned();
    match (seeks(&by_tag), seeks(&by_author)) {
        (Some(by_tag), Some(by_author)) => {
            assert!(!by_tag.contains("UNION ALL"), "{by_tag}");
            assert_eq!(by_author.matches("UNION ALL").count(), 3, "{by_author}");
            assert_eq!(by_author.matches("UNION").count(), 3, "{by_author}");
            assert_eq!(backend(), Backend::Mysql);
        }
        _ => assert_ne!(backend(), Backend::Mysql, "{by_tag:?} {by_author:?}"),
    }
}
