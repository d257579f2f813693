//! MySQL and MariaDB never get a row value (they cannot range-scan it): uniform directions use
//! the OR expansion too, without the leading bound (their range optimizer needs none).

use diesel::mysql::Mysql;
use diesel::prelude::*;
use keyset_runtime::__testing::sql::OneSide;
use keyset_runtime::Keyset;
use keyset_tests::models::{Newest, NewestCursor};
use keyset_tests::schema::posts;
use keyset_tests::seed;

#[test]
fn uniform_directions_use_the_or_expansion_not_a_row_value() {
    let cursor = NewestCursor { created_at: seed::timestamp(1), id: 9 };
    let after =
        posts::table.select(posts::id).filter(Newest::after(&cursor)).order(Newest::order_by());
    let sql = diesel::debug_query::<Mysql, _>(&after).to_string();
    assert_eq!(
        sql.split(" -- binds: ").next().unwrap(),
        "SELECT `posts`.`id` FROM `posts` WHERE ((`posts`.`created_at` < ? OR \
         (`posts`.`created_at` = ? AND `posts`.`id` < ?))) ORDER BY `posts`.`created_at` DESC, `posts`.`id` DESC"
    );
}

/// MySQL has no `NULLS FIRST/LAST`: a placement that is not its own is pinned with a leading
/// `x IS NULL` term.
#[test]
fn null_placement_without_a_nulls_clause() {
    use keyset_tests::models::{RankAscNullsLast, RankDescNullsLast};

    let order = |sql: String| {
        sql.split(" ORDER BY ").nth(1).unwrap().split(" -- ").next().unwrap().to_owned()
    };
    let native = posts::table.select(posts::id).order(RankDescNullsLast::order_by());
    assert_eq!(
        order(diesel::debug_query::<Mysql, _>(&native).to_string()),
        "`posts`.`rank` DESC, `posts`.`id` DESC"
    );
    let pinned = posts::table.select(posts::id).order(RankAscNullsLast::order_by());
    assert_eq!(
        order(diesel::debug_query::<Mysql, _>(&pinned).to_string()),
        "`posts`.`rank` IS NULL ASC, `posts`.`rank` ASC, `posts`.`id` ASC"
    );
    // Rows that are all on one side of the NULL boundary need no pin, and rows that are all
    // NULL no `rank` at all: MariaDB sorted every row past a NULL cursor under either.
    let values = posts::table.select(posts::id).order(RankAscNullsLast::order_by().one_side(false));
    assert_eq!(
        order(diesel::debug_query::<Mysql, _>(&values).to_string()),
        "`posts`.`rank` ASC, `posts`.`id` ASC"
    );
    let nulls = posts::table.select(posts::id).order(RankAscNullsLast::order_by().one_side(true));
    assert_eq!(order(diesel::debug_query::<Mysql, _>(&nulls).to_string()), "`posts`.`id` ASC");
}
