//! The listing every cluster pages: [`RemoteStory`] over the suites' `stories` table, its rows
//! ([`story`]), the oracle of its orders ([`compare`]), and how a cluster spreads it over its
//! shards ([`Layout`]).

use std::cmp::Ordering;
use std::sync::{Mutex, MutexGuard};

use chrono::NaiveDateTime;
use diesel::prelude::*;
use keyset_runtime::{Keyset, SortDirection};
use keyset_tests::order::{key, plain};
use keyset_tests::schema::stories;
use keyset_tests::seed::timestamp;

/// The listing read through the cluster, as an application declares it: uniform, mixed and
/// nullable-leading named orders; `paginate` pages in `new`. `postgres_fdw`: through a
/// PostgreSQL coordinator no order compares a row value, which postgres_fdw would not send on;
/// `spider`: through a Spider head node each statement seeks one range. Each changes nothing on
/// the other engine.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = stories)]
#[keyset(postgres_fdw, spider)]
#[keyset(order(new: created_at desc, id desc), order(mixed: score asc, created_at desc, id asc))]
#[keyset(order(due: published_at asc nulls last, id asc))]
pub struct RemoteStory {
    #[tiebreaker]
    pub id: i64,
    pub created_at: NaiveDateTime,
    pub score: i32,
    pub title: String,
    pub published_at: Option<NaiveDateTime>,
}

#[derive(Insertable, Debug, Clone)]
#[diesel(table_name = stories)]
pub struct NewStory {
    pub id: i64,
    pub created_at: NaiveDateTime,
    pub score: i32,
    pub title: String,
    pub published_at: Option<NaiveDateTime>,
}

/// The story with the given id: 13 timestamps (heavy ties on `created_at`), 4 scores, about one
/// in nine unpublished (NULL).
pub fn story(id: i64) -> NewStory {
    NewStory {
        id,
        created_at: timestamp((id * 7) % 13),
        score: (id % 4) as i32,
        title: format!("story {id:05}"),
        published_at: (id % 9 != 0).then(|| timestamp((id * 5) % 11)),
    }
}

/// The rows the walks' tables are seeded with.
pub const SEED_ROWS: i64 = 400;
/// The rows the plans' tables are seeded with: tie groups of 1,000 rows. With a few rows per
/// group, a postgres_fdw coordinator may sort a level's rows itself rather than have each shard
/// send them in order.
pub const PLAN_ROWS: i64 = 13_000;

/// The orders, each with its declared direction (that of its first key).
pub const ORDERS: [(RemoteStoryOrder, SortDirection); 3] = [
    (RemoteStoryOrder::New, SortDirection::Desc),
    (RemoteStoryOrder::Mixed, SortDirection::Asc),
    (RemoteStoryOrder::Due, SortDirection::Asc),
];

/// Each order in both directions: the declared one first.
pub fn orders_both_ways() -> impl Iterator<Item = (RemoteStoryOrder, SortDirection, bool)> {
    ORDERS.into_iter().flat_map(|(order, declared)| {
        let other = match declared {
            SortDirection::Asc => SortDirection::Desc,
            SortDirection::Desc => SortDirection::Asc,
        };
        [(order, declared, false), (order, other, true)]
    })
}

/// The oracle: `a` against `b` in `order` as declared, every key flipped when `reversed`.
pub fn compare(
    order: RemoteStoryOrder,
    reversed: bool,
    a: &RemoteStory,
    b: &RemoteStory,
) -> Ordering {
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

/// How a cluster's `stories` is partitioned over its two shards, each layout in a database of its
/// own on every server.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Layout {
    /// By hash of the id: every page reads both shards.
    Hashed,
    /// By range of `created_at`, split at [`split`]: a page behind the split reads one shard.
    Ranged,
}

pub const LAYOUTS: [Layout; 2] = [Layout::Hashed, Layout::Ranged];

impl Layout {
    /// The database on every server.
    pub fn database(self) -> &'static str {
        match self {
            Layout::Hashed => "hashed",
            Layout::Ranged => "ranged",
        }
    }
}

/// Where [`Layout::Ranged`] splits `created_at`, as SQL writes it: the stories of the first six
/// timestamps are on shard 1, the rest on shard 2.
pub fn split() -> String {
    timestamp(6).format("%Y-%m-%d %H:%M:%S%.6f").to_string()
}

/// One fixture at a time: the tests share the servers' tables.
static LOCK: Mutex<()> = Mutex::new(());

pub fn lock() -> MutexGuard<'static, ()> {
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The environment variable `name`, which `script` sets.
pub fn var(name: &str, script: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} is not set: run {script}"))
}

/// `url` with its database replaced by `database`.
pub fn url_of(url: &str, database: &str) -> String {
    let server = url.rsplit_once('/').map_or(url, |(server, _)| server);
    format!("{server}/{database}")
}

/// The ports of a list `port,port`.
pub fn ports(list: &str) -> Vec<u16> {
    list.split(',').map(|port| port.parse().expect("a port")).collect()
}
