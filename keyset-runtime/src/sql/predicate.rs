//! The rows past a cursor's values as one SQL predicate, in the shape each backend seeks best
//! (see the module docs of `sql`): what a cursor's [`Seek`](super::Seek) and a start's
//! [`SeekLevel`](super::SeekLevel) both write.

use diesel::backend::Backend;
use diesel::query_builder::AstPass;
use diesel::QueryResult;

use super::dialect::SeekDialect;
use super::keys::{Region, SeekKeys, Stop};

/// The rows past `keys`' values as `stop` says, in the walk (`backward`) within `region`, as
/// one predicate in the shape `DB` seeks best: a cursor's [`Seek`], and a start's
/// (`SeekLevel::start`). Without `row_values` (an order read through postgres_fdw,
/// `SortOrder::POSTGRES_FDW`), the OR expansion where `DB` would compare a row value.
pub(super) fn walk_seek<'b, DB, K>(
    keys: &'b K,
    mut out: AstPass<'_, 'b, DB>,
    (backward, region, row_values): (bool, Region, bool),
    stop: Stop,
) -> QueryResult<()>
where
    DB: Backend + SeekDialect,
    K: SeekKeys<DB>,
{
    // Parenthesised as a whole, so it composes with any user filter (`.or_filter()` too).
    out.push_sql("(");
    let compared = stop.keys(K::LEN);
    let uniform = K::ALL_ASC || K::ALL_DESC;
    // Among a nullable leading key's values no NULL can match: a row value is exact there.
    let values = region == Region::Cursor
        && !keys.leading_is_null()
        && (K::VALUES_ALL_ASC || K::VALUES_ALL_DESC);
    if region == Region::Next {
        keys.walk_next_region(out.reborrow())?;
    } else if compared == K::LEN
        && compared > 1
        && (uniform || values)
        && DB::ROW_VALUES
        && row_values
    {
        // The leading bound beside the row value: PostgreSQL prunes partitions on
        // `created_at <= ?` (at plan time, or at executor start under a generic plan), not on a
        // row comparison, which visits every partition on the cursor's far side.
        if DB::LEADING_BOUND && keys.walk_leading_bound(out.reborrow(), backward, region, stop)? {
            out.push_sql(" AND ");
        }
        out.push_sql("(");
        keys.walk_columns(out.reborrow())?;
        let desc = K::VALUES_ALL_DESC && !K::VALUES_ALL_ASC;
        out.push_sql(match (desc != backward, stop.inclusive) {
            (true, false) => ") < (",
            (true, true) => ") <= (",
            (false, false) => ") > (",
            (false, true) => ") >= (",
        });
        keys.walk_values(out.reborrow())?;
        out.push_sql(")");
    } else {
        if compared > 1
            && DB::LEADING_BOUND
            && keys.walk_leading_bound(out.reborrow(), backward, region, stop)?
        {
            out.push_sql(" AND ");
        }
        keys.walk_chain(out.reborrow(), backward, region, stop)?;
    }
    if DB::NULL_REGION_RANGE && among_nulls(keys, backward, region) {
        // A disjunct that holds for no row, so that `x IS NULL` is no longer a conjunct of the
        // whole predicate (see `SeekDialect::NULL_REGION_RANGE`).
        out.push_sql(" OR ");
        keys.walk_leading(out.reborrow())?;
        out.push_sql(" < NULL");
    }
    out.push_sql(")");
    Ok(())
}

/// Whether every row the predicate of `keys` in `region` selects is NULL on a nullable leading
/// key: the cursor's region after a NULL cursor, or the next region after a value.
fn among_nulls<DB, K>(keys: &K, backward: bool, region: Region) -> bool
where
    DB: Backend + SeekDialect,
    K: SeekKeys<DB>,
{
    match region {
        Region::Next => K::LEADING_NULLABLE && !keys.leading_is_null(),
        Region::Cursor => keys.leading_is_null(),
        Region::Whole => keys.leading_is_null() && !keys.has_next_region(backward),
    }
}
