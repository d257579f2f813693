//! The async path (feature `diesel-async`) on this backend's diesel-async connection: for every
//! model of the suites, the same requests through `load_page_async` run the same statements with
//! the same binds as `load_page`, and give the same pages and tokens; random walks over generated
//! tables agree with the oracle page for page; a token from either path pages on the other; and
//! the requests the sync suites refuse are refused the same way.
//!
//! Each test owns a current-thread tokio runtime. The async connection has its own copy of the
//! data (temporary tables and in-memory databases are per connection), seeded with the same rows
//! as the sync one.

use std::fmt::Debug;
use std::sync::{Arc, Mutex};

use diesel::connection::{Instrumentation, InstrumentationEvent};
use diesel::prelude::*;
use keyset_runtime::{AsyncPageQuery, Error, Keyset, Page, PageQuery, PageRequest, Paginate};
use keyset_tests::models::{
    ByTag, ByUniqueTitle, Membership, Newest, NewestIdAsc, Post, RankAscNullsFirst,
    RankAscNullsLast, RankDescNullsFirst, RankDescNullsLast, RankDue, ScoreDue, TitleShortTokens,
    TopScore,
};
use keyset_tests::schema::{authors, memberships, posts};
use keyset_tests::seed;
use keyset_tests::walk::cursors;
use proptest::prelude::*;
use tokio::runtime::Runtime;

use super::db;
use super::props::{fill, run, sorted, table, MAX_STEPS};
use crate::{connect_async, AsyncConn, Conn};

const ROWS: i64 = 120;

pub(crate) fn runtime() -> Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a tokio runtime")
}

/// The async connection with the rows `db::seeded(count)` gives the sync one.
pub(crate) async fn seeded_async(count: i64) -> AsyncConn {
    let mut conn = connect_async().await;
    // One row per statement: diesel-async's SQLite wrapper has no batch insert.
    for (id, name) in seed::authors() {
        let author = diesel::insert_into(authors::table)
            .values((authors::id.eq(id), authors::name.eq(name)));
        diesel_async::RunQueryDsl::execute(author, &mut conn).await.unwrap();
    }
    insert_posts_async(&mut conn, (1..=count).map(seed::post).collect()).await;
    for (team, user, joined) in seed::memberships() {
        let member = diesel::insert_into(memberships::table).values((
            memberships::team_id.eq(team),
            memberships::user_id.eq(user),
            memberships::joined_at.eq(joined),
        ));
        diesel_async::RunQueryDsl::execute(member, &mut conn).await.unwrap();
    }
    conn
}

async fn insert_posts_async(conn: &mut AsyncConn, rows: Vec<seed::NewPost>) {
    for row in &rows {
        let insert = diesel::insert_into(posts::table).values(row);
        diesel_async::RunQueryDsl::execute(insert, conn).await.unwrap();
    }
}

/// Every statement a connection starts, as Diesel shows it: the SQL and its binds.
pub(crate) type Log = Arc<Mutex<Vec<String>>>;

pub(crate) fn recorder(log: &Log) -> impl Instrumentation {
    let log = log.clone();
    move |event: InstrumentationEvent<'_>| {
        if let InstrumentationEvent::StartQuery { query, .. } = event {
            log.lock().unwrap().push(query.to_string());
        }
    }
}

/// The two paths side by side, each on its own connection to the same rows.
pub(crate) struct Both {
    pub(crate) rt: Runtime,
    pub(crate) sync: Conn,
    pub(crate) asynchronous: AsyncConn,
}

impl Both {
    pub(crate) fn seeded(count: i64) -> Both {
        let rt = runtime();
        let asynchronous = rt.block_on(seeded_async(count));
        Both { rt, sync: db::seeded(count), asynchronous }
    }

    /// Loads `request` on both paths: the pages must be equal, tokens included.
    fn page<Q>(&mut self, query: &impl Fn() -> Q, request: &PageRequest) -> Page<Q::Model>
    where
        Q: PageQuery<'static, Conn, Item = <Q as keyset_runtime::Paginate>::Model>
            + AsyncPageQuery<'static, AsyncConn>,
        Q::Model: Send,
        <Q::Model as Keyset>::Cursor: Debug + PartialEq,
    {
        let sync = query().paginate(request).unwrap().load_page(&mut self.sync).unwrap();
        let paginated = query().paginate(request).unwrap();
        let asynchronous = self.rt.block_on(paginated.load_page_async(&mut self.asynchronous));
        let asynchronous = asynchronous.unwrap();
        assert_eq!(cursors(&asynchronous.items), cursors(&sync.items), "{request:?}");
        assert_eq!(
            (&asynchronous.next_cursor, &asynchronous.prev_cursor),
            (&sync.next_cursor, &sync.prev_cursor),
            "{request:?}"
        );
        asynchronous
    }
}

/// Walks `query` forward from the first page and backward from the last, at several page sizes,
/// and jumps to page 2, on both paths, recording what each connection runs: the same statements
/// with the same binds, and the same pages, which read the whole order.
fn same_statements<Q>(query: impl Fn() -> Q, oracle: Vec<<Q::Model as Keyset>::Cursor>)
where
    Q: PageQuery<'static, Conn, Item = <Q as keyset_runtime::Paginate>::Model>
        + AsyncPageQuery<'static, AsyncConn>,
    Q::Model: Send,
    <Q::Model as Keyset>::Cursor: Debug + PartialEq,
{
    let mut both = Both::seeded(ROWS);
    let (sync_log, async_log) = (Log::default(), Log::default());
    diesel::Connection::set_instrumentation(&mut both.sync, recorder(&sync_log));
    diesel_async::AsyncConnection::set_instrumentation(
        &mut both.asynchronous,
        recorder(&async_log),
    );
    for limit in [1, 7, 40] {
        let (mut forward, mut request) = (Vec::new(), PageRequest::first(limit));
        loop {
            let page = both.page(&query, &request);
            forward.extend(cursors(&page.items));
            match page.next_cursor {
                Some(token) => request = PageRequest::after(token, limit),
                None => break,
            }
        }
        assert_eq!(forward, oracle, "forward, limit {limit}");
        let (mut backward, mut request) = (Vec::new(), PageRequest::last(limit));
        loop {
            let page = both.page(&query, &request);
            backward.splice(0..0, cursors(&page.items));
            match page.prev_cursor {
                Some(token) => request = PageRequest::before(token, limit),
                None => break,
            }
        }
        assert_eq!(backward, oracle, "backward, limit {limit}");
        both.page(&query, &PageRequest::page_number(2, limit));
    }
    let (sync_log, async_log) = (sync_log.lock().unwrap(), async_log.lock().unwrap());
    assert!(sync_log.len() > 20, "the walks ran statements: {}", sync_log.len());
    for (index, (sync, asynchronous)) in sync_log.iter().zip(async_log.iter()).enumerate() {
        assert_eq!(
            crate::same_statement(asynchronous),
            crate::same_statement(sync),
            "statement {index} differs between the paths"
        );
    }
    assert_eq!(async_log.len(), sync_log.len(), "as many statements on both paths");
}

/// The oracle: the model's rows in a hand-written ORDER BY, on the sync connection.
fn oracle<M, Q>(query: Q) -> Vec<M::Cursor>
where
    M: Keyset,
    Q: diesel::query_dsl::LoadQuery<'static, Conn, M>,
{
    let mut conn = db::seeded(ROWS);
    let rows: Vec<M> = query.load(&mut conn).unwrap();
    assert_eq!(rows.len(), ROWS as usize);
    cursors(&rows)
}

#[test]
fn every_model_runs_the_same_statements_on_both_paths() {
    let order = (posts::id.asc(),);
    same_statements(|| posts::table.select(Post::as_select()), {
        oracle(posts::table.order(order).select(Post::as_select()))
    });
    same_statements(
        || posts::table.select(Newest::as_select()),
        oracle(
            posts::table
                .order((posts::created_at.desc(), posts::id.desc()))
                .select(Newest::as_select()),
        ),
    );
    same_statements(
        || posts::table.select(NewestIdAsc::as_select()),
        oracle(
            posts::table
                .order((posts::created_at.desc(), posts::id.asc()))
                .select(NewestIdAsc::as_select()),
        ),
    );
    same_statements(
        || posts::table.select(TopScore::as_select()),
        oracle(
            posts::table
                .order((posts::score.asc(), posts::created_at.desc(), posts::id.asc()))
                .select(TopScore::as_select()),
        ),
    );
    same_statements(
        || posts::table.select(ByTag::as_select()),
        oracle(
            posts::table
                .order((posts::score.desc(), posts::tag.desc(), posts::id.desc()))
                .select(ByTag::as_select()),
        ),
    );
    same_statements(
        || posts::table.select(ByUniqueTitle::as_select()),
        oracle(posts::table.order(posts::title.asc()).select(ByUniqueTitle::as_select())),
    );
    same_statements(
        || posts::table.select(TitleShortTokens::as_select()),
        oracle(posts::table.order(posts::title.asc()).select(TitleShortTokens::as_select())),
    );
    // A filter and a join: the user's query is kept whole on both paths.
    same_statements(
        || {
            posts::table
                .inner_join(authors::table)
                .filter(authors::id.ne(2))
                .select(Newest::as_select())
        },
        {
            let mut conn = db::seeded(ROWS);
            let rows: Vec<Newest> = posts::table
                .inner_join(authors::table)
                .filter(authors::id.ne(2))
                .order((posts::created_at.desc(), posts::id.desc()))
                .select(Newest::as_select())
                .load(&mut conn)
                .unwrap();
            cursors(&rows)
        },
    );
}

/// The NULL boundary of a nullable leading key, in every placement, two nullable keys, and a
/// nullable key behind a plain one: two seeks at the boundary on both paths alike.
#[test]
fn nullable_models_run_the_same_statements_on_both_paths() {
    let nullable = |conn: &mut Conn| -> Vec<_> {
        let mut rows: Vec<RankDescNullsLast> =
            posts::table.select(RankDescNullsLast::as_select()).load(conn).unwrap();
        rows.sort_by(|a, b| {
            keyset_tests::order::key(&a.rank, &b.rank, true, false)
                .then(keyset_tests::order::plain(&a.id, &b.id, true))
        });
        cursors(&rows)
    };
    same_statements(|| posts::table.select(RankDescNullsLast::as_select()), {
        nullable(&mut db::seeded(ROWS))
    });
    let mut conn = db::seeded(ROWS);
    let by = |conn: &mut Conn, cmp: fn(&RankDescNullsFirst, &RankDescNullsFirst) -> _| {
        let mut rows: Vec<RankDescNullsFirst> =
            posts::table.select(RankDescNullsFirst::as_select()).load(conn).unwrap();
        rows.sort_by(cmp);
        cursors(&rows)
    };
    same_statements(
        || posts::table.select(RankDescNullsFirst::as_select()),
        by(&mut conn, |a, b| {
            keyset_tests::order::key(&a.rank, &b.rank, true, true)
                .then(keyset_tests::order::plain(&a.id, &b.id, false))
        }),
    );
    let asc_last = sorted(
        &mut conn,
        posts::table.select(RankAscNullsLast::as_select()),
        |a: &RankAscNullsLast, b| {
            keyset_tests::order::key(&a.rank, &b.rank, false, false)
                .then(keyset_tests::order::plain(&a.id, &b.id, false))
        },
    );
    same_statements(|| posts::table.select(RankAscNullsLast::as_select()), cursors(&asc_last));
    let asc_first = sorted(
        &mut conn,
        posts::table.select(RankAscNullsFirst::as_select()),
        |a: &RankAscNullsFirst, b| {
            keyset_tests::order::key(&a.rank, &b.rank, false, true)
                .then(keyset_tests::order::plain(&a.id, &b.id, true))
        },
    );
    same_statements(|| posts::table.select(RankAscNullsFirst::as_select()), cursors(&asc_first));
    let rank_due =
        sorted(&mut conn, posts::table.select(RankDue::as_select()), |a: &RankDue, b| {
            keyset_tests::order::key(&a.rank, &b.rank, false, false)
                .then(keyset_tests::order::key(&a.due, &b.due, true, true))
                .then(keyset_tests::order::plain(&a.id, &b.id, false))
        });
    same_statements(|| posts::table.select(RankDue::as_select()), cursors(&rank_due));
    let score_due =
        sorted(&mut conn, posts::table.select(ScoreDue::as_select()), |a: &ScoreDue, b| {
            keyset_tests::order::plain(&a.score, &b.score, true)
                .then(keyset_tests::order::key(&a.due, &b.due, false, false))
                .then(keyset_tests::order::plain(&a.id, &b.id, true))
        });
    same_statements(|| posts::table.select(ScoreDue::as_select()), cursors(&score_due));
    let members = sorted(
        &mut conn,
        memberships::table.select(Membership::as_select()),
        |a: &Membership, b| {
            keyset_tests::order::plain(&a.joined_at, &b.joined_at, false)
                .then(keyset_tests::order::plain(&a.team_id, &b.team_id, false))
                .then(keyset_tests::order::plain(&a.user_id, &b.user_id, true))
        },
    );
    let mut both = Both::seeded(ROWS);
    let query = || memberships::table.select(Membership::as_select());
    let mut request = PageRequest::first(3);
    let mut read = Vec::new();
    loop {
        let page = both.page(&query, &request);
        read.extend(cursors(&page.items));
        match page.next_cursor {
            Some(token) => request = PageRequest::after(token, 3),
            None => break,
        }
    }
    assert_eq!(read, cursors(&members));
}

/// A token issued on one path pages on the other, and a boxed query pages on both.
#[test]
fn tokens_cross_paths_and_boxed_queries_page_async() {
    let mut both = Both::seeded(ROWS);
    let query = || posts::table.select(Newest::as_select());
    let first =
        query().paginate(&PageRequest::first(10)).unwrap().load_page(&mut both.sync).unwrap();
    let request = PageRequest::after(first.next_cursor.clone().unwrap(), 10);
    let paginated = query().paginate(&request).unwrap();
    let second = both.rt.block_on(paginated.load_page_async(&mut both.asynchronous)).unwrap();
    let request = PageRequest::before(second.prev_cursor.clone().unwrap(), 10);
    let back = query().paginate(&request).unwrap().load_page(&mut both.sync).unwrap();
    assert_eq!(cursors(&back.items), cursors(&first.items));

    let boxed = || posts::table.select(RankDescNullsLast::as_select()).into_boxed();
    let mut request = PageRequest::first(9);
    let mut count = 0;
    loop {
        let page = both.page(&boxed, &request);
        count += page.items.len();
        match page.next_cursor {
            Some(token) => request = PageRequest::after(token, 9),
            None => break,
        }
    }
    assert_eq!(count, ROWS as usize);
}

/// What the sync path refuses, the async path refuses the same way, before any query.
#[test]
fn bad_requests_are_refused_alike_on_the_async_path() {
    let rt = runtime();
    let mut conn = rt.block_on(seeded_async(10));
    let load = |conn: &mut AsyncConn, request: PageRequest, max_limit: u32| {
        let query = posts::table.select(Newest::as_select());
        rt.block_on(async {
            query.paginate(&request)?.max_limit(max_limit).load_page_async(conn).await
        })
    };
    let junk = load(&mut conn, PageRequest::after("oops", 5), 100).unwrap_err();
    assert!(junk.is_client_error() && matches!(junk, Error::Cursor(_)), "{junk}");
    let zero = load(&mut conn, PageRequest::first(0), 100).unwrap_err();
    assert!(zero.is_client_error(), "{zero}");
    let far = load(&mut conn, PageRequest::page_number(u32::MAX, u32::MAX), u32::MAX).unwrap_err();
    assert!(matches!(far, Error::Request(_)), "{far}");
    // The row count, async, with the query's filters.
    let paginated = posts::table
        .filter(posts::author_id.eq(2))
        .select(Newest::as_select())
        .paginate(&PageRequest::first(2))
        .unwrap();
    let count = rt.block_on(paginated.total_count_async(&mut conn)).unwrap();
    let expected = (1..=10).filter(|&id| seed::post(id).author_id == 2).count();
    assert_eq!(count, expected as i64);
}

/// Random walks over generated tables through the async path: every page is the sync path's
/// page, which the other property tests hold to the oracle, and the oracle's slice here too.
#[test]
fn random_walks_agree_on_both_paths() {
    let steps = prop::collection::vec((0..4u8, 1..=6u32), 1..=MAX_STEPS);
    let rt = runtime();
    let asynchronous = std::cell::RefCell::new(rt.block_on(seeded_async(0)));
    run((table(), steps), |sync, (rows, steps)| {
        fill(sync, &rows);
        let mut conn = asynchronous.borrow_mut();
        rt.block_on(async {
            diesel_async::RunQueryDsl::execute(diesel::delete(posts::table), &mut *conn)
                .await
                .unwrap();
            insert_posts_async(&mut conn, rows.clone()).await;
        });
        let expected = cursors(&sorted(
            sync,
            posts::table.select(TopScore::as_select()),
            |a: &TopScore, b| {
                keyset_tests::order::plain(&a.score, &b.score, false)
                    .then(keyset_tests::order::plain(&a.created_at, &b.created_at, true))
                    .then(keyset_tests::order::plain(&a.id, &b.id, false))
            },
        ));
        let query = || posts::table.select(TopScore::as_select());
        let mut at: Option<Page<TopScore>> = None;
        for (op, limit) in steps {
            let request = match (op, &at) {
                (2, Some(Page { next_cursor: Some(token), .. })) => {
                    PageRequest::after(token.clone(), limit)
                }
                (3, Some(Page { prev_cursor: Some(token), .. })) => {
                    PageRequest::before(token.clone(), limit)
                }
                (1, _) => PageRequest::last(limit),
                _ => PageRequest::first(limit),
            };
            let sync_page = query().paginate(&request).unwrap().load_page(sync).unwrap();
            let page = rt
                .block_on(query().paginate(&request).unwrap().load_page_async(&mut *conn))
                .map_err(|err| TestCaseError::fail(format!("{request:?}: {err}")))?;
            prop_assert_eq!(cursors(&page.items), cursors(&sync_page.items));
            prop_assert_eq!(&page.next_cursor, &sync_page.next_cursor);
            prop_assert_eq!(&page.prev_cursor, &sync_page.prev_cursor);
            let got = cursors(&page.items);
            let found = got.is_empty() || expected.windows(got.len()).any(|window| window == got);
            prop_assert!(found, "an async page is a slice of the order");
            at = Some(page);
        }
        Ok(())
    });
}

/// Hostile key values (quotes, comments, `;`, `$1`, `?`, `%`, backslashes) stored, paged both ways
/// and sent back in crafted tokens on the async path, exactly as on the sync path (the hostile
/// suite's rows), and the tables are intact afterwards.
#[test]
fn hostile_key_values_page_alike_on_the_async_path() {
    use keyset_runtime::__testing::token;
    use keyset_runtime::Direction;
    let mut both = Both::seeded(40);
    let rows = super::hostile::hostile_rows();
    diesel::insert_into(posts::table).values(&rows).execute(&mut both.sync).unwrap();
    both.rt.block_on(insert_posts_async(&mut both.asynchronous, rows.clone()));
    let by_title = || posts::table.select(ByUniqueTitle::as_select());
    let by_tag = || posts::table.select(ByTag::as_select());
    for limit in [1, 4] {
        let (mut titles, mut request) = (Vec::new(), PageRequest::first(limit));
        while let Some(token) = {
            let page = both.page(&by_title, &request);
            titles.extend(page.items.into_iter().map(|post| post.title));
            page.next_cursor
        } {
            request = PageRequest::after(token, limit);
        }
        assert_eq!(titles.len(), 40 + rows.len(), "every row once, limit {limit}");
        for row in &rows {
            assert!(titles.contains(&row.title), "{:?} came back verbatim", row.title);
        }
        let (mut tags, mut request) = (0, PageRequest::last(limit));
        while let Some(token) = {
            let page = both.page(&by_tag, &request);
            tags += page.items.len();
            page.prev_cursor
        } {
            request = PageRequest::before(token, limit);
        }
        assert_eq!(tags, 40 + rows.len(), "backward, limit {limit}");
    }
    // A crafted token whose key is SQL: one more bound value, on both paths.
    for text in ["x' OR 1=1; DROP TABLE posts; --", "'); DELETE FROM posts; --", "$1", "?"] {
        let cursor = keyset_tests::models::ByUniqueTitleCursor { title: text.to_owned() };
        let crafted = token::encode(ByUniqueTitle::FINGERPRINT, Direction::After, &cursor).unwrap();
        both.page(&by_title, &PageRequest::after(crafted, 5));
    }
    let count = posts::table.count().get_result::<i64>(&mut both.sync).unwrap();
    let count_async = both.rt.block_on(async {
        diesel_async::RunQueryDsl::get_result::<i64>(posts::table.count(), &mut both.asynchronous)
            .await
    });
    assert_eq!((count, count_async.unwrap()), (40 + rows.len() as i64, 40 + rows.len() as i64));
}
