//! With the index the sort order asks for (MariaDB honours DESC in indexes since 10.8), a page at
//! a deep cursor is a `range` access without filesort, for uniform and mixed directions.

use diesel::prelude::*;
use keyset_runtime::explain::mysql_index_seek;
use keyset_runtime::Keyset;
use keyset_tests::models::{Newest, NewestIdAsc};
use keyset_tests::schema::posts;

use crate::suite::db;

const ROWS: i64 = 30_000;

fn execute(conn: &mut MysqlConnection, sql: &str) {
    diesel::sql_query(sql).execute(conn).unwrap_or_else(|err| panic!("{sql}: {err}"));
}

#[test]
fn deep_pages_are_range_scans_without_filesort() {
    let mut conn = db::seeded(ROWS);
    execute(&mut conn, "CREATE INDEX posts_newest ON posts (created_at DESC, id DESC)");
    execute(&mut conn, "CREATE INDEX posts_newest_id_asc ON posts (created_at DESC, id ASC)");
    execute(&mut conn, "ANALYZE TABLE posts");

    let rows =
        posts::table.select(Newest::as_select()).order(Newest::order_by()).load(&mut conn).unwrap();
    let deep = rows[ROWS as usize * 9 / 10].cursor();
    let after = posts::table
        .select(Newest::as_select())
        .filter(Newest::after(&deep))
        .order(Newest::order_by())
        .limit(21);
    let plan = mysql_index_seek(&after, &mut conn).unwrap();
    assert!(plan.iter().any(|line| line.contains("posts_newest\"")), "{plan:#?}");
    let before = posts::table
        .select(Newest::as_select())
        .filter(Newest::before(&deep))
        .order(Newest::reverse_order_by())
        .limit(21);
    mysql_index_seek(&before, &mut conn).unwrap();

    let rows = posts::table
        .select(NewestIdAsc::as_select())
        .order(NewestIdAsc::order_by())
        .load(&mut conn)
        .unwrap();
    let deep = rows[ROWS as usize * 9 / 10].cursor();
    let mixed = posts::table
        .select(NewestIdAsc::as_select())
        .filter(NewestIdAsc::after(&deep))
        .order(NewestIdAsc::order_by())
        .limit(21);
    let plan = mysql_index_seek(&mixed, &mut conn).unwrap();
    assert!(plan.iter().any(|line| line.contains("posts_newest_id_asc")), "{plan:#?}");
}

#[test]
fn a_missing_index_is_reported_with_the_plan() {
    let mut conn = db::seeded(2_000);
    let rows =
        posts::table.select(Newest::as_select()).order(Newest::order_by()).load(&mut conn).unwrap();
    let page = posts::table
        .select(Newest::as_select())
        .filter(Newest::after(&rows[1_500].cursor()))
        .order(Newest::order_by())
        .limit(21);
    let err = mysql_index_seek(&page, &mut conn).unwrap_err();
    assert!(err.to_string().contains("filesort"), "{err}");
}

/// A page at a row given by its id is the same range scan as a page at a token: MariaDB reads
/// the row's values by primary key while it plans (`const` subqueries) and seeks the order's
/// index with them, in uniform and mixed directions.
#[test]
fn a_page_at_a_row_id_is_a_range_scan_as_a_token_page() {
    use keyset_runtime::__testing::sql::{at_row_id, Forward};

    let mut conn = db::seeded(ROWS);
    execute(&mut conn, "CREATE INDEX posts_newest ON posts (created_at DESC, id DESC)");
    execute(&mut conn, "CREATE INDEX posts_newest_id_asc ON posts (created_at DESC, id ASC)");
    execute(&mut conn, "ANALYZE TABLE posts");
    let id = ROWS / 10;

    let uniform = posts::table
        .select(Newest::as_select())
        .filter(at_row_id::<Newest, Forward>(id, None))
        .order(Newest::order_by())
        .limit(21);
    let plan = mysql_index_seek(&uniform, &mut conn).unwrap();
    assert!(plan.iter().any(|line| line.contains("posts_newest\"")), "{plan:#?}");
    let mixed = posts::table
        .select(NewestIdAsc::as_select())
        .filter(at_row_id::<NewestIdAsc, Forward>(id, None))
        .order(NewestIdAsc::order_by())
        .limit(21);
    let plan = mysql_index_seek(&mixed, &mut conn).unwrap();
    assert!(plan.iter().any(|line| line.contains("posts_newest_id_asc")), "{plan:#?}");
}
