//! A page reads about its own rows, counted by MariaDB's handler counters: the index entries and
//! rows the statements of `load_page` read (`Handler_read_*`), and those that index condition
//! pushdown tested inside the engine and rejected, which the read counters leave out
//! (`Handler_icp_attempts` less `Handler_icp_match`). `plan.rs` shows that a page's access is
//! a range; these counters show that it stops where the page does, and fail when a page reads
//! its cursor's tie group (here about 1,500 rows) or the rows before its cursor.
//!
//! On these 20,000 rows MariaDB also seeks deep in a nullable key's NULLs (`x IS NULL AND id <
//! ?` as a range); on the orders bench's 1,000,000 it takes `ref` on `x IS NULL` there and tests
//! `id < ?` on every NULL before the cursor (`docs/performance.md`, what misses), which only an
//! index hint, which Diesel cannot write into a query's FROM, changes.

use diesel::prelude::*;
use diesel::sql_types::Text;
use keyset_runtime::__testing::token;
use keyset_runtime::migration::Backend;
use keyset_runtime::{Direction, Keyset, PageRequest, Paginate};
use keyset_tests::models::{Newest, NewestIdAsc, RankDescNullsLast};
use keyset_tests::schema::posts;

use crate::suite::db;

const ROWS: i64 = 20_000;
const LIMIT: u32 = 20;

#[derive(QueryableByName)]
struct Status {
    #[diesel(sql_type = Text, column_name = "Variable_name")]
    name: String,
    #[diesel(sql_type = Text, column_name = "Value")]
    value: String,
}

/// What the statements run since the last `FLUSH STATUS` read: index entries and rows handed
/// over, and the entries that index condition pushdown rejected inside the engine.
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
        diesel::sql_query("FLUSH STATUS").execute($conn).unwrap();
        let page = posts::table
            .select(<$model>::as_select())
            .paginate(&PageRequest::after(after, LIMIT))
            .unwrap()
            .load_page($conn)
            .unwrap();
        (page.items.len(), entries_read($conn))
    }};
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
    // The page's rows and its probe row, and an entry or two where a range or a statement
    // starts: never a tie group.
    let bound = i64::from(LIMIT + 1) + 4;
    let deep = ROWS as usize * 9 / 10;
    let nulls = (ROWS / 10) as usize;
    let cases = [
        ("uniform, deep", page_reads!(&mut conn, Newest, deep)),
        ("mixed, deep", page_reads!(&mut conn, NewestIdAsc, deep)),
        ("nullable, deep in the values", page_reads!(&mut conn, RankDescNullsLast, deep - nulls)),
        // The values' last rows, then the NULLs' first: two statements.
        (
            "nullable, into the NULLs",
            page_reads!(&mut conn, RankDescNullsLast, ROWS as usize - nulls - 5),
        ),
        ("nullable, half-way through the NULLs", {
            page_reads!(&mut conn, RankDescNullsLast, ROWS as usize - nulls / 2)
        }),
    ];
    for (case, (rows, read)) in cases {
        assert_eq!(rows, LIMIT as usize, "{case}: a full page");
        assert!(read <= bound, "{case}: {read} entries read for a page of {rows} rows");
        // The counters count: a page reads at least its rows.
        assert!(read > rows as i64, "{case}: {read} entries counted for {rows} rows");
    }
}
