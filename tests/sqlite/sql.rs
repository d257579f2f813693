//! The SQL of the building blocks, pinned: the OR expansion with a leading bound, mirroring the
//! ORDER BY column by column and direction by direction; the reverse for backward pages; bound
//! values. (What a page after a cursor runs on SQLite, one statement per tie level: `levels.rs`.)

use diesel::prelude::*;
use diesel::sqlite::Sqlite;
use keyset_runtime::__testing::sql::SeekParts;
use keyset_runtime::Keyset;
use keyset_tests::models::{Post, TopScore};
use keyset_tests::schema::posts;
use keyset_tests::seed;

fn sql<T: diesel::query_builder::QueryFragment<Sqlite>>(query: &T) -> String {
    diesel::debug_query::<Sqlite, _>(query).to_string()
}

#[test]
fn one_key_is_a_single_strict_comparison() {
    let cursor = keyset_tests::models::PostCursor { id: 42 };
    let query = posts::table.select(posts::id).filter(Post::after(&cursor)).order(Post::order_by());
    assert_eq!(
        sql(&query),
        "SELECT `posts`.`id` FROM `posts` WHERE (`posts`.`id` > +?) ORDER BY `posts`.`id` ASC -- binds: [42]"
    );
    let query = posts::table
        .select(posts::id)
        .filter(Post::before(&cursor))
        .order(Post::reverse_order_by());
    assert_eq!(
        sql(&query),
        "SELECT `posts`.`id` FROM `posts` WHERE (`posts`.`id` < +?) ORDER BY `posts`.`id` DESC -- binds: [42]"
    );
}

#[test]
fn three_mixed_keys_expand_with_a_leading_bound() {
    let row = seed::post(7);
    let cursor = keyset_tests::models::TopScoreCursor {
        score: row.score,
        created_at: row.created_at,
        id: 7,
    };
    let after =
        posts::table.select(posts::id).filter(TopScore::after(&cursor)).order(TopScore::order_by());
    assert_eq!(
        sql(&after).split(" -- ").next().unwrap(),
        "SELECT `posts`.`id` FROM `posts` WHERE (`posts`.`score` >= +? AND (`posts`.`score` > +? OR \
         (`posts`.`score` = +? AND (`posts`.`created_at` < +? OR (`posts`.`created_at` = +? AND \
         `posts`.`id` > +?))))) ORDER BY `posts`.`score` ASC, `posts`.`created_at` DESC, `posts`.`id` ASC"
    );
    let before = posts::table
        .select(posts::id)
        .filter(TopScore::before(&cursor))
        .order(TopScore::reverse_order_by());
    assert_eq!(
        sql(&before).split(" -- ").next().unwrap(),
        "SELECT `posts`.`id` FROM `posts` WHERE (`posts`.`score` <= +? AND (`posts`.`score` < +? OR \
         (`posts`.`score` = +? AND (`posts`.`created_at` > +? OR (`posts`.`created_at` = +? AND \
         `posts`.`id` < +?))))) ORDER BY `posts`.`score` DESC, `posts`.`created_at` ASC, `posts`.`id` DESC"
    );
    // Every value is a bound parameter, in the order of the placeholders.
    let binds = sql(&after).split(" -- binds: ").nth(1).unwrap().to_owned();
    let ts = format!("{:?}", row.created_at);
    assert_eq!(binds, format!("[{s}, {s}, {s}, {ts}, {ts}, 7]", s = row.score));
}

#[test]
fn hostile_text_is_bound_never_spliced() {
    let cursor = keyset_tests::models::ByUniqueTitleCursor {
        title: "x' OR 1=1; DROP TABLE posts; --".into(),
    };
    let query =
        posts::table.select(posts::id).filter(keyset_tests::models::ByUniqueTitle::after(&cursor));
    let text = sql(&query);
    let (statement, binds) = text.split_once(" -- binds: ").unwrap();
    assert_eq!(statement, "SELECT `posts`.`id` FROM `posts` WHERE (`posts`.`title` > +?)");
    assert!(binds.contains("DROP TABLE"));
}

/// The SQL is a function of the types alone, so Diesel caches the prepared statement.
#[test]
fn queries_have_a_static_query_id() {
    use diesel::query_builder::QueryId;
    fn is_static<T: QueryId>(_: &T) -> bool {
        T::HAS_STATIC_QUERY_ID
    }
    let cursor = keyset_tests::models::PostCursor { id: 1 };
    assert!(is_static(&posts::table.filter(Post::after(&cursor)).order(Post::order_by()).limit(5)));
}

/// A nullable leading key: one predicate with the NULL region as a disjunct (what MySQL runs),
/// the cursor's region alone, and the next region; and the ORDER BY pins the placement only
/// where the engine's own differs.
#[test]
fn nullable_leading_key_regions() {
    use keyset_runtime::__testing::sql::Region;
    use keyset_tests::models::{RankAscNullsLast, RankDescNullsLast, RankDescNullsLastCursor};

    let cursor = RankDescNullsLastCursor { rank: Some(4), id: 10 };
    let where_clause = |region| {
        let text = sql(&posts::table
            .select(posts::id)
            .filter(RankDescNullsLast::after(&cursor).region(region)));
        text.split(" WHERE ").nth(1).unwrap().split(" -- ").next().unwrap().to_owned()
    };
    assert_eq!(
        where_clause(Region::Whole),
        "((`posts`.`rank` <= +? OR `posts`.`rank` IS NULL) AND (`posts`.`rank` < +? OR \
         (`posts`.`rank` = +? AND `posts`.`id` < +?) OR `posts`.`rank` IS NULL))"
    );
    assert_eq!(
        where_clause(Region::Cursor),
        "(`posts`.`rank` <= +? AND (`posts`.`rank` < +? OR (`posts`.`rank` = +? AND `posts`.`id` < +?)))"
    );
    assert_eq!(where_clause(Region::Next), "(`posts`.`rank` IS NULL)");

    let null = RankDescNullsLastCursor { rank: None, id: 10 };
    let text = sql(&posts::table.select(posts::id).filter(RankDescNullsLast::after(&null)));
    assert!(text.contains("WHERE (((`posts`.`rank` IS NULL AND `posts`.`id` < +?)))"), "{text}");

    // DESC NULLS LAST is SQLite's own order: no clause, so a plain index serves it. ASC NULLS
    // LAST is not, and its reverse (DESC NULLS FIRST) neither.
    let order = |text: String| {
        text.split(" ORDER BY ").nth(1).unwrap().split(" -- ").next().unwrap().to_owned()
    };
    assert_eq!(
        order(sql(&posts::table.select(posts::id).order(RankDescNullsLast::order_by()))),
        "`posts`.`rank` DESC, `posts`.`id` DESC"
    );
    assert_eq!(
        order(sql(&posts::table.select(posts::id).order(RankAscNullsLast::order_by()))),
        "`posts`.`rank` ASC NULLS LAST, `posts`.`id` ASC"
    );
    assert_eq!(
        order(sql(&posts::table.select(posts::id).order(RankAscNullsLast::reverse_order_by()))),
        "`posts`.`rank` DESC NULLS FIRST, `posts`.`id` DESC"
    );
}
