//! The tables, their indexes and the seeded rows: created when missing, so that a server starts
//! on an empty database (the example keeps no migrations; `examples/blog` shows them).

use chrono::DateTime;
use diesel::QueryDsl;
use diesel_async::{AsyncConnectionCore, RunQueryDsl, SimpleAsyncConnection};
use keyset_runtime::migration::Backend as Dialect;
use keyset_runtime::Keyset;

use super::{feed, follows, posts, Backend, Error, Post};

/// The table; its indexes are the model's, [`Post::INDEXES`] (one per order, each served
/// backwards for the other direction, and each again led by `author_id` for feeds), so that
/// every page is one index seek (a feed's, one per author). `AUTOINCREMENT`: a
/// deleted post's id is never given to a new one (a plain `INTEGER PRIMARY KEY` reuses the
/// highest id after it is deleted), as on the servers.
const SQLITE_DDL: &str = "
    CREATE TABLE IF NOT EXISTS posts (
        id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
        author_id BIGINT NOT NULL,
        created_at TIMESTAMP NOT NULL,
        score INTEGER NOT NULL DEFAULT 0,
        title TEXT NOT NULL
    )";

#[cfg(feature = "postgres")]
const POSTGRES_DDL: &str = "
    CREATE TABLE IF NOT EXISTS posts (
        id BIGSERIAL PRIMARY KEY,
        author_id BIGINT NOT NULL,
        created_at TIMESTAMP NOT NULL,
        score INTEGER NOT NULL DEFAULT 0,
        title TEXT NOT NULL
    )";

/// `DATETIME(6)` keeps microseconds (plain `DATETIME` rounds them away, and ties would change);
/// the title is a `VARCHAR`, since a MySQL index holds a `TEXT` column only by a prefix, and
/// `utf8mb4`, so that it holds any title.
#[cfg(feature = "mysql")]
const MYSQL_DDL: &str = "
    CREATE TABLE IF NOT EXISTS posts (
        id BIGINT AUTO_INCREMENT PRIMARY KEY,
        author_id BIGINT NOT NULL,
        created_at DATETIME(6) NOT NULL,
        score INT NOT NULL DEFAULT 0,
        title VARCHAR(255) NOT NULL
    ) DEFAULT CHARSET = utf8mb4";

/// Who follows whom, on every backend: the primary key is the index a user's follows are read
/// by (`follower_id = ?`), and makes a follow happen once.
const FOLLOWS_DDL: &str = "
    CREATE TABLE IF NOT EXISTS follows (
        follower_id BIGINT NOT NULL,
        author_id BIGINT NOT NULL,
        PRIMARY KEY (follower_id, author_id)
    )";

/// Creates the tables and indexes of `backend` when missing, and seeds them (see [`seed`]).
pub(super) async fn prepare(backend: &Backend, rows: i64) -> Result<(), Error> {
    match backend {
        Backend::Sqlite(pool) => {
            let indexes = index_ddl(Dialect::Sqlite, &[]);
            seed(&mut *pool.get().await?, SQLITE_DDL, &indexes, rows).await?
        }
        #[cfg(feature = "postgres")]
        Backend::Postgres(pool) => {
            let indexes = index_ddl(Dialect::Postgres, &[]);
            seed(&mut *pool.get().await?, POSTGRES_DDL, &indexes, rows).await?
        }
        #[cfg(feature = "mysql")]
        Backend::Mysql(pool) => {
            let conn = &mut *pool.get().await?;
            let existing = mysql_indexes(conn).await?;
            let indexes = index_ddl(Dialect::Mysql, &existing);
            seed(conn, MYSQL_DDL, &indexes, rows).await?
        }
    }
    Ok(())
}

/// The `CREATE INDEX` statements of the indexes the orders need ([`Post::INDEXES`], the
/// derive's DDL, so that they always match the orders), but those named in `existing`.
fn index_ddl(dialect: Dialect, existing: &[String]) -> Vec<&'static str> {
    Post::INDEXES
        .iter()
        .filter(|index| !existing.iter().any(|name| name == index.name))
        .map(|index| index.create(dialect))
        .collect()
}

/// The names of the indexes on `posts`: MySQL has no `CREATE INDEX IF NOT EXISTS` (MariaDB has),
/// so the missing ones are created by name.
#[cfg(feature = "mysql")]
async fn mysql_indexes(
    conn: &mut diesel_async::AsyncMysqlConnection,
) -> Result<Vec<String>, Error> {
    #[derive(diesel::QueryableByName)]
    struct Index {
        #[diesel(sql_type = diesel::sql_types::Text)]
        name: String,
    }
    let indexes: Vec<Index> = diesel::sql_query(
        "SELECT DISTINCT INDEX_NAME AS name FROM information_schema.STATISTICS \
         WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'posts'",
    )
    .load(conn)
    .await?;
    Ok(indexes.into_iter().map(|index| index.name).collect())
}

/// Creates the tables (`ddl`, and the follows) and the posts' `indexes`; when there are no
/// posts, adds `rows` posts whose timestamps tie in groups of ten, ids shuffled against time;
/// scores (0 to 6) tie too, and titles in pairs (`post 0` twice, ..), so that every order's later
/// keys decide; their authors take turns ([`Post::AUTHORS`]). When there are no follows, each
/// seeded author follows the next three ([`feed::seeded_follows`]).
async fn seed<C>(conn: &mut C, ddl: &str, indexes: &[&str], rows: i64) -> Result<(), Error>
where
    C: AsyncConnectionCore + SimpleAsyncConnection,
    diesel::dsl::Select<posts::table, diesel::dsl::CountStar>:
        diesel_async::methods::LoadQuery<'static, C, i64>,
    diesel::dsl::Select<follows::table, diesel::dsl::CountStar>:
        diesel_async::methods::LoadQuery<'static, C, i64>,
{
    conn.batch_execute(ddl).await?;
    conn.batch_execute(FOLLOWS_DDL).await?;
    for index in indexes {
        conn.batch_execute(index).await?;
    }
    let follows: i64 = follows::table.count().get_result(conn).await?;
    if follows == 0 {
        let pairs: Vec<String> = (1..=Post::AUTHORS)
            .flat_map(|user| {
                feed::seeded_follows(user).map(move |author| format!("({user}, {author})"))
            })
            .collect();
        let sql =
            format!("INSERT INTO follows (follower_id, author_id) VALUES {}", pairs.join(", "));
        conn.batch_execute(&sql).await?;
    }
    let existing: i64 = posts::table.count().get_result(conn).await?;
    if existing > 0 {
        return Ok(());
    }
    let groups = (rows / 10).max(1);
    let values: Vec<String> = (0..rows)
        .map(|i| {
            // 7919 is prime, so consecutive ids land in scattered time slots.
            let slot = (i * 7919) % groups;
            let at = DateTime::from_timestamp(1_700_000_000 + slot * 3_600, 123_456_000)
                .expect("in range")
                .naive_utc();
            // Literals of our own making (no user input): one multi-row INSERT per 500 rows,
            // which diesel-async's SQLite wrapper has no batch insert for.
            // Authors in turn, three apart, shifted every ten posts: each has as many posts, spread
            // over the timestamps rather than tied to some of them.
            let author = 1 + (3 * i + i / 10) % Post::AUTHORS;
            let (score, title) = ((i * 3) % 7, i / 2);
            let at = at.format("%Y-%m-%d %H:%M:%S%.6f");
            format!("({author}, '{at}', {score}, 'post {title}')")
        })
        .collect();
    for chunk in values.chunks(500) {
        let sql = format!(
            "INSERT INTO posts (author_id, created_at, score, title) VALUES {}",
            chunk.join(", ")
        );
        conn.batch_execute(&sql).await?;
    }
    Ok(())
}
