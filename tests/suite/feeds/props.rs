//! Property tests of feeds: generated tables (three authors, microsecond timestamp ties, NULLs),
//! generated sets (empty, repeated values, authors without posts) and page sizes. Every page of a
//! forward walk, of a backward walk and of a random walk mixing first, last, next and previous
//! pages is exactly the slice of the oracle, the rows among the set sorted in Rust, with a token
//! exactly where a neighbouring page exists.
//!
//! Cases per test: `PROPTEST_CASES`, else the suite's [`crate::PROPERTY_CASES`].

use diesel::prelude::*;
use keyset_runtime::{PageRequest, Paginate};
use keyset_tests::models::{NewestIdAsc, RankAscNullsFirst, RankDescNullsLast};
use keyset_tests::order::{key, plain};
use keyset_tests::schema::posts;
use proptest::prelude::*;

use crate::suite::props::{check_pages, fill, run, sorted, steps, table, Op, MAX_ROWS};

/// A set: the generated tables' authors (1 to 3), authors without posts, repeats, or none.
fn set() -> impl Strategy<Value = Vec<i64>> {
    let value = prop_oneof![6 => 1..=3i64, 1 => Just(0i64), 1 => 4..=9i64, 1 => Just(i64::MIN)];
    prop::collection::vec(value, 0..=6)
}

/// A page size: small ones cross many page boundaries, large ones hold the whole table.
fn limit() -> impl Strategy<Value = u32> {
    prop_oneof![3 => 1..=4u32, 2 => 1..=(MAX_ROWS as u32 + 5)]
}

/// A walk from the first page to the end and one from the last page to the start, in pages of
/// `forward` and `backward` rows: enough steps to reach the other end of any generated table.
fn end_to_end(forward: u32, backward: u32) -> [Vec<(Op, u32)>; 2] {
    let steps = MAX_ROWS + 1;
    [
        std::iter::once((Op::First, forward)).chain(vec![(Op::Next, forward); steps]).collect(),
        std::iter::once((Op::Last, backward)).chain(vec![(Op::Prev, backward); steps]).collect(),
    ]
}

/// Checks the walks of a feed of `$model` among `$set`, against its rows among the set sorted by
/// `$cmp`.
macro_rules! check_feed {
    ($conn:expr, $model:ty, $set:expr, $walks:expr, $cmp:expr) => {{
        let expected = sorted(
            $conn,
            posts::table
                .filter(posts::author_id.eq_any($set.clone()))
                .select(<$model>::as_select()),
            $cmp,
        );
        for walk in $walks {
            let load = |request: &PageRequest| {
                posts::table
                    .select(<$model>::as_select())
                    .among(posts::author_id, $set.clone())
                    .paginate(request)?
                    .max_limit(u32::MAX)
                    .load_page($conn)
            };
            check_pages(&expected, load, walk)?;
        }
    }};
}

/// Two keys in mixed directions (`created_at DESC, id ASC`), the timestamps tied to the
/// microsecond.
#[test]
fn a_feed_with_microsecond_ties_equals_the_oracle_page_for_page() {
    let walks = (limit(), limit(), steps());
    run((table(), set(), walks), |conn, (rows, set, (forward, backward, steps))| {
        fill(conn, &rows);
        let [to_end, to_start] = end_to_end(forward, backward);
        let cmp = |a: &NewestIdAsc, b: &NewestIdAsc| {
            plain(&a.published, &b.published, true).then(plain(&a.id, &b.id, false))
        };
        check_feed!(conn, NewestIdAsc, set, [&to_end, &to_start, &steps], cmp);
        Ok(())
    });
}

/// A nullable leading key in both placements: the walks cross the NULL boundary within the set.
#[test]
fn a_feed_over_a_nullable_key_equals_the_oracle_page_for_page() {
    let walks = (limit(), limit(), steps());
    run((table(), set(), walks), |conn, (rows, set, (forward, backward, steps))| {
        fill(conn, &rows);
        let [to_end, to_start] = end_to_end(forward, backward);
        let cmp = |a: &RankDescNullsLast, b: &RankDescNullsLast| {
            key(&a.rank, &b.rank, true, false).then(plain(&a.id, &b.id, true))
        };
        check_feed!(conn, RankDescNullsLast, set, [&to_end, &to_start], cmp);
        let cmp = |a: &RankAscNullsFirst, b: &RankAscNullsFirst| {
            key(&a.rank, &b.rank, false, true).then(plain(&a.id, &b.id, true))
        };
        check_feed!(conn, RankAscNullsFirst, set, [&steps], cmp);
        Ok(())
    });
}
