//! The merge: the rows each shard fetched for the same page, one walk's worth each, put in the
//! model's order as one database holding them all would return them.
//!
//! Why one page from each shard is enough: every shard ran the same page after the same cursor
//! and fetched `limit + 1` rows (the probe row). The merged page's rows are the first `limit` of
//! the union past the cursor, and at most `limit` of them come from any one shard, so each lies
//! within its shard's fetch; and a row lies past the merged page exactly when more than `limit`
//! rows were fetched in all. A page number is the one position that needs more: page `n` takes
//! the first `n * limit + 1` rows of every shard ([`per_shard`]).

use std::cmp::Ordering;

use super::order::Shardable;
use crate::fetched::Fetched;
use crate::position::Position;
use crate::request::RequestError;
use crate::Error;

/// What each shard fetches for the page of `limit` rows at `position`: the same position and
/// limit, except for page `n`, which is the first `n * limit` rows of each shard, of which the
/// merge drops the first `(n - 1) * limit` (the third value).
pub(crate) fn per_shard<C: Clone>(
    position: &Position<C>,
    limit: u32,
) -> Result<(Position<C>, u32, usize), RequestError> {
    Ok(match *position {
        Position::Number(number) => {
            let rows = number
                .checked_mul(limit)
                .ok_or(RequestError::PageNumberTooLarge { number, limit })?;
            (Position::First, rows, (rows - limit) as usize)
        }
        _ => (position.clone(), limit, 0),
    })
}

/// One page from the shards' fetches (in shard order, each in its walk's order), the page of
/// `limit` rows at `position` once the first `skip` rows are dropped: the rows in the walk's
/// order, the probe row included. Fails when rows of two shards have the same keys: the order
/// is then not total across the shards (a tiebreaker unique only within each), and the merged
/// pages would skip or repeat rows.
pub(crate) fn merge<M: Shardable, Item>(
    position: Position<M::Cursor>,
    (limit, skip): (u32, usize),
    shards: Vec<Fetched<M, Item>>,
) -> Result<Fetched<M, Item>, Error> {
    let Some(model) = shards.first().map(|fetched| fetched.model) else {
        return Err(Error::NoShards);
    };
    let backward = position.is_backward();
    let mut rows: Vec<(M::Keys, usize, Item)> = Vec::new();
    for (shard, fetched) in shards.into_iter().enumerate() {
        rows.extend(
            fetched
                .rows
                .into_iter()
                .map(|row| (M::keys((fetched.model)(&row).cursor()), shard, row)),
        );
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
    Ok(Fetched { position, model, limit, rows: rows.collect() })
}
