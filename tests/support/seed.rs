//! Deterministic data with heavy ties: most rows share their leading sort value with dozens of
//! others, so every page boundary falls inside a tie group.

use chrono::{DateTime, NaiveDateTime};
use diesel::prelude::*;

use crate::schema::{authors, memberships, posts};

/// Tag values: unicode, case and accents, so text comparison is exercised.
pub const TAGS: &[&str] = &["apple", "Apple", "été", "Zürich", "ß", "日本", "a'b\"c;--"];

#[derive(Insertable)]
#[diesel(table_name = posts)]
pub struct NewPost {
    pub id: i64,
    pub author_id: i64,
    pub created_at: NaiveDateTime,
    pub score: i32,
    pub tag: String,
    pub title: String,
}

/// One of 13 timestamps, some with microseconds, so ties are heavy and precision matters.
pub fn timestamp(slot: i64) -> NaiveDateTime {
    let micros = 1_700_000_000_000_000 + slot * 1_000_001 + (slot % 3) * 7;
    DateTime::from_timestamp_micros(micros).expect("in range").naive_utc()
}

/// The post with the given id (ids start at 1).
pub fn post(id: i64) -> NewPost {
    NewPost {
        id,
        author_id: 1 + id % 5,
        created_at: timestamp((id * 7) % 13),
        score: (id % 4) as i32,
        tag: TAGS[(id % TAGS.len() as i64) as usize].to_owned(),
        title: format!("post {id:05}"),
    }
}

/// Five authors and `count` posts (ids 1..=count), and 60 memberships.
pub fn seed(conn: &mut SqliteConnection, count: i64) {
    let names: Vec<_> = (1..=5i64).map(|id| (authors::id.eq(id), authors::name.eq(format!("author {id}")))).collect();
    diesel::insert_into(authors::table).values(&names).execute(conn).expect("insert authors");
    insert_posts(conn, 1..=count);
    let members: Vec<_> = (0..60i32)
        .map(|i| {
            (
                memberships::team_id.eq(i % 4),
                memberships::user_id.eq(i / 4),
                memberships::joined_at.eq(timestamp(i64::from(i % 3))),
            )
        })
        .collect();
    diesel::insert_into(memberships::table).values(&members).execute(conn).expect("insert memberships");
}

/// Inserts the posts with these ids.
pub fn insert_posts(conn: &mut SqliteConnection, ids: impl IntoIterator<Item = i64>) {
    let rows: Vec<NewPost> = ids.into_iter().map(post).collect();
    for chunk in rows.chunks(500) {
        diesel::insert_into(posts::table).values(chunk).execute(conn).expect("insert posts");
    }
}
