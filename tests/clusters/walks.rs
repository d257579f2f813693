//! Exact walks through a cluster, written once over [`Cluster`]: in every named order of
//! [`RemoteStory`], as declared and reversed, forward to the end and back from the end, pages of
//! 7 and 40, while a writer inserts rows and deletes one from each shard between every two
//! pages. Every row present throughout a walk comes back exactly once, none twice, all in the
//! order. And the async path gives the same pages and tokens as the sync one.

use std::cmp::Ordering;
use std::collections::BTreeSet;

use keyset_runtime::{Page, PageRequest};

use crate::listing::{compare, orders_both_ways, story, NewStory, RemoteStory, RemoteStoryOrder};

const LIMITS: [u32; 2] = [7, 40];
/// A walk that takes more pages is going round in circles.
const MAX_PAGES: usize = 1_000;
/// The shards of every cluster.
const SHARDS: [usize; 2] = [1, 2];

/// A connection to a cluster's one endpoint: the listing's pages and the writer's statements,
/// the same Diesel code on every backend ([`cluster_statements!`]) but for where a shard's rows
/// are read.
pub trait Cluster {
    fn page(
        &mut self,
        order: (RemoteStoryOrder, keyset_runtime::SortDirection),
        request: &PageRequest,
    ) -> Page<RemoteStory>;
    fn rows(&mut self) -> Vec<RemoteStory>;
    fn insert(&mut self, rows: &[NewStory]);
    /// Deletes the row of `id`; whether it is gone.
    fn delete(&mut self, id: i64) -> bool;
    /// The `step`-th of shard `shard`'s rows in an order of no key of the listing's, if any.
    fn row_of_shard(&mut self, shard: usize, step: i64) -> Option<i64>;
}

/// The [`Cluster`] functions that are the same Diesel code on every backend, written out in an
/// `impl Cluster` (whose connection is concrete, so no Diesel bounds are spelled out).
macro_rules! cluster_statements {
    () => {
        fn page(
            &mut self,
            (order, dir): (crate::listing::RemoteStoryOrder, keyset_runtime::SortDirection),
            request: &keyset_runtime::PageRequest,
        ) -> keyset_runtime::Page<crate::listing::RemoteStory> {
            use diesel::prelude::*;
            use keyset_runtime::Paginate;
            keyset_tests::schema::stories::table
                .select(crate::listing::RemoteStory::as_select())
                .paginate_by(order, Some(dir), request)
                .expect("a valid request")
                // A deep page's rows in one: the tests choose the limits.
                .max_limit(u32::MAX)
                .load_page(self)
                .unwrap_or_else(|err| panic!("a page through the cluster failed: {err}"))
        }

        fn rows(&mut self) -> Vec<crate::listing::RemoteStory> {
            use diesel::prelude::*;
            keyset_tests::schema::stories::table
                .select(crate::listing::RemoteStory::as_select())
                .load(self)
                .expect("the rows")
        }

        fn insert(&mut self, rows: &[crate::listing::NewStory]) {
            use diesel::prelude::*;
            diesel::insert_into(keyset_tests::schema::stories::table)
                .values(rows)
                .execute(self)
                .expect("insert");
        }

        fn delete(&mut self, id: i64) -> bool {
            use diesel::prelude::*;
            use keyset_tests::schema::stories;
            diesel::delete(stories::table.find(id)).execute(self).expect("delete");
            // Read back: Spider reports no affected rows for a delete it sends a data node.
            stories::table.find(id).count().get_result::<i64>(self).expect("count") == 0
        }
    };
}
pub(crate) use cluster_statements;

/// One page through the async path on diesel-async's connection `conn`, blocking on `runtime`:
/// what [`async_pages_as_sync`] compares with the sync page, on every backend.
macro_rules! async_page {
    ($runtime:expr, $conn:expr, ($order:expr, $dir:expr), $request:expr) => {{
        use diesel::prelude::*;
        use keyset_runtime::Paginate;
        let paged = keyset_tests::schema::stories::table
            .select(crate::listing::RemoteStory::as_select())
            .paginate_by($order, Some($dir), $request)
            .expect("a valid request");
        $runtime
            .block_on(paged.load_page_async($conn))
            .unwrap_or_else(|err| panic!("an async page failed: {err}"))
    }};
}
pub(crate) use async_page;

/// Between every two pages: two stories inserted (wherever the cluster puts them), and one
/// deleted from each shard, read for it through the cluster: the table keeps its size however
/// long the walk.
struct Writer {
    next_id: i64,
    step: i64,
    inserted: BTreeSet<i64>,
    deleted: BTreeSet<i64>,
}

impl Writer {
    fn write(&mut self, cluster: &mut impl Cluster) {
        let rows = [story(self.next_id), story(self.next_id + 1)];
        cluster.insert(&rows);
        self.inserted.extend(rows.iter().map(|row| row.id));
        self.next_id += 2;
        for shard in SHARDS {
            if let Some(id) = cluster.row_of_shard(shard, self.step % 5) {
                assert!(cluster.delete(id), "story {id} was deleted");
                self.deleted.insert(id);
            }
        }
        self.step += 1;
    }
}

/// Walks forward from the first page (or back from the last), the writer writing after every
/// page; the rows in the order asked for.
fn walk(
    cluster: &mut impl Cluster,
    order: (RemoteStoryOrder, keyset_runtime::SortDirection),
    (limit, backward): (u32, bool),
    writer: &mut Writer,
) -> Vec<RemoteStory> {
    let mut request = if backward { PageRequest::last(limit) } else { PageRequest::first(limit) };
    let mut pages = Vec::new();
    for _ in 0..MAX_PAGES {
        let page = cluster.page(order, &request);
        writer.write(cluster);
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

/// Every walk on `cluster`, seeded with rows `1..next_id`, each checked against the rows before
/// it and what the writer did meanwhile.
pub fn walks_repeat_and_skip_nothing(cluster: &mut impl Cluster, mut next_id: i64, label: &str) {
    let mut walks = 0;
    for (order, dir, reversed) in orders_both_ways() {
        for limit in LIMITS {
            for backward in [false, true] {
                let label = format!("{label}: {order} {dir} limit {limit}, backward {backward}");
                let known: BTreeSet<i64> = cluster.rows().iter().map(|row| row.id).collect();
                let mut writer = Writer {
                    next_id,
                    step: 0,
                    inserted: BTreeSet::new(),
                    deleted: BTreeSet::new(),
                };
                let rows = walk(cluster, (order, dir), (limit, backward), &mut writer);
                next_id = writer.next_id;
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
                assert!(strangers.is_empty(), "{label}: rows that never existed: {strangers:?}");
                assert!(
                    writer.deleted.len() >= 2 * SHARDS.len() && !writer.inserted.is_empty(),
                    "{label}: the writer deleted {:?} on the shards",
                    writer.deleted
                );
                walks += 1;
            }
        }
    }
    assert_eq!(walks, 24, "{label}: every walk ran");
}

/// Pages forward through `cluster` in every order and direction, each page loaded again by
/// `load_async` (the async path on diesel-async's connection to the same endpoint), which must
/// give the same rows and tokens.
pub fn async_pages_as_sync(
    cluster: &mut impl Cluster,
    label: &str,
    mut load_async: impl FnMut(
        (RemoteStoryOrder, keyset_runtime::SortDirection),
        &PageRequest,
    ) -> Page<RemoteStory>,
) {
    for (order, dir, _) in orders_both_ways() {
        let mut request = PageRequest::first(40);
        let mut pages = 0;
        loop {
            let sync = cluster.page((order, dir), &request);
            assert_eq!(
                load_async((order, dir), &request),
                sync,
                "{label}: {order} {dir}, page {pages}"
            );
            pages += 1;
            match sync.next_cursor {
                Some(token) => request = PageRequest::after(token, 40),
                None => break,
            }
        }
        assert!(pages >= 10, "{label}: {order} {dir}: {pages} pages");
    }
}

/// The requests for the page after the `depth`-th row of a walk of `cluster` in `order`, and
/// for the page before that one, pages of 20.
pub fn deep_requests(
    cluster: &mut impl Cluster,
    order: (RemoteStoryOrder, keyset_runtime::SortDirection),
    depth: u32,
) -> [PageRequest; 2] {
    let first = cluster.page(order, &PageRequest::first(depth));
    let after = PageRequest::after(first.next_cursor.expect("a deep page"), 20);
    let before = cluster.page(order, &after).prev_cursor.expect("a page before");
    [after, PageRequest::before(before, 20)]
}
