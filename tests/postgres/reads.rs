//! A page reads about its own rows, counted by PostgreSQL's statistics: the index entries its
//! statements' index scans returned (`pg_stat_user_indexes.idx_tup_read`, bitmap scans
//! included) and the rows its sequential scans read (`pg_stat_user_tables.seq_tup_read`), flushed
//! with `pg_stat_force_next_flush()`. `plan.rs` shows that a page's access is an index seek;
//! these counters fail when a page reads its cursor's tie group (here about 1,500 rows), the rows
//! before its cursor, or a bitmap scan's candidates to sort them, with fresh statistics and
//! without any (a temporary table is never analysed by autovacuum). Every page here reads 21 or
//! 22 entries. Not met on 5,000 rows never analysed: the first statement of the NULLs (`rank IS
//! NULL`, estimated at 25 rows without statistics where 500 match) is a bitmap scan of all of
//! them and a top-N sort, 504 entries read for the page that crosses into them; with
//! statistics, or on 20,000 rows without, it is the index seek.

use diesel::prelude::*;
use diesel::sql_types::BigInt;
use keyset_runtime::__testing::token;
use keyset_runtime::migration::Backend;
use keyset_runtime::{Direction, Keyset, PageRequest, Paginate};
use keyset_tests::models::{Newest, NewestIdAsc, RankDescNullsLast};
use keyset_tests::schema::posts;

use crate::suite::db;

const ROWS: i64 = 20_000;
const LIMIT: u32 = 20;

#[derive(QueryableByName)]
struct Read {
    #[diesel(sql_type = BigInt)]
    entries: i64,
}

/// The index entries and table rows read from `posts` so far, by this connection's statements
/// included: its pending statistics flushed first.
fn entries_read(conn: &mut PgConnection) -> i64 {
    diesel::sql_query("SELECT pg_stat_force_next_flush()").execute(conn).unwrap();
    // The flush happens at the end of a transaction: this statement's.
    diesel::sql_query("SELECT 1").execute(conn).unwrap();
    diesel::sql_query("SELECT pg_stat_clear_snapshot()").execute(conn).unwrap();
    let read: Read = diesel::sql_query(
        "SELECT (SELECT COALESCE(sum(idx_tup_read), 0) FROM pg_stat_user_indexes \
                 WHERE relid = 'posts'::regclass)::bigint \
              + (SELECT COALESCE(seq_tup_read, 0) FROM pg_stat_user_tables \
                 WHERE relid = 'posts'::regclass)::bigint AS entries",
    )
    .get_result(conn)
    .unwrap();
    read.entries
}

/// The page of `LIMIT` rows after the row at `$at` of `$model`'s order, through `load_page`:
/// its row count, and what its statements read.
macro_rules! page_reads {
    ($conn:expr, $model:ty, $at:expr) => {{
        let rows: Vec<$model> = posts::table
            .select(<$model>::as_select())
            .order(<$model>::order_by())
            .load($conn)
            .unwrap();
        let cursor = rows[$at].cursor();
        let after = token::encode(<$model>::FINGERPRINT, Direction::After, &cursor).unwrap();
        let before = entries_read($conn);
        let page = posts::table
            .select(<$model>::as_select())
            .paginate(&PageRequest::after(after, LIMIT))
            .unwrap()
            .load_page($conn)
            .unwrap();
        (page.items.len(), entries_read($conn) - before)
    }};
}

fn assert_pages_read_their_rows(conn: &mut PgConnection, statistics: &str) {
    // The page's rows and its probe row, and an entry or two where a range or a statement
    // starts: never a tie group.
    let bound = i64::from(LIMIT + 1) + 4;
    let deep = ROWS as usize * 9 / 10;
    let nulls = (ROWS / 10) as usize;
    let cases = [
        ("uniform, deep", page_reads!(conn, Newest, deep)),
        ("mixed, deep", page_reads!(conn, NewestIdAsc, deep)),
        ("nullable, deep in the values", page_reads!(conn, RankDescNullsLast, deep - nulls)),
        // The values' last rows, then the NULLs' first: two statements.
        (
            "nullable, into the NULLs",
            page_reads!(conn, RankDescNullsLast, ROWS as usize - nulls - 5),
        ),
        ("nullable, half-way through the NULLs", {
            page_reads!(conn, RankDescNullsLast, ROWS as usize - nulls / 2)
        }),
    ];
    for (case, (rows, read)) in cases {
        assert_eq!(rows, LIMIT as usize, "{statistics}, {case}: a full page");
        assert!(
            read <= bound,
            "{statistics}, {case}: {read} entries read for a page of {rows} rows"
        );
        // The counters count: a page reads at least its rows.
        assert!(read > rows as i64, "{statistics}, {case}: {read} entries counted for {rows} rows");
    }
}

#[test]
fn a_page_reads_about_its_own_rows() {
    let mut conn = db::seeded(ROWS);
    for index in [Newest::INDEXES, NewestIdAsc::INDEXES, RankDescNullsLast::INDEXES].concat() {
        // `IF NOT EXISTS`: the models share their feeds' prefix index.
        diesel::sql_query(index.create(Backend::Postgres)).execute(&mut conn).unwrap();
    }
    assert_pages_read_their_rows(&mut conn, "never analysed");
    diesel::sql_query("ANALYZE posts").execute(&mut conn).unwrap();
    assert_pages_read_their_rows(&mut conn, "analysed");
}
