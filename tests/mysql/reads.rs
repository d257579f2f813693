//! A page reads about its own rows, counted by MariaDB's handler counters: the index entries and
//! rows the statements of `load_page` read (`Handler_read_*`), and those that index condition
//! pushdown tested inside the engine and rejected, which the read counters leave out
//! (`Handler_icp_attempts` less `Handler_icp_match`). `plan.rs` shows that a page's access is
//! a range; these counters fail when a page reads its cursor's tie group or the rows before its
//! cursor (the pages: `keyset_tests::reads`). Every page here reads 21 to 23 entries.
//!
//! Among many NULLs of a nullable leading key (from about 200,000 rows here), MariaDB looks up
//! `x IS NULL AND id < ?` by `x IS NULL` alone and tests `id < ?` on every NULL before the
//! cursor, unless the predicate holds `OR x < NULL` (`SeekDialect::NULL_REGION_RANGE`): the last
//! test counts that page.

use diesel::prelude::*;
use diesel::sql_types::Text;
use keyset_runtime::migration::Backend;
use keyset_runtime::{Keyset, Paginate};
use keyset_tests::assert_pages_read_their_rows;
use keyset_tests::models::{Newest, NewestIdAsc, RankDescNullsLast};
use keyset_tests::reads::{LIMIT, ROWS};
use keyset_tests::schema::posts;

use crate::suite::db;

#[derive(QueryableByName)]
struct Status {
    #[diesel(sql_type = Text, column_name = "Variable_name")]
    name: String,
    #[diesel(sql_type = Text, column_name = "Value")]
    value: String,
}

/// A session counter of `SHOW SESSION STATUS` (`Sort_rows`: the rows the connection's
/// statements have sorted so far).
pub(crate) fn session_status(conn: &mut MysqlConnection, name: &str) -> i64 {
    let status: Vec<Status> =
        diesel::sql_query(format!("SHOW SESSION STATUS LIKE '{name}'")).load(conn).unwrap();
    status.first().map_or(0, |status| status.value.parse().unwrap())
}

/// What the connection's statements have read so far: index entries and rows handed over, and
/// the entries that index condition pushdown rejected inside the engine. (`SHOW STATUS` itself
/// counts none.)
fn entries_read(conn: &mut MysqlConnection) -> i64 {
    let status: Vec<Status> =
        diesel::sql_query("SHOW SESSION STATUS LIKE 'Handler\\_%'").load(conn).unwrap();
    let value = |name: &str| {
        status.iter().find(|s| s.name == name).map_or(0, |s| s.value.parse::<i64>().unwrap())
    };
    let reads: i64 = ["first", "key", "last", "next", "prev", "rnd", "rnd_next"]
        .iter()
        .map(|read| value(&format!("Handler_read_{read}")))
        .sum();
    reads + value("Handler_icp_attempts") - value("Handler_icp_match")
}

#[test]
fn a_page_reads_about_its_own_rows() {
    let mut conn = db::seeded(ROWS);
    for index in [Newest::INDEXES, NewestIdAsc::INDEXES, RankDescNullsLast::INDEXES].concat() {
        // The models share their feeds' prefix index, which the schema may hold already.
        let create =
            index.create(Backend::Mysql).replacen("CREATE INDEX", "CREATE INDEX IF NOT EXISTS", 1);
        diesel::sql_query(create).execute(&mut conn).unwrap();
    }
    diesel::sql_query("ANALYZE TABLE posts").execute(&mut conn).unwrap();
    assert_pages_read_their_rows!(&mut conn, entries_read, "analysed");
}

/// `RankDescNullsLast` with a column its index does not hold: MariaDB seeks a page that the
/// index covers in any case.
#[derive(Queryable, Selectable, Keyset)]
#[diesel(table_name = posts)]
struct Draft {
    #[sort(desc, nulls = last)]
    rank: Option<i32>,
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
    title: String,
}

#[test]
fn a_page_half_way_through_many_nulls_reads_its_own_rows() {
    use keyset_runtime::__testing::token;
    use keyset_runtime::{Direction, PageRequest};

    // One row in seven a NULL rank: 28,571 NULLs, last in the order, the largest id first.
    const MANY: i64 = 200_000;
    let mut conn = crate::connect();
    let fill = format!(
        "INSERT INTO posts SELECT seq, 1 + seq % 10, TIMESTAMP '2024-01-01 00:00:00' + INTERVAL seq SECOND,
                seq % 100, 'tag', CONCAT('post ', seq), IF(seq % 7 = 0, NULL, seq % 1000), NULL
         FROM seq_1_to_{MANY}"
    );
    diesel::sql_query(fill).execute(&mut conn).unwrap();
    for index in Draft::INDEXES {
        diesel::sql_query(index.create(Backend::Mysql)).execute(&mut conn).unwrap();
    }
    diesel::sql_query("ANALYZE TABLE posts").execute(&mut conn).unwrap();

    let cursor = DraftCursor { rank: None, id: MANY / 2 / 7 * 7 };
    let after = token::encode(Draft::FINGERPRINT, Direction::After, &cursor).unwrap();
    let before = entries_read(&mut conn);
    let page = posts::table
        .select(Draft::as_select())
        .paginate(&PageRequest::after(after, LIMIT))
        .unwrap()
        .load_page(&mut conn)
        .unwrap();
    let read = entries_read(&mut conn) - before;
    let ids: Vec<i64> = page.items.iter().map(|draft| draft.id).collect();
    let expected: Vec<i64> = (1..=i64::from(LIMIT)).map(|k| cursor.id - 7 * k).collect();
    assert_eq!(ids, expected, "the next NULLs, newest first");
    assert!(page.items.iter().all(|draft| draft.rank.is_none() && !draft.title.is_empty()));
    let bound = i64::from(LIMIT + 1) + 4;
    assert!(read <= bound, "{read} entries read for {} rows", ids.len());
    assert!(read > ids.len() as i64, "{read} entries counted for {} rows", ids.len());
}

/// A page of the order grouped by the joined author (`PostByAuthorGroup`: `authors.name,
/// authors.id, created_at DESC, id DESC`) walks one author at a time (`machine/groups.rs`): it
/// reads its rows, and for each author it reaches, the authors' index entry and the first entry
/// of that author's posts. From both ends and past cursors at three depths, both ways, over 2,000
/// authors of 10 posts (`joins_plan::seeded`). One statement over every later author, as before
/// the walk, read all their posts and sorted them: tens of thousands of entries at the start.
#[test]
fn a_page_grouped_by_the_joined_author_reads_its_rows_and_the_authors_it_reaches() {
    use keyset_runtime::__testing::token;
    use keyset_runtime::{Direction, PageRequest};
    use keyset_tests::models::PostByAuthorGroup;
    use keyset_tests::schema::authors;

    let mut conn = crate::suite::joins_plan::seeded();
    for index in PostByAuthorGroup::INDEXES {
        diesel::sql_query(index.create(Backend::Mysql)).execute(&mut conn).unwrap();
    }
    crate::migrations_db::analyze_joins(&mut conn);
    let query = || posts::table.inner_join(authors::table).select(PostByAuthorGroup::as_select());
    let rows: Vec<PostByAuthorGroup> =
        query().order(PostByAuthorGroup::order_by()).load(&mut conn).unwrap();
    let authors: Vec<i64> =
        posts::table.select(posts::author_id).distinct().load(&mut conn).unwrap();
    assert_eq!(rows.len(), authors.len() * 10, "ten posts per author");
    let token = |at: usize, direction| {
        token::encode(PostByAuthorGroup::FINGERPRINT, direction, &rows[at].cursor()).unwrap()
    };
    let mut requests = vec![PageRequest::first(LIMIT), PageRequest::last(LIMIT)];
    for at in [rows.len() / 10 + 3, rows.len() / 2, rows.len() * 9 / 10 + 7] {
        requests.push(PageRequest::after(token(at, Direction::After), LIMIT));
        requests.push(PageRequest::before(token(at, Direction::Before), LIMIT));
    }
    for request in requests {
        let before = entries_read(&mut conn);
        let page = query().paginate(&request).unwrap().load_page(&mut conn).unwrap();
        let read = entries_read(&mut conn) - before;
        assert_eq!(page.items.len(), LIMIT as usize, "{request:?}");
        let mut reached: Vec<i64> = page.items.iter().map(|post| post.author_key).collect();
        reached.dedup();
        // The statements: the rest of the cursor's author, then per author reached (the
        // probe row's too) its key's and its rows'. Each reads its rows and at most three
        // entries more: the authors' index entry and a post's where it finds a key, the author
        // by its key and the entry that ends the range where it reads posts.
        let statements = 1 + 2 * (reached.len() as i64 + 1);
        let bound = i64::from(LIMIT + 1) + 3 * statements;
        assert!(read <= bound, "{request:?}: {read} entries for {} authors", reached.len());
        assert!(read > i64::from(LIMIT), "{request:?}: {read} entries counted");
    }
}
