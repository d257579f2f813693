//! The merge: the rows each shard fetched for the same page, one walk's worth each, put in the
//! model's order as one database holding them all would return them.
//!
//! Why one page from each shard is enough: every shard ran the same page after the same cursor
//! and fetched `limit + 1` rows (the probe row). The merged page's rows are the first `limit` of
//! the union past the cursor, and at most `limit` of them come from any one shard, so each lies
//! within its shard's fetch; and a row lies past the merged page exactly when more than `limit`
//! rows were fetched in all. A page number is the one position that needs more: page `n` takes
//! the first `n * limit + 1` rows of every shard (`Position::per_shard`).

use std::cmp::Ordering;

use super::keys::MergeKeys;
use crate::count::TotalCount;
use crate::error::Error;
use crate::fetched::Fetched;
use crate::orders::list::{Either, Never, Nil, OrderList};
use crate::orders::SortOrder;
use crate::position::Position;

/// A sort order whose keys compare in Rust as in the databases (see `Shardable`).
#[doc(hidden)]
pub trait MergeOrder: SortOrder {
    /// `a` against `b`, in the order.
    fn compare_keys(a: &Self::Keys, b: &Self::Keys) -> Ordering;
}

impl<O: SortOrder> MergeOrder for O
where
    O::Keys: MergeKeys<O::Row>,
{
    fn compare_keys(a: &O::Keys, b: &O::Keys) -> Ordering {
        a.compare(b)
    }
}

/// A list of orders that each merge shards' pages: what `Shardable` asks of a model's orders.
#[doc(hidden)]
pub trait MergeList: OrderList {
    /// [`OrderList::Fetched`], known to be `Send` when its rows are: what the shards' pages hand
    /// to the merge, awaited together.
    type Sendable<Item: Send>: Send;
    /// The rows one shard fetched, as [`Sendable`](Self::Sendable).
    fn sendable<Item: Send>(fetched: Self::Fetched<Item>) -> Self::Sendable<Item>;
    /// One page from the shards' fetches (in shard order) for the page of `limit` rows at
    /// `chosen`, once the first `skip` rows are dropped (see [`merge`]).
    fn merge<Item: Send>(
        chosen: Self::Chosen,
        shards: Vec<Self::Sendable<Item>>,
        limit: u32,
        skip: usize,
    ) -> Result<Self::Fetched<Item>, Error>;
}

impl<Row: 'static> MergeList for Nil<Row> {
    type Sendable<Item: Send> = Never;

    fn sendable<Item: Send>(fetched: Never) -> Never {
        fetched
    }

    fn merge<Item: Send>(chosen: Never, _: Vec<Never>, _: u32, _: usize) -> Result<Never, Error> {
        match chosen {}
    }
}

impl<O: MergeOrder, Rest: MergeList<Row = O::Row>> MergeList for (O, Rest) {
    type Sendable<Item: Send> = Either<Fetched<O, Item>, Rest::Sendable<Item>>;

    fn sendable<Item: Send>(fetched: Self::Fetched<Item>) -> Self::Sendable<Item> {
        match fetched {
            Either::Here(fetched) => Either::Here(fetched),
            Either::There(rest) => Either::There(Rest::sendable(rest)),
        }
    }

    fn merge<Item: Send>(
        chosen: Self::Chosen,
        shards: Vec<Self::Sendable<Item>>,
        limit: u32,
        skip: usize,
    ) -> Result<Self::Fetched<Item>, Error> {
        // Every shard fetched the chosen order's page: the same arm of the list.
        match chosen {
            Either::Here(position) => {
                let shards = shards.into_iter().map(|shard| match shard {
                    Either::Here(fetched) => Ok(fetched),
                    Either::There(_) => Err(other_order()),
                });
                let shards = shards.collect::<Result<Vec<_>, _>>()?;
                merge(position, (limit, skip), shards).map(Either::Here)
            }
            Either::There(rest) => {
                let shards = shards.into_iter().map(|shard| match shard {
                    Either::There(fetched) => Ok(fetched),
                    Either::Here(_) => Err(other_order()),
                });
                let shards = shards.collect::<Result<Vec<_>, _>>()?;
                Rest::merge(rest, shards, limit, skip).map(Either::There)
            }
        }
    }
}

/// A shard's rows of another order than the page's, which the merge is never given: every shard
/// runs the same page. The server's fault, so not the client's.
fn other_order() -> Error {
    Error::Database(diesel::result::Error::QueryBuilderError(
        "a shard fetched rows of another order than the page's".into(),
    ))
}

/// One page from the shards' fetches (in shard order, each in its walk's order), the page of
/// `limit` rows at `position` once the first `skip` rows are dropped: the rows in the walk's
/// order, the probe row included. Fails when rows of two shards have the same keys: the order
/// is then not total across the shards (a tiebreaker unique only within each), and the merged
/// pages would skip or repeat rows.
fn merge<M: MergeOrder, Item>(
    position: Position<M::Cursor>,
    (limit, skip): (u32, usize),
    shards: Vec<Fetched<M, Item>>,
) -> Result<Fetched<M, Item>, Error> {
    let Some(model) = shards.first().map(|fetched| fetched.model) else {
        return Err(Error::NoShards);
    };
    let backward = position.is_backward();
    let mut rows: Vec<(M::Keys, usize, Item)> = Vec::new();
    // Each shard counted its own rows, when a count was asked for: the listing's is their sum.
    let totals: Vec<TotalCount> = shards.iter().filter_map(|fetched| fetched.total).collect();
    let total = if totals.len() == shards.len() { TotalCount::sum(totals) } else { None };
    for (shard, fetched) in shards.into_iter().enumerate() {
        let cursor = |row: &Item| M::cursor((fetched.model)(row));
        rows.extend(fetched.rows.into_iter().map(|row| (M::keys(cursor(&row)), shard, row)));
    }
    let walk = |a: &M::Keys, b: &M::Keys| -> Ordering {
        let order = M::compare_keys(a, b);
        if backward {
            order.reverse()
        } else {
            order
        }
    };
    // Each shard's rows are already in order: the sort merges the runs.
    rows.sort_by(|(a, _, _), (b, _, _)| walk(a, b));
    for pair in rows.windows(2) {
        let ((a, shard_a, _), (b, shard_b, _)) = (&pair[0], &pair[1]);
        if shard_a != shard_b && walk(a, b) == Ordering::Equal {
            return Err(Error::ShardKeysCollide {
                sort_order: M::SORT_ORDER,
                shards: (*shard_a.min(shard_b), *shard_a.max(shard_b)),
            });
        }
    }
    let rows = rows.into_iter().skip(skip).take(limit as usize + 1).map(|(_, _, row)| row);
    Ok(Fetched { position, model, limit, rows: rows.collect(), total })
}
