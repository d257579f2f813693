//! A migration under a running service costs no failed page (nor count): a column a page selects changes
//! its type (and back) between pages of one connection, whose prepared statements were cached
//! before; every page after it is served, on the sync and the async path, and equals the page
//! served before. PostgreSQL refuses a statement prepared before such a change (`cached plan must
//! not change result type`) until the connection forgets it: the page retries once on a fresh
//! statement (`run/stale.rs`). MariaDB and SQLite re-prepare by themselves; SQLite has no
//! `ALTER COLUMN .. TYPE`, so there a column is added and dropped.

use diesel::prelude::*;
use keyset_runtime::{Page, PageRequest, Paginate};
use keyset_tests::models::{ByUniqueTitle, Post};
use keyset_tests::schema::posts;

use super::asynchronous::{runtime, seeded_async};
use super::db;
use crate::{AsyncConn, Conn};

/// The migration's two steps, there and back, as each backend writes them.
trait TitleChanges {
    const THERE_AND_BACK: [&'static str; 2];
}

impl TitleChanges for diesel::sqlite::Sqlite {
    const THERE_AND_BACK: [&'static str; 2] =
        ["ALTER TABLE posts ADD COLUMN extra INTEGER", "ALTER TABLE posts DROP COLUMN extra"];
}

#[cfg(feature = "postgres")]
impl TitleChanges for diesel::pg::Pg {
    const THERE_AND_BACK: [&'static str; 2] = [
        "ALTER TABLE posts ALTER COLUMN title TYPE varchar(300)",
        "ALTER TABLE posts ALTER COLUMN title TYPE text",
    ];
}

#[cfg(feature = "mysql")]
impl TitleChanges for diesel::mysql::Mysql {
    const THERE_AND_BACK: [&'static str; 2] = [
        "ALTER TABLE posts MODIFY title VARCHAR(300) NOT NULL",
        "ALTER TABLE posts MODIFY title VARCHAR(64) NOT NULL",
    ];
}

const CHANGES: [&str; 2] = <<Conn as Connection>::Backend as TitleChanges>::THERE_AND_BACK;

/// A first page of a model that selects `title`, and a page after a cursor of one sorted by it.
fn pages(conn: &mut Conn) -> (Page<Post>, Page<ByUniqueTitle>, i64) {
    let first = posts::table.select(Post::as_select()).paginate(&PageRequest::first(4)).unwrap();
    let count = first.total_count(conn).expect("the count is served");
    let first = first.load_page(conn).expect("the page is served");
    let titles = || posts::table.select(ByUniqueTitle::as_select());
    let top = titles().paginate(&PageRequest::first(3)).unwrap().load_page(conn).unwrap();
    let next = PageRequest::after(top.next_cursor.unwrap(), 3);
    let after = titles().paginate(&next).unwrap().load_page(conn).expect("the page is served");
    (first, after, count)
}

#[test]
fn a_column_type_changed_both_ways_fails_no_page() {
    let mut conn = db::seeded(30);
    let before = pages(&mut conn);
    for change in CHANGES {
        diesel::sql_query(change).execute(&mut conn).expect(change);
        assert_eq!(pages(&mut conn), before, "after {change}");
        assert_eq!(pages(&mut conn), before, "again after {change}");
    }
}

async fn first_page_async(conn: &mut AsyncConn) -> (Page<Post>, i64) {
    let request = PageRequest::first(4);
    let page = posts::table.select(Post::as_select()).paginate(&request).unwrap();
    let count = page.total_count_async(conn).await.expect("the count is served");
    (page.load_page_async(conn).await.expect("the page is served"), count)
}

#[test]
fn a_column_type_changed_both_ways_fails_no_async_page() {
    runtime().block_on(async {
        let mut conn = seeded_async(30).await;
        let before = first_page_async(&mut conn).await;
        for change in CHANGES {
            diesel_async::RunQueryDsl::execute(diesel::sql_query(change), &mut conn)
                .await
                .expect(change);
            assert_eq!(first_page_async(&mut conn).await, before, "after {change}");
            assert_eq!(first_page_async(&mut conn).await, before, "again after {change}");
        }
    });
}
