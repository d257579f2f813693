//! A page reads about its own rows, counted by PostgreSQL's statistics: the index entries its
//! statements' index scans returned (`pg_stat_user_indexes.idx_tup_read`, bitmap scans
//! included) and the rows its sequential scans read (`pg_stat_user_tables.seq_tup_read`), flushed
//! with `pg_stat_force_next_flush()`. `plan.rs` shows that a page's access is an index seek;
//! these counters fail when a page reads its cursor's tie group, the rows before its cursor, or
//! a bitmap scan's candidates to sort them (the pages: `keyset_tests::reads`), with fresh
//! statistics and without any (a temporary table is never analysed by autovacuum). Every page
//! here reads 21 or 22 entries. Not met on 5,000 rows never analysed: the first statement of the
//! NULLs (`rank IS NULL`, estimated at 25 rows without statistics where 500 match) is a bitmap
//! scan of all of them and a top-N sort, 504 entries read for the page that crosses into them;
//! with statistics, or on 20,000 rows without, it is the index seek.

use diesel::prelude::*;
use diesel::sql_types::BigInt;
use keyset_runtime::migration::Backend;
use keyset_runtime::{Keyset, Paginate};
use keyset_tests::assert_pages_read_their_rows;
use keyset_tests::models::{Newest, NewestIdAsc, RankDescNullsLast};
use keyset_tests::reads::ROWS;

use crate::suite::db;

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

#[test]
fn a_page_reads_about_its_own_rows() {
    let mut conn = db::seeded(ROWS);
    for index in [Newest::INDEXES, NewestIdAsc::INDEXES, RankDescNullsLast::INDEXES].concat() {
        // `IF NOT EXISTS`: the models share their feeds' prefix index.
        diesel::sql_query(index.create(Backend::Postgres)).execute(&mut conn).unwrap();
    }
    assert_pages_read_their_rows!(&mut conn, entries_read, "never analysed");
    diesel::sql_query("ANALYZE posts").execute(&mut conn).unwrap();
    assert_pages_read_their_rows!(&mut conn, entries_read, "analysed");
}
