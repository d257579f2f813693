//! `#[keyset(prefix(..))]`: the model compiles, with columns it does not select and a keyword
//! column, its `INDEXES` hold each order's index led by each prefix, and with them created a
//! page of one value's rows (`score = 1`) seeks the prefix index, paging in the model's order.

use diesel::prelude::*;
use keyset_runtime::Keyset;

use super::{check, posts, seeded};

/// The field order and a named order, under two prefixes of columns the model does not select;
/// the second ends with a keyword column, `r#type`.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = posts)]
#[keyset(prefix(score), prefix(score, r#type))]
#[keyset(order(old: created asc, id asc))]
struct Feed {
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
    created: i64,
}

/// The runtime requires the mark of a page among a set of a column's values: it is there for
/// the last column of each prefix.
fn marked<C>()
where
    Feed: keyset_runtime::__private::Prefix<C>,
{
}

#[test]
fn prefix_indexes_are_declared_and_serve_a_filtered_page() {
    marked::<posts::score>();
    marked::<posts::r#type>();
    let names: Vec<&str> = Feed::INDEXES.iter().map(|index| index.name).collect();
    assert_eq!(
        names,
        [
            "posts_keyset_id_desc",
            "posts_keyset_created_asc_id_asc",
            "posts_keyset_score_asc_id_desc",
            "posts_keyset_score_asc_created_asc_id_asc",
            "posts_keyset_score_asc_type_asc_id_desc",
            "posts_keyset_score_asc_type_asc_created_asc_id_asc",
        ]
    );
    let [sqlite, postgres, mysql] = Feed::INDEXES[3].create;
    assert_eq!(
        sqlite,
        r#"CREATE INDEX IF NOT EXISTS "posts_keyset_score_asc_created_asc_id_asc" ON "posts" ("score" ASC, "created" ASC, "id" ASC);"#
    );
    assert_eq!(sqlite, postgres, "no nullable key: the same DDL");
    assert_eq!(
        mysql,
        "CREATE INDEX `posts_keyset_score_asc_created_asc_id_asc` ON `posts` (`score` ASC, `created` ASC, `id` ASC);"
    );

    let mut conn = seeded();
    for index in Feed::INDEXES {
        diesel::sql_query(index.create[0]).execute(&mut conn).expect("create the index");
    }
    let expected = posts::table
        .filter(posts::score.eq(1))
        .order(posts::id.desc())
        .select(Feed::as_select())
        .load(&mut conn)
        .unwrap();
    check(&mut conn, &expected, || {
        posts::table.filter(posts::score.eq(1)).select(Feed::as_select())
    });
    let cursor = Feed::cursor(&expected[3]);
    let page = posts::table
        .filter(posts::score.eq(1))
        .filter(Feed::after(&cursor))
        .order(Feed::order_by())
        .select(Feed::as_select())
        .limit(6);
    let plan = keyset_runtime::explain::sqlite_index_seek(&page, &mut conn).unwrap();
    assert!(plan[0].contains("INDEX posts_keyset_score_asc_id_desc (score=?"), "{plan:?}");
}
