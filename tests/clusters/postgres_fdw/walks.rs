//! Exact walks through the coordinator: in every named order of [`RemoteStory`], as declared
//! and reversed, forward to the end and back from the end, pages of 7 and 40, in both layouts,
//! while a writer inserts rows and deletes rows on each shard in turn between every two pages.
//! Every row present throughout a walk comes back exactly once, none twice, all in the order;
//! the async path (diesel-async's connection) gives the same pages and tokens as the sync one.

use std::cmp::Ordering;
use std::collections::BTreeSet;

use diesel::prelude::*;
use keyset_runtime::{Page, PageRequest, Paginate, SortDirection};
use keyset_tests::order::{key, plain};
use keyset_tests::schema::stories;

use super::{fixture, story, RemoteStory, RemoteStoryOrder, LAYOUTS, SEED_ROWS};

const LIMITS: [u32; 2] = [7, 40];
/// A walk that takes more pages is going round in circles.
const MAX_PAGES: usize = 1_000;

/// The orders, each with its declared direction (that of its first key).
const ORDERS: [(RemoteStoryOrder, SortDirection); 3] = [
    (RemoteStoryOrder::New, SortDirection::Desc),
    (RemoteStoryOrder::Mixed, SortDirection::Asc),
    (RemoteStoryOrder::Due, SortDirection::Asc),
];

fn other(dir: SortDirection) -> SortDirection {
    match dir {
        SortDirection::Asc => SortDirection::Desc,
        SortDirection::Desc => SortDirection::Asc,
    }
}

/// The oracle: `a` against `b` in `order` as declared, every key flipped when `reversed`.
fn compare(order: RemoteStoryOrder, reversed: bool, a: &RemoteStory, b: &RemoteStory) -> Ordering {
    let declared = match order {
        RemoteStoryOrder::New => {
            plain(&a.created_at, &b.created_at, true).then(plain(&a.id, &b.id, true))
        }
        RemoteStoryOrder::Mixed => plain(&a.score, &b.score, false)
            .then(plain(&a.created_at, &b.created_at, true))
            .then(plain(&a.id, &b.id, false)),
        // NULLS LAST ascending: reversed, descending with NULLs first.
        RemoteStoryOrder::Due => {
            key(&a.published_at, &b.published_at, false, false).then(plain(&a.id, &b.id, false))
        }
    };
    if reversed {
        declared.reverse()
    } else {
        declared
    }
}

/// Between every two pages: two stories inserted (wherever the partitioning puts them), and one
/// deleted from each shard's partition, read for it through the coordinator's foreign table of
/// that shard: the table keeps its size however long the walk.
struct Writer {
    next_id: i64,
    step: i64,
    inserted: BTreeSet<i64>,
    deleted: BTreeSet<i64>,
}

#[derive(QueryableByName)]
struct Id {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    id: i64,
}

impl Writer {
    fn new(next_id: i64) -> Self {
        Writer { next_id, step: 0, inserted: BTreeSet::new(), deleted: BTreeSet::new() }
    }

    fn write(&mut self, conn: &mut PgConnection) {
        let rows = [story(self.next_id), story(self.next_id + 1)];
        diesel::insert_into(stories::table).values(&rows[..]).execute(conn).expect("insert");
        self.inserted.extend(rows.iter().map(|row| row.id));
        self.next_id += 2;
        for shard in [1, 2] {
            let pick = format!(
                "SELECT id FROM stories_{shard} ORDER BY (id * 7919) % 1009, id LIMIT 1 OFFSET {}",
                self.step % 5
            );
            let Some(Id { id }) =
                diesel::sql_query(pick).get_result::<Id>(conn).optional().unwrap()
            else {
                continue;
            };
            let gone = diesel::delete(stories::table.find(id)).execute(conn).expect("delete");
            assert_eq!(gone, 1, "story {id} was deleted");
            self.deleted.insert(id);
        }
        self.step += 1;
    }
}

fn page(
    conn: &mut PgConnection,
    (order, dir): (RemoteStoryOrder, SortDirection),
    request: &PageRequest,
) -> Page<RemoteStory> {
    stories::table
        .select(RemoteStory::as_select())
        .paginate_by(order, Some(dir), request)
        .expect("a valid request")
        .load_page(conn)
        .unwrap_or_else(|err| panic!("a page through the coordinator failed: {err}"))
}

/// Walks forward from the first page (or back from the last), the writer writing after every
/// page; the rows in the walk's order, as declared (`dir`) when forward.
fn walk(
    conn: &mut PgConnection,
    order: (RemoteStoryOrder, SortDirection),
    limit: u32,
    backward: bool,
    writer: &mut Writer,
) -> Vec<RemoteStory> {
    let mut request = if backward { PageRequest::last(limit) } else { PageRequest::first(limit) };
    let mut pages = Vec::new();
    for _ in 0..MAX_PAGES {
        let page = page(conn, order, &request);
        writer.write(conn);
        let token = if backward { page.prev_cursor.clone() } else { page.next_cursor.clone() };
        if token.is_some() {
            assert_eq!(page.items.len(), limit as usize, "a page with a page beyond it is full");
        }
        pages.push(page.items);
        request = match token {
            Some(token) if backward => PageRequest::before(token, limit),
            Some(token) => PageRequest::after(token, limit),
            None if backward => return pages.into_iter().rev().flatten().collect(),
            None => return pages.into_iter().flatten().collect(),
        };
    }
    let (order, dir) = order;
    panic!("{order} {dir} limit {limit}, backward {backward}: no end after {MAX_PAGES} pages")
}

#[test]
fn walks_through_foreign_partitions_repeat_and_skip_nothing_beside_a_writer() {
    for layout in LAYOUTS {
        let (_guard, mut conn) = fixture(layout, SEED_ROWS, &[]);
        let mut next_id = SEED_ROWS + 1;
        let mut walks = 0;
        for (order, declared) in ORDERS {
            for dir in [declared, other(declared)] {
                for limit in LIMITS {
                    for backward in [false, true] {
                        let label =
                            format!("{layout:?} {order} {dir} limit {limit}, backward {backward}");
                        let before: Vec<RemoteStory> = stories::table
                            .select(RemoteStory::as_select())
                            .load(&mut conn)
                            .expect("the rows before the walk");
                        let mut writer = Writer::new(next_id);
                        let rows = walk(&mut conn, (order, dir), limit, backward, &mut writer);
                        next_id = writer.next_id;
                        let reversed = dir != declared;
                        for pair in rows.windows(2) {
                            assert_eq!(
                                compare(order, reversed, &pair[0], &pair[1]),
                                Ordering::Less,
                                "{label}: {:?} then {:?}, out of order or twice",
                                pair[0].id,
                                pair[1].id
                            );
                        }
                        let walked: BTreeSet<i64> = rows.iter().map(|row| row.id).collect();
                        assert_eq!(walked.len(), rows.len(), "{label}: a row came back twice");
                        let known: BTreeSet<i64> = before.iter().map(|row| row.id).collect();
                        let throughout: BTreeSet<i64> =
                            known.difference(&writer.deleted).copied().collect();
                        let missed: Vec<_> = throughout.difference(&walked).collect();
                        assert!(
                            missed.is_empty(),
                            "{label}: rows present throughout were skipped: {missed:?}"
                        );
                        let strangers: Vec<_> = walked
                            .iter()
                            .filter(|id| !known.contains(id) && !writer.inserted.contains(id))
                            .collect();
                        assert!(
                            strangers.is_empty(),
                            "{label}: rows that never existed: {strangers:?}"
                        );
                        assert!(!writer.deleted.is_empty() && !writer.inserted.is_empty());
                        walks += 1;
                    }
                }
            }
        }
        assert_eq!(walks, 24, "{layout:?}: every walk ran");
    }
}

/// The async path on diesel-async's connection pages as the sync one does, page for page, in
/// every order and direction: the same rows, the same tokens.
#[test]
fn the_async_path_pages_as_the_sync_one_through_the_coordinator() {
    use diesel_async::{AsyncConnection, AsyncPgConnection};

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    for layout in LAYOUTS {
        let (_guard, mut conn) = fixture(layout, SEED_ROWS, &[]);
        let mut async_conn = runtime
            .block_on(AsyncPgConnection::establish(&super::url(layout)))
            .expect("an async connection to the coordinator");
        for (order, declared) in ORDERS {
            for dir in [declared, other(declared)] {
                let mut request = PageRequest::first(40);
                let mut pages = 0;
                loop {
                    let sync = page(&mut conn, (order, dir), &request);
                    let query = stories::table.select(RemoteStory::as_select());
                    let paged = query.paginate_by(order, Some(dir), &request).expect("valid");
                    let awaited = runtime
                        .block_on(paged.load_page_async(&mut async_conn))
                        .unwrap_or_else(|err| panic!("an async page failed: {err}"));
                    assert_eq!(awaited, sync, "{layout:?} {order} {dir}: page {pages}");
                    pages += 1;
                    match sync.next_cursor {
                        Some(token) => request = PageRequest::after(token, 40),
                        None => break,
                    }
                }
                assert!(pages >= 10, "{layout:?} {order} {dir}: {pages} pages");
            }
        }
    }
}
