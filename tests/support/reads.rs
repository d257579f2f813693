//! The pages whose reads the servers' own counters check (`tests/postgres/reads.rs` with
//! PostgreSQL's statistics, `tests/mysql/reads.rs` with MariaDB's handler counters), one list
//! for both: at deep cursors in uniform, mixed and nullable orders, into a nullable key's NULLs
//! and half-way through them, on [`ROWS`] posts with the orders' indexes.

/// The posts the counted pages are cut from: ties of about 1,500 rows on `created_at` and 3,000
/// on `rank`, 2,000 NULL ranks, last in `rank DESC NULLS LAST`.
pub const ROWS: i64 = 20_000;

/// Rows per counted page.
pub const LIMIT: u32 = 20;

/// Asserts that every counted page is full and reads at most its rows, its probe row and four
/// entries more (where a range or a statement starts), never a tie group, and more than its
/// rows, so that counters that count nothing fail too. `$read` gives what the connection's
/// statements have read so far (a running total); `$label` names the run in failures. The
/// caller brings `diesel::prelude::*` and `keyset_runtime::{Keyset, Paginate}` into scope.
#[macro_export]
macro_rules! assert_pages_read_their_rows {
    ($conn:expr, $read:expr, $label:expr) => {{
        use keyset_runtime::__testing::token;
        use keyset_runtime::{Direction, PageRequest};
        use $crate::models::{Newest, NewestIdAsc, RankDescNullsLast};
        use $crate::reads::{LIMIT, ROWS};
        use $crate::schema::posts;

        // The page of `LIMIT` rows after the row at `$at` of `$model`'s order, through
        // `load_page`: its row count, and what its statements read.
        macro_rules! page_reads {
            ($model:ty, $at:expr) => {{
                let rows: Vec<$model> = posts::table
                    .select(<$model>::as_select())
                    .order(<$model>::order_by())
                    .load($conn)
                    .unwrap();
                let cursor = rows[$at].cursor();
                let after =
                    token::encode(<$model>::FINGERPRINT, Direction::After, &cursor).unwrap();
                let before = $read($conn);
                let page = posts::table
                    .select(<$model>::as_select())
                    .paginate(&PageRequest::after(after, LIMIT))
                    .unwrap()
                    .load_page($conn)
                    .unwrap();
                (page.items.len(), $read($conn) - before)
            }};
        }

        let deep = ROWS as usize * 9 / 10;
        let nulls = (ROWS / 10) as usize;
        let cases = [
            ("uniform, deep", page_reads!(Newest, deep)),
            ("mixed, deep", page_reads!(NewestIdAsc, deep)),
            ("nullable, deep in the values", page_reads!(RankDescNullsLast, deep - nulls)),
            // The values' last rows, then the NULLs' first: two statements.
            ("nullable, into the NULLs", page_reads!(RankDescNullsLast, ROWS as usize - nulls - 5)),
            (
                "nullable, half-way through the NULLs",
                page_reads!(RankDescNullsLast, ROWS as usize - nulls / 2),
            ),
        ];
        let bound = i64::from(LIMIT + 1) + 4;
        for (case, (rows, read)) in cases {
            let label = $label;
            assert_eq!(rows, LIMIT as usize, "{label}, {case}: a full page");
            assert!(read <= bound, "{label}, {case}: {read} entries read for {rows} rows");
            assert!(read > rows as i64, "{label}, {case}: {read} entries counted for {rows} rows");
        }
    }};
}
