//! The pages the feeds bench times over `bench_feed` ([`crate::feed_seed`]), each the 20 newest
//! posts (and the probe row) of a set of authors, after a cursor or from the start:
//!
//! - `api`: `among(author_id, set).paginate(..)?.load_page(..)`, tokens included;
//! - `naive`: what users write today, `filter(author_id.eq_any(set))` with
//!   [`Keyset::after`], the model's ORDER BY and `LIMIT 21`;
//! - [`Hand`] statements, SQL written by an expert and run through Diesel with binds, cached as
//!   a prepared statement by their text (Diesel's `sql_query` opts out of the statement cache,
//!   [`Hand`] does not): on PostgreSQL a `LATERAL` join over the set as one array
//!   ([`pg_lateral`]) and GitLab's recursive CTE ([`pg_recursive`], "Efficient IN operator
//!   queries": each author's next key kept in arrays, the newest taken and that author alone
//!   advanced, once per row); on SQLite and MariaDB a `UNION ALL` of one seek per author
//!   ([`union_all`]). Every `LIMIT` is written literally, as an expert writes it (a bound
//!   `LIMIT` keeps PostgreSQL from its generic plan).

use chrono::NaiveDateTime;
use diesel::backend::Backend;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, HasSqlType, Timestamp, Untyped};
use diesel::{QueryResult, RunQueryDsl};

use crate::feed_seed::FeedPostCursor;
use crate::pages::FETCH;

/// A piece of a hand-written statement: SQL, or a value bound in its place.
pub enum Piece {
    Sql(String),
    Int(i64),
    At(NaiveDateTime),
    /// A PostgreSQL `BIGINT[]`.
    Ints(Vec<i64>),
}

/// A hand-written statement and its binds. Its text is its cache key: Diesel prepares it once
/// per connection and reuses it.
#[derive(Default)]
pub struct Hand(Vec<Piece>);

impl Hand {
    fn sql(mut self, sql: &str) -> Self {
        match self.0.last_mut() {
            Some(Piece::Sql(text)) => text.push_str(sql),
            _ => self.0.push(Piece::Sql(sql.to_owned())),
        }
        self
    }

    fn int(mut self, value: i64) -> Self {
        self.0.push(Piece::Int(value));
        self
    }

    fn at(mut self, value: NaiveDateTime) -> Self {
        self.0.push(Piece::At(value));
        self
    }

    fn ints(mut self, values: &[i64]) -> Self {
        self.0.push(Piece::Ints(values.to_vec()));
        self
    }
}

/// What a backend binds an array with (PostgreSQL only).
pub trait HandBackend: Backend + HasSqlType<BigInt> + HasSqlType<Timestamp> {
    fn push_ints<'b>(out: AstPass<'_, 'b, Self>, values: &'b [i64]) -> QueryResult<()>;
}

impl HandBackend for diesel::sqlite::Sqlite {
    fn push_ints<'b>(_: AstPass<'_, 'b, Self>, _: &'b [i64]) -> QueryResult<()> {
        Err(diesel::result::Error::QueryBuilderError("SQLite has no arrays".into()))
    }
}

#[cfg(feature = "mysql")]
impl HandBackend for diesel::mysql::Mysql {
    fn push_ints<'b>(_: AstPass<'_, 'b, Self>, _: &'b [i64]) -> QueryResult<()> {
        Err(diesel::result::Error::QueryBuilderError("MariaDB has no arrays".into()))
    }
}

#[cfg(feature = "postgres")]
impl HandBackend for diesel::pg::Pg {
    fn push_ints<'b>(mut out: AstPass<'_, 'b, Self>, values: &'b [i64]) -> QueryResult<()> {
        out.push_bind_param::<diesel::sql_types::Array<BigInt>, [i64]>(values)
    }
}

impl QueryId for Hand {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl Query for Hand {
    type SqlType = Untyped;
}

impl<Conn> RunQueryDsl<Conn> for Hand {}

impl<DB: HandBackend> QueryFragment<DB> for Hand
where
    i64: ToSql<BigInt, DB>,
    NaiveDateTime: ToSql<Timestamp, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        for piece in &self.0 {
            match piece {
                Piece::Sql(sql) => out.push_sql(sql),
                Piece::Int(value) => out.push_bind_param::<BigInt, i64>(value)?,
                Piece::At(value) => out.push_bind_param::<Timestamp, NaiveDateTime>(value)?,
                Piece::Ints(values) => DB::push_ints(out.reborrow(), values)?,
            }
        }
        Ok(())
    }
}

const COLUMNS: &str = "id, created_at, author_id, title";
const ORDER: &str = " ORDER BY created_at DESC, id DESC";

/// `SELECT .. LIMIT 21` of the rows after `cursor` in a `LATERAL` join over the set:
///
/// ```sql
/// SELECT p.* FROM unnest($1::bigint[]) AS a(author) CROSS JOIN LATERAL
///   (SELECT .. FROM bench_feed WHERE author_id = a.author AND (created_at, id) < ($2, $3)
///    ORDER BY created_at DESC, id DESC LIMIT 21) AS p
/// ORDER BY p.created_at DESC, p.id DESC LIMIT 21
/// ```
///
/// With `keys_only`, the seeks read the index alone (`created_at, id`) and the 21 newest keys
/// are joined back to their rows: 21 row fetches in all rather than 21 per author.
pub fn pg_lateral(set: &[i64], cursor: Option<&FeedPostCursor>, keys_only: bool) -> Hand {
    let (open, columns) = if keys_only {
        (
            "SELECT f.id, f.created_at, f.author_id, f.title FROM (SELECT p.id FROM unnest(",
            "created_at, id",
        )
    } else {
        ("SELECT p.id, p.created_at, p.author_id, p.title FROM unnest(", COLUMNS)
    };
    let hand = Hand::default().sql(open).ints(set).sql(&format!(
        "::bigint[]) AS a(author) CROSS JOIN LATERAL (SELECT {columns} FROM bench_feed \
         WHERE author_id = a.author"
    ));
    let hand = match cursor {
        Some(c) => {
            hand.sql(" AND (created_at, id) < (").at(c.created_at).sql(", ").int(c.id).sql(")")
        }
        None => hand,
    };
    let hand = hand.sql(&format!(
        "{ORDER} LIMIT {FETCH}) AS p ORDER BY p.created_at DESC, p.id DESC LIMIT {FETCH}"
    ));
    if keys_only {
        hand.sql(") AS k JOIN bench_feed AS f ON f.id = k.id ORDER BY f.created_at DESC, f.id DESC")
    } else {
        hand
    }
}

/// GitLab's recursive form ("Efficient IN operator queries"). The initial row holds, per
/// author of the set (in `authors`), the key of its newest post after the cursor (`ats`, `ids`;
/// NULL for an author with none). Each step takes the newest of those keys (`top`, its position
/// `k`), fetches that post by its id, and advances author `k` alone to its next post; the steps
/// come out in the order of the feed, and the outer `LIMIT 21` stops the recursion.
pub fn pg_recursive(set: &[i64], cursor: Option<&FeedPostCursor>) -> Hand {
    let hand = Hand::default()
        .sql(
            "WITH RECURSIVE feed(record, authors, ats, ids, n) AS ((\
             SELECT NULL::bench_feed, array_agg(a.author ORDER BY a.k), \
             array_agg(f.created_at ORDER BY a.k), array_agg(f.id ORDER BY a.k), 0 \
             FROM unnest(",
        )
        .ints(set)
        .sql(
            "::bigint[]) WITH ORDINALITY AS a(author, k) LEFT JOIN LATERAL (\
             SELECT created_at, id FROM bench_feed WHERE author_id = a.author",
        );
    let hand = match cursor {
        Some(c) => {
            hand.sql(" AND (created_at, id) < (").at(c.created_at).sql(", ").int(c.id).sql(")")
        }
        None => hand,
    };
    hand.sql(&format!(
        "{ORDER} LIMIT 1) AS f ON TRUE) \
         UNION ALL (\
         SELECT (SELECT b FROM bench_feed AS b WHERE b.id = top.id), feed.authors, \
         feed.ats[:top.k - 1] || next.created_at || feed.ats[top.k + 1:], \
         feed.ids[:top.k - 1] || next.id || feed.ids[top.k + 1:], feed.n + 1 \
         FROM feed CROSS JOIN LATERAL (\
         SELECT u.at, u.id, u.k::int AS k FROM unnest(feed.ats, feed.ids) WITH ORDINALITY \
         AS u(at, id, k) WHERE u.id IS NOT NULL ORDER BY u.at DESC, u.id DESC LIMIT 1) AS top \
         LEFT JOIN LATERAL (\
         SELECT created_at, id FROM bench_feed WHERE author_id = feed.authors[top.k] \
         AND (created_at, id) < (top.at, top.id){ORDER} LIMIT 1) AS next ON TRUE \
         WHERE feed.n < {FETCH})) \
         SELECT (record).id, (record).created_at, (record).author_id, (record).title \
         FROM feed WHERE n > 0 LIMIT {FETCH}"
    ))
}

/// The engines a `UNION ALL` is written for.
#[derive(Clone, Copy, PartialEq)]
pub enum Union {
    /// `SELECT * FROM (branch) UNION ALL ..`, at most 500 terms a compound (SQLite's
    /// `SQLITE_MAX_COMPOUND_SELECT`), a larger set a compound of compounds.
    Sqlite,
    /// SQLite's compound without an ORDER BY of its own, in a subquery that the outer
    /// `ORDER BY .. LIMIT 21` sorts: SQLite merges an ordered compound term by term (the rows
    /// of the last term pass one comparison, the first term's one per term), a sorted subquery
    /// with a top-21 sorter.
    SqliteSortedOutside,
    /// `(branch) UNION ALL (branch) ..`.
    Mysql,
}

/// One seek per author, `(SELECT .. WHERE author_id = ? AND created_at <= ? AND (created_at < ?
/// OR (created_at = ? AND id < ?)) ORDER BY created_at DESC, id DESC LIMIT 21)`, their
/// `UNION ALL` ordered and limited to 21.
///
/// With `keys_only` (not for [`Union::SqliteSortedOutside`]), each seek reads the index alone
/// (`created_at, id`, a covering index on both engines) and the 21 newest keys are joined back
/// to their rows: 21 row fetches rather than 21 per author.
pub fn union_all(
    engine: Union,
    set: &[i64],
    cursor: Option<&FeedPostCursor>,
    keys_only: bool,
) -> Hand {
    let columns = if keys_only { "created_at, id" } else { COLUMNS };
    let branch = |hand: Hand, author: i64| {
        let hand =
            hand.sql(&format!("SELECT {columns} FROM bench_feed WHERE author_id = ")).int(author);
        let hand = match cursor {
            Some(c) => hand
                .sql(" AND created_at <= ")
                .at(c.created_at)
                .sql(" AND (created_at < ")
                .at(c.created_at)
                .sql(" OR (created_at = ")
                .at(c.created_at)
                .sql(" AND id < ")
                .int(c.id)
                .sql("))"),
            None => hand,
        };
        hand.sql(&format!("{ORDER} LIMIT {FETCH}"))
    };
    let tail = format!("{ORDER} LIMIT {FETCH}");
    let mut hand = Hand::default();
    if keys_only {
        hand = hand.sql("SELECT f.id, f.created_at, f.author_id, f.title FROM (");
        if engine == Union::Mysql {
            hand = hand.sql("SELECT * FROM (");
        }
    }
    match engine {
        Union::Mysql => {
            for (index, &author) in set.iter().enumerate() {
                hand =
                    branch(hand.sql(if index > 0 { " UNION ALL (" } else { "(" }), author).sql(")");
            }
        }
        Union::Sqlite | Union::SqliteSortedOutside => {
            let outside = engine == Union::SqliteSortedOutside;
            if outside {
                hand = hand.sql("SELECT * FROM (");
            }
            let compound = |mut hand: Hand, authors: &[i64]| {
                for (index, &author) in authors.iter().enumerate() {
                    let open =
                        if index > 0 { " UNION ALL SELECT * FROM (" } else { "SELECT * FROM (" };
                    hand = branch(hand.sql(open), author).sql(")");
                }
                hand
            };
            if set.len() <= 500 {
                hand = compound(hand, set);
            } else {
                for (index, chunk) in set.chunks(500).enumerate() {
                    let open =
                        if index > 0 { " UNION ALL SELECT * FROM (" } else { "SELECT * FROM (" };
                    hand = compound(hand.sql(open), chunk);
                    hand = if outside { hand.sql(")") } else { hand.sql(&tail).sql(")") };
                }
            }
            if outside {
                hand = hand.sql(")");
            }
        }
    }
    let hand = hand.sql(&tail);
    let join = "AS k JOIN bench_feed AS f ON f.id = k.id ORDER BY f.created_at DESC, f.id DESC";
    match (keys_only, engine) {
        (false, _) => hand,
        (true, Union::Mysql) => hand.sql(&format!(") AS u) {join}")),
        (true, _) => hand.sql(&format!(") {join}")),
    }
}
