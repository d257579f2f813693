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
    // Rows that are all on one side of the NULL boundary need no pin: MariaDB sorted every row
    // past a NULL cursor under it.
    let one_side = posts::table.select(posts::id).order(RankAscNullsLast::order_by().one_side());
    assert_eq!(
        order(diesel::debug_query::<Mysql, _>(&one_side).to_string()),
        "`posts`.`rank` ASC, `posts`.`id` ASC"
    );
}

/// A predicate whose rows are all NULL on a nullable leading key ends with `OR x < NULL`, which
/// no row matches: with `x IS NULL` a conjunct of the whole, MariaDB looks the NULLs up by `x`
/// alone and tests `id < ?` on every NULL before the cursor (`tests/mysql/reads.rs` counts it).
/// A predicate among the values, or over both regions, has no such disjunct.
#[test]
fn a_predicate_among_the_nulls_is_a_range_of_the_index() {
    use keyset_runtime::__testing::sql::{Region, SeekParts};
    use keyset_tests::models::{RankDescNullsLast, RankDescNullsLastCursor};

    // The WHERE clause of a query filtered by the seek (forward or backward: two types).
    macro_rules! sql {
        ($seek:expr) => {{
            let query = posts::table.select(posts::id).filter($seek);
            let sql = diesel::debug_query::<Mysql, _>(&query).to_string();
            let sql = sql.split(" WHERE ").nth(1).unwrap().split(" -- ").next().unwrap().to_owned();
            sql.replace("`posts`.", "")
        }};
    }
    let draft = RankDescNullsLastCursor { rank: None, id: 9 };
    let value = RankDescNullsLastCursor { rank: Some(3), id: 9 };
    let after = RankDescNullsLast::after;
    let before = RankDescNullsLast::before;
    // Past a draft: the drafts before it in the order (NULLs last), forward and back.
    assert_eq!(sql!(after(&draft)), "(((`rank` IS NULL AND `id` < ?)) OR `rank` < NULL)");
    assert_eq!(
        sql!(after(&draft).region(Region::Cursor)),
        "(((`rank` IS NULL AND `id` < ?)) OR `rank` < NULL)"
    );
    assert_eq!(
        sql!(before(&draft).region(Region::Cursor)),
        "(((`rank` IS NULL AND `id` > ?)) OR `rank` < NULL)"
    );
    // Past a value: the NULLs after the values, as a region of their own.
    assert_eq!(sql!(after(&value).region(Region::Next)), "(`rank` IS NULL OR `rank` < NULL)");
    // Among the values, and over both regions, `IS NULL` is a disjunct already.
    assert!(!sql!(after(&value).region(Region::Cursor)).contains("NULL"));
    assert!(!sql!(after(&value)).contains("< NULL"));
    assert!(!sql!(before(&draft)).contains("< NULL"));
}

/// A page of an order grouped by a joined row runs, one author at a time: the rest of the
/// cursor's author (its keys equal, the posts' keys past the cursor), the next author's key
/// under the ORDER BY of the authors' keys alone, and that author's posts, each statement as the
/// page writes it, logged by Diesel's instrumentation (`machine/groups.rs`).
#[test]
fn a_grouped_page_walks_one_author_at_a_time() {
    use diesel::connection::{Instrumentation, InstrumentationEvent};
    use keyset_runtime::{PageRequest, Paginate};
    use keyset_tests::models::PostByAuthorGroup;
    use keyset_tests::schema::authors;
    use std::sync::{Arc, Mutex};

    let mut conn = crate::suite::db::seeded(40);
    let query = || posts::table.inner_join(authors::table).select(PostByAuthorGroup::as_select());
    // Eight posts per author: the page after the third post of author 1 holds the rest of
    // author 1's and the first of author 2's.
    let first = query().paginate(&PageRequest::first(3)).unwrap().load_page(&mut conn).unwrap();
    let log = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&log);
    conn.set_instrumentation(move |event: InstrumentationEvent<'_>| {
        if let InstrumentationEvent::StartQuery { query, .. } = event {
            let sql = query.to_string();
            sink.lock().unwrap().push(sql.split(" -- binds: ").next().unwrap().to_owned());
        }
    });
    let after = PageRequest::after(first.next_cursor.unwrap(), 6);
    let page = query().paginate(&after).unwrap().load_page(&mut conn).unwrap();
    conn.set_instrumentation(None::<Box<dyn Instrumentation>>);
    let keys: Vec<i64> = page.items.iter().map(|post| post.author_key).collect();
    assert_eq!(keys, [1, 1, 1, 1, 1, 2]);
    let select = "SELECT `authors`.`name`, `authors`.`id`, `posts`.`created_at`, `posts`.`id` \
                  FROM (`posts` INNER JOIN `authors` ON (`posts`.`author_id` = `authors`.`id`)) WHERE ";
    let order = " ORDER BY `authors`.`name` ASC, `authors`.`id` ASC, `posts`.`created_at` DESC, \
                 `posts`.`id` DESC LIMIT ?";
    let author = "`authors`.`name` = ? AND `authors`.`id` = ?";
    assert_eq!(
        *log.lock().unwrap(),
        [
            format!(
                "{select}({author} AND ((`posts`.`created_at` < ? OR (`posts`.`created_at` = ? \
                 AND `posts`.`id` < ?)))){order}"
            ),
            format!(
                "{select}((`authors`.`name` > ? OR (`authors`.`name` = ? AND `authors`.`id` > ?))) \
                 ORDER BY `authors`.`name` ASC, `authors`.`id` ASC LIMIT ?"
            ),
            format!("{select}({author}){order}"),
        ]
    );
}
