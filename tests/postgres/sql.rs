//! PostgreSQL gets a row value for uniform directions (an exact `Index Cond` on every column),
//! beside the leading bound that partition pruning reads, and the OR expansion with a leading
//! bound for mixed directions (what `after` and `before` give; a page runs its tie levels' union
//! instead where it can, `union.rs`), and a row value among a nullable leading key's values.

use diesel::pg::Pg;
use diesel::prelude::*;
use keyset_runtime::__testing::sql::SeekParts;
use keyset_runtime::Keyset;
use keyset_tests::models::{
    Newest, NewestCursor, NewestIdAsc, NewestIdAscCursor, RankDescNullsLast,
};
use keyset_tests::schema::posts;
use keyset_tests::seed;

fn statement<T: diesel::query_builder::QueryFragment<Pg>>(query: &T) -> String {
    let sql = diesel::debug_query::<Pg, _>(query).to_string();
    sql.split(" -- binds: ").next().unwrap().to_owned()
}

#[test]
fn uniform_directions_use_a_row_value() {
    let cursor = NewestCursor { created_at: seed::timestamp(1), id: 9 };
    let after =
        posts::table.select(posts::id).filter(Newest::after(&cursor)).order(Newest::order_by());
    assert_eq!(
        statement(&after),
        "SELECT \"posts\".\"id\" FROM \"posts\" WHERE (\"posts\".\"created_at\" <= (SELECT $1) AND (\"posts\".\"created_at\", \"posts\".\"id\") < ((SELECT $2), (SELECT $3))) \
         ORDER BY \"posts\".\"created_at\" DESC, \"posts\".\"id\" DESC"
    );
    let before = posts::table
        .select(posts::id)
        .filter(Newest::before(&cursor))
        .order(Newest::reverse_order_by());
    assert_eq!(
        statement(&before),
        "SELECT \"posts\".\"id\" FROM \"posts\" WHERE (\"posts\".\"created_at\" >= (SELECT $1) AND (\"posts\".\"created_at\", \"posts\".\"id\") > ((SELECT $2), (SELECT $3))) \
         ORDER BY \"posts\".\"created_at\" ASC, \"posts\".\"id\" ASC"
    );
}

#[test]
fn mixed_directions_use_the_or_expansion_with_a_leading_bound() {
    let cursor = NewestIdAscCursor { published: seed::timestamp(1), id: 9 };
    let after = posts::table.select(posts::id).filter(NewestIdAsc::after(&cursor));
    assert_eq!(
        statement(&after),
        "SELECT \"posts\".\"id\" FROM \"posts\" WHERE (\"posts\".\"created_at\" <= (SELECT $1) AND \
         (\"posts\".\"created_at\" < (SELECT $2) OR (\"posts\".\"created_at\" = (SELECT $3) AND \"posts\".\"id\" > (SELECT $4))))"
    );
}

/// PostgreSQL sorts NULLs first in descending order; a model's other placement is pinned with
/// `NULLS LAST`, and a nullable key gets a row value only in the cursor's region among its
/// values, where no NULL can match (a row value holding a NULL is never true, so across the
/// boundary it would drop the NULLs).
#[test]
fn nulls_clause_and_a_row_value_only_among_the_values() {
    use keyset_runtime::__testing::sql::Region;
    use keyset_tests::models::{RankDescNullsLast, RankDescNullsLastCursor};

    let order = posts::table.select(posts::id).order(RankDescNullsLast::order_by());
    assert_eq!(
        statement(&order),
        "SELECT \"posts\".\"id\" FROM \"posts\" ORDER BY \"posts\".\"rank\" DESC NULLS LAST, \"posts\".\"id\" DESC"
    );
    let cursor = RankDescNullsLastCursor { rank: Some(2), id: 5 };
    let after = posts::table.select(posts::id).filter(RankDescNullsLast::after(&cursor));
    assert!(!statement(&after).contains(") < ("), "{}", statement(&after));
    let values = RankDescNullsLast::after(&cursor).region(Region::Cursor);
    assert_eq!(
        statement(&posts::table.select(posts::id).filter(values)),
        "SELECT \"posts\".\"id\" FROM \"posts\" WHERE (\"posts\".\"rank\" <= (SELECT $1) AND \
         (\"posts\".\"rank\", \"posts\".\"id\") < ((SELECT $2), (SELECT $3)))"
    );
    let before = RankDescNullsLast::before(&cursor).region(Region::Cursor);
    assert!(statement(&posts::table.select(posts::id).filter(before))
        .contains(") > ((SELECT $2), (SELECT $3))"),);
    // After a NULL cursor the NULL test is written once, no leading bound beside it.
    let null = RankDescNullsLastCursor { rank: None, id: 5 };
    let nulls = RankDescNullsLast::after(&null).region(Region::Cursor);
    assert_eq!(
        statement(&posts::table.select(posts::id).filter(nulls)),
        "SELECT \"posts\".\"id\" FROM \"posts\" WHERE (((\"posts\".\"rank\" IS NULL AND \"posts\".\"id\" < (SELECT $1))))"
    );
}

/// A page at a row given by its id (`Paginated::at_row_id`) reads the row's other values where it
/// compares them, each a subquery by primary key, and binds the id itself.
#[test]
fn a_page_at_a_row_id_reads_the_rows_values_by_subqueries() {
    use keyset_runtime::__testing::sql::{at_row_id, Forward};

    let row = |column: &str, n: u32| {
        format!("(SELECT \"posts\".\"{column}\" FROM \"posts\" WHERE \"posts\".\"id\" = ${n})")
    };
    let page = posts::table.select(posts::id).filter(at_row_id::<Newest, Forward>(9_i64, None));
    assert_eq!(
        statement(&page),
        format!(
            "SELECT \"posts\".\"id\" FROM \"posts\" WHERE (\"posts\".\"created_at\" <= {} AND \
             (\"posts\".\"created_at\", \"posts\".\"id\") <= ({}, (SELECT $3)))",
            row("created_at", 1),
            row("created_at", 2)
        )
    );
    let page =
        posts::table.select(posts::id).filter(at_row_id::<NewestIdAsc, Forward>(9_i64, None));
    assert_eq!(
        statement(&page),
        format!(
            "SELECT \"posts\".\"id\" FROM \"posts\" WHERE (\"posts\".\"created_at\" <= {} AND \
             (\"posts\".\"created_at\" < {} OR (\"posts\".\"created_at\" = {} AND \"posts\".\"id\" >= (SELECT $4))))",
            row("created_at", 1),
            row("created_at", 2),
            row("created_at", 3)
        )
    );
}

/// In an order led by a nullable key, a page at a row's id that runs one statement (a boxed
/// query) holds both regions' predicates, each guarded by whether the row's value is NULL.
#[test]
fn a_page_at_a_row_id_in_a_nullable_order_guards_each_region() {
    use keyset_runtime::__testing::sql::{at_row_id_either, Forward};

    let row = |n: u32| {
        format!("(SELECT \"posts\".\"rank\" FROM \"posts\" WHERE \"posts\".\"id\" = ${n})")
    };
    let page = posts::table
        .select(posts::id)
        .filter(at_row_id_either::<RankDescNullsLast, Forward>(9_i64));
    let (rank, id) = ("\"posts\".\"rank\"", "\"posts\".\"id\"");
    assert_eq!(
        statement(&page),
        format!(
            "SELECT {id} FROM \"posts\" WHERE ((({rank} <= {} OR {rank} IS NULL) AND ({} IS NOT \
             NULL AND ({rank} < {} OR ({rank} = {} AND {id} <= (SELECT $5)) OR {rank} IS \
             NULL))) OR (({} IS NULL AND (({rank} IS NULL AND {id} <= (SELECT $7))))))",
            row(1),
            row(2),
            row(3),
            row(4),
            row(6)
        )
    );
}
