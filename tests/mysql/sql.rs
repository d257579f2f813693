//! MySQL and MariaDB never get a row value (they cannot range-scan it): uniform directions use
//! the OR expansion with a leading bound too.

use diesel::mysql::Mysql;
use diesel::prelude::*;
use keyset_runtime::Keyset;
use keyset_tests::models::{Newest, NewestCursor};
use keyset_tests::schema::posts;
use keyset_tests::seed;

#[test]
fn uniform_directions_use_the_or_expansion_not_a_row_value() {
    let cursor = NewestCursor { created_at: seed::timestamp(1), id: 9 };
    let after = posts::table.select(posts::id).filter(Newest::after(&cursor)).order(Newest::order_by());
    let sql = diesel::debug_query::<Mysql, _>(&after).to_string();
    assert_eq!(
        sql.split(" -- binds: ").next().unwrap(),
        "SELECT `posts`.`id` FROM `posts` WHERE (`posts`.`created_at` <= ? AND (`posts`.`created_at` < ? OR \
         (`posts`.`created_at` = ? AND `posts`.`id` < ?))) ORDER BY `posts`.`created_at` DESC, `posts`.`id` DESC"
    );
}
