//! With the index the derive's order asks for, every page is an index SEARCH with no sort, at
//! the start, deep in the table and going backward.

use diesel::prelude::*;
use keyset_runtime::__testing::sql::{OneSide, SeekParts};
use keyset_runtime::explain::sqlite_index_seek;
use keyset_runtime::Keyset;
use keyset_tests::models::{Newest, NewestIdAsc};
use keyset_tests::schema::posts;

use crate::suite::db;

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
    use keyset_runtime::__testing::sql::Region;
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
            .order(RankDescNullsLast::order_by().one_side())
            .limit(21);
        let plan = sqlite_index_seek(&page, &mut conn).unwrap();
        assert!(plan.iter().any(|step| step.contains("posts_rank")), "{region:?}: {plan:?}");
    }
}

/// `db::seeded(count)`'s posts, with `posts.id` the rowid (`id INTEGER PRIMARY KEY`, the common
/// SQLite schema): a row value `(created_at, id) < (?, ?)` cannot seek a rowid tiebreaker.
fn seeded_with_rowid_ids(count: i64) -> crate::Conn {
    // The authors and memberships, then the suite's own `posts` with the rowid as its key.
    let mut conn = db::seeded(0);
    diesel::sql_query("DROP TABLE posts").execute(&mut conn).unwrap();
    let posts = keyset_tests::schema::SQLITE_DDL[1];
    let rowid = posts.replace("id BIGINT PRIMARY KEY", "id INTEGER PRIMARY KEY");
    assert_ne!(rowid, posts, "the suite's posts table declares `id BIGINT PRIMARY KEY`");
    diesel::sql_query(rowid).execute(&mut conn).unwrap();
    db::insert_posts(&mut conn, 1..=count);
    diesel::sql_query("CREATE INDEX posts_newest ON posts (created_at DESC, id DESC)")
        .execute(&mut conn)
        .unwrap();
    diesel::sql_query("CREATE INDEX posts_top ON posts (score ASC, created_at DESC, id ASC)")
        .execute(&mut conn)
        .unwrap();
    diesel::sql_query("ANALYZE").execute(&mut conn).unwrap();
    conn
}

/// The plan of a tie level is one `SEARCH` on `index` (covering or not) constrained by exactly
/// `constraint`, e.g. `created_at=? AND id<?`: no other step, so no sort.
fn assert_level_seeks(plan: &[String], index: &str, constraint: &str) {
    let seeks =
        |covering| plan == [format!("SEARCH posts USING {covering}INDEX {index} ({constraint})")];
    assert!(seeks("") || seeks("COVERING "), "expected ({constraint}) on {index}: {plan:?}");
}

/// With heavy ties on the leading key (13 timestamps, 4 scores over 20 000 rows) and a rowid
/// tiebreaker, every statement of a deep page, one per tie level, seeks the model's index on its
/// equality prefix and its range, forward and backward, for uniform and mixed directions. The
/// single predicate seeks the leading column only and steps through the cursor's tie group:
/// what `SeekDialect::SEEK_PER_TIE_LEVEL` avoids on SQLite.
#[test]
fn every_tie_level_of_a_deep_page_seeks_its_equality_prefix_and_range() {
    use keyset_tests::models::TopScore;

    let mut conn = seeded_with_rowid_ids(20_000);
    let query = || posts::table.select(Newest::as_select());
    let rows = query().order(Newest::order_by()).load(&mut conn).unwrap();
    let deep = rows[15_000].cursor();

    let single = query().filter(Newest::after(&deep)).order(Newest::order_by()).limit(21);
    let plan = sqlite_index_seek(&single, &mut conn).unwrap();
    assert_level_seeks(&plan, "posts_newest", "created_at<?"); // the leading column only

    let after = |level| {
        query().filter(Newest::after(&deep).level(level)).order(Newest::order_by()).limit(21)
    };
    let plan = sqlite_index_seek(&after(2), &mut conn).unwrap();
    assert_level_seeks(&plan, "posts_newest", "created_at=? AND id<?");
    let plan = sqlite_index_seek(&after(1), &mut conn).unwrap();
    assert_level_seeks(&plan, "posts_newest", "created_at<?");
    let before = |level| {
        query()
            .filter(Newest::before(&deep).level(level))
            .order(Newest::reverse_order_by())
            .limit(21)
    };
    let plan = sqlite_index_seek(&before(2), &mut conn).unwrap();
    assert_level_seeks(&plan, "posts_newest", "created_at=? AND id>?");
    let plan = sqlite_index_seek(&before(1), &mut conn).unwrap();
    assert_level_seeks(&plan, "posts_newest", "created_at>?");

    // Three keys in mixed directions: score ASC, created_at DESC, id ASC.
    let query = || posts::table.select(TopScore::as_select());
    let rows = query().order(TopScore::order_by()).load(&mut conn).unwrap();
    let deep = rows[15_000].cursor();
    let after = |level| {
        query().filter(TopScore::after(&deep).level(level)).order(TopScore::order_by()).limit(21)
    };
    for (level, constraint) in
        [(3, "score=? AND created_at=? AND id>?"), (2, "score=? AND created_at<?"), (1, "score>?")]
    {
        let plan = sqlite_index_seek(&after(level), &mut conn).unwrap();
        assert_level_seeks(&plan, "posts_top", constraint);
    }
    let before = |level| {
        query()
            .filter(TopScore::before(&deep).level(level))
            .order(TopScore::reverse_order_by())
            .limit(21)
    };
    for (level, constraint) in
        [(3, "score=? AND created_at=? AND id<?"), (2, "score=? AND created_at>?"), (1, "score<?")]
    {
        let plan = sqlite_index_seek(&before(level), &mut conn).unwrap();
        assert_level_seeks(&plan, "posts_top", constraint);
    }
}

/// A page at a row given by its id runs the same tie levels as a page at a token, each the same
/// `SEARCH` on its equality prefix and range, the row's values read by primary key (`SCALAR
/// SUBQUERY`, a lookup of the rowid), in uniform and mixed directions.
#[test]
fn the_tie_levels_of_a_page_at_a_row_id_seek_as_a_token_pages() {
    use keyset_runtime::__testing::sql::{at_row_id, Forward};
    use keyset_tests::models::TopScore;

    let mut conn = seeded_with_rowid_ids(20_000);
    // The page's own step, then each subquery's: a lookup by the rowid.
    let assert_seeks = |plan: Vec<String>, index: &str, constraint: &str| {
        let (main, lookups) = plan.split_first().expect("a plan");
        assert_level_seeks(std::slice::from_ref(main), index, constraint);
        assert!(!lookups.is_empty(), "the row's values are read in the statement: {plan:?}");
        for step in lookups {
            let lookup = step.starts_with("SCALAR SUBQUERY")
                || step == "SEARCH posts USING INTEGER PRIMARY KEY (rowid=?)";
            assert!(lookup, "{constraint}: {plan:?}");
        }
    };
    let level = |level| {
        posts::table
            .select(Newest::as_select())
            .filter(at_row_id::<Newest, Forward>(15_000_i64, Some(level)))
            .order(Newest::order_by())
            .limit(21)
    };
    assert_seeks(
        sqlite_index_seek(&level(2), &mut conn).unwrap(),
        "posts_newest",
        "created_at=? AND id<?",
    );
    assert_seeks(sqlite_index_seek(&level(1), &mut conn).unwrap(), "posts_newest", "created_at<?");
    let level = |level| {
        posts::table
            .select(TopScore::as_select())
            .filter(at_row_id::<TopScore, Forward>(15_000_i64, Some(level)))
            .order(TopScore::order_by())
            .limit(21)
    };
    for (at, constraint) in
        [(3, "score=? AND created_at=? AND id>?"), (2, "score=? AND created_at<?"), (1, "score>?")]
    {
        assert_seeks(sqlite_index_seek(&level(at), &mut conn).unwrap(), "posts_top", constraint);
    }
}
