//! Feeds on the async path: the same requests through `load_page_async` on this backend's
//! diesel-async connection run the same statements with the same binds as `load_page` on the
//! sync one, and give the same pages and tokens, for every set and shape; the sets the sync path
//! refuses are refused alike, before any statement.

use diesel::prelude::*;
use keyset_runtime::{Error, PageRequest, Paginate, RequestError, SortDirection};
use keyset_tests::models::{FeedPost, FeedPostOrder, Newest, RankDue};
use keyset_tests::schema::posts;
use keyset_tests::walk::cursors;

use super::walk_both;
use crate::suite::asynchronous::{recorder, Both, Log};

const ROWS: i64 = 120;

/// Loads the page `$paginated($request)` on both paths of `$both`: the pages must be equal,
/// tokens included. The sync one.
macro_rules! on_both {
    ($both:expr, $paginated:expr, $request:expr) => {{
        let request = $request;
        let sync = ($paginated)(request).load_page(&mut $both.sync).unwrap();
        let paginated = ($paginated)(request);
        let asynchronous =
            $both.rt.block_on(paginated.load_page_async(&mut $both.asynchronous)).unwrap();
        assert_eq!(cursors(&asynchronous.items), cursors(&sync.items), "{request:?}");
        assert_eq!(
            (&asynchronous.next_cursor, &asynchronous.prev_cursor),
            (&sync.next_cursor, &sync.prev_cursor),
            "{request:?}"
        );
        sync
    }};
}

/// Records what each of `both`'s connections runs while `run` runs; the logs must be the same
/// statements with the same binds.
fn same_statements(both: &mut Both, run: impl FnOnce(&mut Both)) {
    let (sync_log, async_log) = (Log::default(), Log::default());
    diesel::Connection::set_instrumentation(&mut both.sync, recorder(&sync_log));
    diesel_async::AsyncConnection::set_instrumentation(
        &mut both.asynchronous,
        recorder(&async_log),
    );
    run(both);
    let none = || None::<Box<dyn diesel::connection::Instrumentation>>;
    diesel::Connection::set_instrumentation(&mut both.sync, none());
    diesel_async::AsyncConnection::set_instrumentation(&mut both.asynchronous, none());
    let (sync_log, async_log) = (sync_log.lock().unwrap(), async_log.lock().unwrap());
    assert!(sync_log.len() > 10, "the walks ran statements: {}", sync_log.len());
    for (index, (sync, asynchronous)) in sync_log.iter().zip(async_log.iter()).enumerate() {
        assert_eq!(
            crate::same_statement(asynchronous),
            crate::same_statement(sync),
            "statement {index} differs between the paths"
        );
    }
    assert_eq!(async_log.len(), sync_log.len(), "as many statements on both paths");
}

/// Walks of `Newest` among sets of every kind (600 values among them), of `RankDue` (two nullable keys: a page at the NULL boundary runs one
/// statement per side) and of a named order reversed: page for page alike on both paths, and
/// exactly the rows among the set.
#[test]
fn a_feed_pages_alike_on_both_paths() {
    let mut both = Both::seeded(ROWS);
    let large: Vec<i64> = (-300..300).collect();
    let sets: [(&[i64], &[u32]); 5] = [
        (&[], &[1, 9]),
        (&[3], &[1, 9]),
        (&[1, 4, 4, 9], &[1, 9]),
        (&[1, 2, 3, 4, 5], &[9]),
        (&large, &[40]),
    ];
    // The oracle first: the recorded statements are the pages' alone.
    let oracle: Vec<Vec<i64>> =
        sets.iter().map(|(authors, _)| ids_among(&mut both, authors)).collect();
    let few: [&[i64]; 2] = [&[2, 3], &[5, 1, 5]];
    let counts: Vec<usize> =
        few.iter().map(|authors| ids_among(&mut both, authors).len()).collect();
    same_statements(&mut both, |both| {
        for ((authors, limits), expected) in sets.iter().zip(&oracle) {
            for &limit in *limits {
                let newest = |request: &PageRequest| {
                    posts::table
                        .select(Newest::as_select())
                        .among(posts::author_id, authors.to_vec())
                        .paginate(request)
                        .unwrap()
                };
                let (forward, backward) =
                    walk_both(limit, |request| on_both!(both, newest, request));
                assert_eq!(forward.iter().map(|c| c.id).collect::<Vec<_>>(), *expected);
                assert_eq!(backward.iter().map(|c| c.id).collect::<Vec<_>>(), *expected);
                let numbered = on_both!(both, newest, &PageRequest::page_number(2, limit));
                let skip = (limit as usize).min(expected.len());
                let ids: Vec<i64> = numbered.items.iter().map(|post| post.id).collect();
                assert_eq!(ids, expected[skip..expected.len().min(skip + limit as usize)]);
            }
        }
        for (authors, count) in few.iter().zip(&counts) {
            let rank_due = |request: &PageRequest| {
                posts::table
                    .select(RankDue::as_select())
                    .among(posts::author_id, authors.to_vec())
                    .paginate(request)
                    .unwrap()
            };
            let (forward, backward) = walk_both(4, |request| on_both!(both, rank_due, request));
            assert_eq!(forward, backward);
            assert_eq!(forward.len(), *count);
            let top = |request: &PageRequest| {
                posts::table
                    .select(FeedPost::as_select())
                    .among(posts::author_id, authors.to_vec())
                    .paginate_by(FeedPostOrder::Top, Some(SortDirection::Asc), request)
                    .unwrap()
            };
            let (forward, backward) = walk_both(5, |request| on_both!(both, top, request));
            assert_eq!(forward, backward);
            assert_eq!(forward.len(), *count);
        }
    });
}

/// The ids among `authors` newest first, the naive listing on the sync connection.
fn ids_among(both: &mut Both, authors: &[i64]) -> Vec<i64> {
    posts::table
        .filter(posts::author_id.eq_any(authors))
        .order((posts::created_at.desc(), posts::id.desc()))
        .select(posts::id)
        .load(&mut both.sync)
        .unwrap()
}

/// A set beyond the listing's bound is refused on the async path as on the sync one: the same
/// error, before any statement.
#[test]
fn a_set_beyond_its_bound_is_refused_alike_on_the_async_path() {
    let mut both = Both::seeded(10);
    let log = Log::default();
    diesel_async::AsyncConnection::set_instrumentation(&mut both.asynchronous, recorder(&log));
    let paginated = posts::table
        .select(Newest::as_select())
        .among(posts::author_id, [1, 2, 3])
        .max_set(2)
        .paginate(&PageRequest::first(5))
        .unwrap();
    let refused = both.rt.block_on(paginated.load_page_async(&mut both.asynchronous)).unwrap_err();
    assert!(
        matches!(refused, Error::Request(RequestError::SetTooLarge { len: Some(3), max: 2 })),
        "{refused:?}"
    );
    assert!(refused.is_client_error());
    assert_eq!(*log.lock().unwrap(), Vec::<String>::new(), "no statement ran");
}
