//! On a table large enough that the planner has a choice, with the index the sort order asks
//! for, a page at a deep cursor is an index scan with an `Index Cond` and no `Sort`; on a
//! hash-partitioned table it is a `Merge Append` of per-partition index scans.

use diesel::prelude::*;
use keyset_runtime::__testing::sql::{OneSide, SeekParts};
use keyset_runtime::explain::postgres_index_seek;
use keyset_runtime::Keyset;
use keyset_tests::models::{Newest, NewestIdAsc};
use keyset_tests::schema::posts;
use keyset_tests::walk::{self, cursors};

use crate::{connect, suite::db};

const ROWS: i64 = 50_000;

fn execute(conn: &mut PgConnection, sql: &str) {
    diesel::sql_query(sql).execute(conn).unwrap_or_else(|err| panic!("{sql}: {err}"));
}

#[test]
fn deep_pages_are_index_seeks_for_uniform_and_mixed_directions() {
    let mut conn = db::seeded(ROWS);
    execute(&mut conn, "CREATE INDEX posts_newest ON posts (created_at DESC, id DESC)");
    execute(&mut conn, "CREATE INDEX posts_newest_id_asc ON posts (created_at DESC, id ASC)");
    execute(&mut conn, "ANALYZE posts");

    let rows =
        posts::table.select(Newest::as_select()).order(Newest::order_by()).load(&mut conn).unwrap();
    let deep = rows[ROWS as usize * 9 / 10].cursor();
    for plan in [
        postgres_index_seek(
            &posts::table
                .select(Newest::as_select())
                .filter(Newest::after(&deep))
                .order(Newest::order_by())
                .limit(21),
            &mut conn,
        ),
        postgres_index_seek(
            &posts::table
                .select(Newest::as_select())
                .filter(Newest::before(&deep))
                .order(Newest::reverse_order_by())
                .limit(21),
            &mut conn,
        ),
    ] {
        let plan = plan.unwrap();
        let cond = plan.iter().find(|line| line.contains("Index Cond")).unwrap();
        assert!(cond.contains("ROW(created_at, id)"), "the seek uses both columns: {plan:#?}");
        assert!(plan.iter().any(|line| line.contains("posts_newest ")), "{plan:#?}");
    }

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
    let plan = postgres_index_seek(&mixed, &mut conn).unwrap();
    assert!(plan.iter().any(|line| line.contains("posts_newest_id_asc")), "{plan:#?}");
    let cond = plan.iter().find(|line| line.contains("Index Cond")).unwrap();
    assert!(cond.contains("created_at <="), "the leading bound is the seek: {plan:#?}");
}

#[test]
fn a_missing_index_is_reported_with_the_plan() {
    let mut conn = db::seeded(2_000);
    execute(&mut conn, "ANALYZE posts");
    let rows =
        posts::table.select(Newest::as_select()).order(Newest::order_by()).load(&mut conn).unwrap();
    let page = posts::table
        .select(Newest::as_select())
        .filter(Newest::after(&rows[1_500].cursor()))
        .order(Newest::order_by())
        .limit(21);
    let err = postgres_index_seek(&page, &mut conn).unwrap_err();
    assert!(err.to_string().contains("Sort"), "{err}");
}

diesel::table! {
    /// Posts hash-partitioned on their id, as sharded deployments lay data out.
    pposts (id) {
        id -> BigInt,
        created_at -> Timestamp,
    }
}

#[derive(Queryable, Selectable, keyset_runtime::Keyset, Debug, PartialEq)]
#[diesel(table_name = pposts)]
struct PartitionedPost {
    #[sort(desc)]
    created_at: chrono::NaiveDateTime,
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
}

#[test]
fn hash_partitioned_table_merges_per_partition_seeks_and_walks_exactly() {
    let mut conn = connect();
    execute(&mut conn, "CREATE TEMPORARY TABLE pposts (id BIGINT PRIMARY KEY, created_at TIMESTAMP NOT NULL) PARTITION BY HASH (id)");
    for remainder in 0..4 {
        execute(
            &mut conn,
            &format!("CREATE TEMPORARY TABLE pposts_{remainder} PARTITION OF pposts FOR VALUES WITH (MODULUS 4, REMAINDER {remainder})"),
        );
    }
    execute(&mut conn, "CREATE INDEX pposts_newest ON pposts (created_at DESC, id DESC)");
    execute(
        &mut conn,
        "INSERT INTO pposts SELECT g, TIMESTAMP '2024-01-01' + (g % 97) * INTERVAL '1.000007 second' FROM generate_series(1, 40000) g",
    );
    execute(&mut conn, "ANALYZE pposts");

    let expected = pposts::table
        .order((pposts::created_at.desc(), pposts::id.desc()))
        .select(PartitionedPost::as_select())
        .load(&mut conn)
        .unwrap();
    let query = || pposts::table.select(PartitionedPost::as_select());
    assert_eq!(cursors(&walk::forward(&mut conn, 700, query)), cursors(&expected));
    assert_eq!(cursors(&walk::backward(&mut conn, 700, query)), cursors(&expected));

    let deep = expected[36_000].cursor();
    let page =
        query().filter(PartitionedPost::after(&deep)).order(PartitionedPost::order_by()).limit(21);
    let plan = postgres_index_seek(&page, &mut conn).unwrap();
    assert!(plan.iter().any(|line| line.contains("Merge Append")), "{plan:#?}");
    let seeks = plan.iter().filter(|line| line.contains("Index Cond")).count();
    assert_eq!(seeks, 4, "one index seek per partition: {plan:#?}");
}

/// At a cursor just before a nullable leading key's NULL boundary, both seeks of the page (the
/// rest of the values, then the NULLs) are index scans with an `Index Cond` and no sort.
#[test]
fn both_null_regions_are_index_seeks() {
    use keyset_runtime::__testing::sql::Region;
    use keyset_tests::models::RankDescNullsLast;

    let mut conn = db::seeded(ROWS);
    execute(&mut conn, "CREATE INDEX posts_rank ON posts (rank DESC NULLS LAST, id DESC)");
    execute(&mut conn, "ANALYZE posts");
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
        let plan = postgres_index_seek(&page, &mut conn).unwrap();
        assert!(plan.iter().any(|line| line.contains("posts_rank")), "{region:?}: {plan:#?}");
    }
}

/// In an order led by a nullable key, each statement of a page at a row's id seeks the order's
/// index as a token's: among the values from the row's value (read by primary key once, an
/// `InitPlan`), which a NULL there matches nothing of; among the NULLs from the row's id, behind
/// a one-time test that the row's value is NULL; and the whole NULL region after the values.
#[test]
fn a_page_at_a_row_id_seeks_either_region_of_a_nullable_key() {
    use keyset_runtime::__testing::sql::{at_row_id_in, Forward, Region};
    use keyset_tests::models::RankDescNullsLast;

    let mut conn = db::seeded(ROWS);
    execute(&mut conn, "CREATE INDEX posts_rank ON posts (rank DESC NULLS LAST, id DESC)");
    execute(&mut conn, "ANALYZE posts");
    for (null, region) in [(false, Region::Cursor), (true, Region::Cursor), (false, Region::Next)] {
        let page = posts::table
            .select(RankDescNullsLast::as_select())
            .filter(at_row_id_in::<RankDescNullsLast, Forward>(ROWS / 10, null, region))
            .order(RankDescNullsLast::order_by().one_side())
            .limit(21);
        let plan = postgres_index_seek(&page, &mut conn).unwrap();
        let seeks = |line: &&String| line.contains("Index Cond") && line.contains("rank");
        assert!(plan.iter().any(|line| line.contains("posts_rank")), "{null}: {plan:#?}");
        assert!(plan.iter().any(|line| seeks(&line)), "{null} {region:?}: {plan:#?}");
        // Among the values, a NULL read from the row matches nothing (`rank <= NULL`).
        if null {
            assert!(plan.iter().any(|line| line.contains("One-Time Filter")), "{plan:#?}");
        }
    }
}

/// The page the API runs at a row's id in an order led by a nullable key is one statement, the
/// union of both regions' first statements, whether the row's value is NULL or not; each branch
/// an index seek of the order's index, the NULLs' behind its one-time test of the row's value.
#[test]
fn a_page_at_a_row_id_unites_the_regions_of_a_nullable_key() {
    use std::sync::{Arc, Mutex};

    use diesel::connection::{Instrumentation, InstrumentationEvent};
    use keyset_runtime::__testing::sql::{at_row_id_in, shape, union, Forward, Region};
    use keyset_runtime::{PageRequest, Paginate};
    use keyset_tests::models::RankDescNullsLast;

    let mut conn = db::seeded(ROWS);
    execute(&mut conn, "CREATE INDEX posts_rank ON posts (rank DESC NULLS LAST, id DESC)");
    execute(&mut conn, "ANALYZE posts");
    let query = || posts::table.select(RankDescNullsLast::as_select());
    let null: i64 =
        posts::table.filter(posts::rank.is_null()).select(posts::id).first(&mut conn).unwrap();
    for id in [ROWS / 10 + 1, null] {
        let log = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&log);
        conn.set_instrumentation(move |event: InstrumentationEvent<'_>| {
            if let InstrumentationEvent::StartQuery { query, .. } = event {
                sink.lock().unwrap().push(shape(&query.to_string()));
            }
        });
        let page = query().paginate(&PageRequest::first(20)).unwrap().at_row_id(id).unwrap();
        let page = page.load_page(&mut conn).unwrap();
        conn.set_instrumentation(None::<Box<dyn Instrumentation>>);
        assert_eq!(page.items[0].id, id);

        let branch = |null: bool| {
            query()
                .filter(at_row_id_in::<RankDescNullsLast, Forward>(id, null, Region::Cursor))
                .order(RankDescNullsLast::order_by().one_side())
                .limit(21)
        };
        let names = RankDescNullsLast::SELECTED_NAMES.unwrap();
        let united =
            union(vec![branch(false), branch(true)], RankDescNullsLast::order_by(), names, 21);
        let sql = diesel::debug_query::<diesel::pg::Pg, _>(&united).to_string();
        assert_eq!(*log.lock().unwrap(), [shape(&sql)], "row {id}");
        let plan = postgres_index_seek(&united, &mut conn).unwrap();
        let seeks =
            plan.iter().filter(|line| line.contains("Index") && line.contains("posts_rank"));
        assert_eq!(seeks.count(), 2, "row {id}: {plan:#?}");
        assert!(plan.iter().any(|line| line.contains("One-Time Filter")), "{plan:#?}");
    }
}

/// A page at a row given by its id is the same index seek as a page at a token: the row's values,
/// read by primary key once each (`InitPlan`), are the `Index Cond`'s, in uniform and mixed
/// directions.
#[test]
fn a_page_at_a_row_id_seeks_as_a_token_page() {
    use keyset_runtime::__testing::sql::{at_row_id, Forward};

    let mut conn = db::seeded(ROWS);
    execute(&mut conn, "CREATE INDEX posts_newest ON posts (created_at DESC, id DESC)");
    execute(&mut conn, "CREATE INDEX posts_newest_id_asc ON posts (created_at DESC, id ASC)");
    execute(&mut conn, "ANALYZE posts");
    let id = ROWS / 10;

    let uniform = posts::table
        .select(Newest::as_select())
        .filter(at_row_id::<Newest, Forward>(id, None))
        .order(Newest::order_by())
        .limit(21);
    let plan = postgres_index_seek(&uniform, &mut conn).unwrap();
    assert!(plan.iter().any(|line| line.contains("InitPlan")), "{plan:#?}");
    let cond = plan.iter().find(|line| line.contains("Index Cond") && line.contains("ROW("));
    assert!(cond.is_some(), "the seek uses both columns: {plan:#?}");
    assert!(plan.iter().any(|line| line.contains("posts_newest ")), "{plan:#?}");

    let mixed = posts::table
        .select(NewestIdAsc::as_select())
        .filter(at_row_id::<NewestIdAsc, Forward>(id, None))
        .order(NewestIdAsc::order_by())
        .limit(21);
    let plan = postgres_index_seek(&mixed, &mut conn).unwrap();
    assert!(plan.iter().any(|line| line.contains("posts_newest_id_asc")), "{plan:#?}");
    let cond = plan.iter().find(|line| line.contains("Index Cond") && line.contains("created_at"));
    assert!(cond.is_some_and(|cond| cond.contains("created_at <=")), "{plan:#?}");
}
