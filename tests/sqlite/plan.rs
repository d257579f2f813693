//! With the index the derive's order asks for, every page is an index SEARCH with no sort, at
//! the start, deep in the table and going backward.

use diesel::prelude::*;
use keyset_runtime::plan::sqlite_index_seek;
use keyset_runtime::Keyset;
use keyset_tests::models::{Newest, NewestIdAsc};
use keyset_tests::schema::posts;

use crate::db;

#[test]
fn pages_are_index_searches_in_both_directions() {
    let mut conn = db::seeded(20_000);
    diesel::sql_query("CREATE INDEX posts_newest ON posts (created_at DESC, id DESC)")
        .execute(&mut conn)
        .unwrap();
    diesel::sql_query("CREATE INDEX posts_newest_id_asc ON posts (created_at DESC, id ASC)")
        .execute(&mut conn)
        .unwrap();
    diesel::sql_query("ANALYZE").execute(&mut conn).unwrap();

    let rows =
        posts::table.select(Newest::as_select()).order(Newest::order_by()).load(&mut conn).unwrap();
    let deep = rows[19_000].cursor();
    let after = posts::table
        .select(Newest::as_select())
        .filter(Newest::after(&deep))
        .order(Newest::order_by())
        .limit(21);
    let plan = sqlite_index_seek(&after, &mut conn).unwrap();
    assert!(plan.iter().any(|step| step.contains("posts_newest")), "{plan:?}");
    let before = posts::table
        .select(Newest::as_select())
        .filter(Newest::before(&deep))
        .order(Newest::reverse_order_by())
        .limit(21);
    sqlite_index_seek(&before, &mut conn).unwrap();

    let rows = posts::table
        .select(NewestIdAsc::as_select())
        .order(NewestIdAsc::order_by())
        .load(&mut conn)
        .unwrap();
    let deep = rows[19_000].cursor();
    let mixed = posts::table
        .select(NewestIdAsc::as_select())
        .filter(NewestIdAsc::after(&deep))
        .order(NewestIdAsc::order_by())
        .limit(21);
    let plan = sqlite_index_seek(&mixed, &mut conn).unwrap();
    assert!(plan.iter().any(|step| step.contains("posts_newest_id_asc")), "{plan:?}");
}

#[test]
fn a_missing_index_is_reported_with_the_plan() {
    let mut conn = db::seeded(200);
    let first = posts::table.select(Newest::as_select()).order(Newest::order_by()).limit(21);
    let err = sqlite_index_seek(&first, &mut conn).unwrap_err();
    assert!(err.to_string().contains("TEMP B-TREE"), "{err}");
}

/// At a cursor just before a nullable leading key's NULL boundary, both seeks of the page (the
/// rest of the values, then the NULLs) are index searches without a sort.
#[test]
fn both_null_regions_are_index_searches() {
    use keyset_runtime::sql::Region;
    use keyset_tests::models::RankDescNullsLast;

    let mut conn = db::seeded(20_000);
    // SQLite sorts NULLs last in descending order by itself, so the index needs no NULLS clause.
    diesel::sql_query("CREATE INDEX posts_rank ON posts (rank DESC, id DESC)")
        .execute(&mut conn)
        .unwrap();
    diesel::sql_query("ANALYZE").execute(&mut conn).unwrap();
    let rows: Vec<RankDescNullsLast> = posts::table
        .select(RankDescNullsLast::as_select())
        .filter(posts::rank.is_not_null())
        .order((posts::rank.asc(), posts::id.asc()))
        .limit(3)
        .load(&mut conn)
        .unwrap();
    let cursor = rows[2].cursor(); // three rows before the first NULL
    let query = || posts::table.select(RankDescNullsLast::as_select());
    for region in [Region::Cursor, Region::Next] {
        let page = query()
            .filter(RankDescNullsLast::after(&cursor).region(region))
            .order(RankDescNullsLast::order_by().one_side(region == Region::Next))
            .limit(21);
        let plan = sqlite_index_seek(&page, &mut conn).unwrap();
        assert!(plan.iter().any(|step| step.contains("posts_rank")), "{region:?}: {plan:?}");
    }
}
