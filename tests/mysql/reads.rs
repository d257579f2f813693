//! A page reads about its own rows, counted by MariaDB's handler counters: the index entries and
//! rows the statements of `load_page` read (`Handler_read_*`), and those that index condition
//! pushdown tested inside the engine and rejected, which the read counters leave out
//! (`Handler_icp_attempts` less `Handler_icp_match`). `plan.rs` shows that a page's access is
//! a range; these counters fail when a page reads its cursor's tie group or the rows before its
//! cursor (the pages: `keyset_tests::reads`). Every page here reads 21 to 23 entries.
//!
//! On these 20,000 rows MariaDB also seeks deep in a nullable key's NULLs (`x IS NULL AND id <
//! ?` as a range); on the orders bench's 1,000,000 it takes `ref` on `x IS NULL` there and tests
//! `id < ?` on every NULL before the cursor (`docs/performance.md`, what misses), which only an
//! index hint, which Diesel cannot write into a query's FROM, changes.

use diesel::prelude::*;
use diesel::sql_types::Text;
use keyset_runtime::migration::Backend;
use keyset_runtime::{Keyset, Paginate};
use keyset_tests::assert_pages_read_their_rows;
use keyset_tests::models::{Newest, NewestIdAsc, RankDescNullsLast};
use keyset_tests::reads::ROWS;

use crate::suite::db;

#[derive(QueryableByName)]
struct Status {
    #[diesel(sql_type = Text, column_name = "Variable_name")]
    name: String,
    #[diesel(sql_type = Text, column_name = "Value")]
    value: String,
}

/// What the connection's statements have read so far: index entries and rows handed over, and
/// the entries that index condition pushdown rejected inside the engine. (`SHOW STATUS` itself
/// counts none.)
fn entries_read(conn: &mut MysqlConnection) -> i64 {
    let status: Vec<Status> =
        diesel::sql_query("SHOW SESSION STATUS LIKE 'Handler\\_%'").load(conn).unwrap();
    let value = |name: &str| {
        status.iter().find(|s| s.name == name).map_or(0, |s| s.value.parse::<i64>().unwrap())
    };
    let reads: i64 = ["first", "key", "last", "next", "prev", "rnd", "rnd_next"]
        .iter()
        .map(|read| value(&format!("Handler_read_{read}")))
        .sum();
    reads + value("Handler_icp_attempts") - value("Handler_icp_match")
}

#[test]
fn a_page_reads_about_its_own_rows() {
    let mut conn = db::seeded(ROWS);
    for index in [Newest::INDEXES, NewestIdAsc::INDEXES, RankDescNullsLast::INDEXES].concat() {
        // The models share their feeds' prefix index, which the schema may hold already.
        let create =
            index.create(Backend::Mysql).replacen("CREATE INDEX", "CREATE INDEX IF NOT EXISTS", 1);
        diesel::sql_query(create).execute(&mut conn).unwrap();
    }
    diesel::sql_query("ANALYZE TABLE posts").execute(&mut conn).unwrap();
    assert_pages_read_their_rows!(&mut conn, entries_read, "analysed");
}
