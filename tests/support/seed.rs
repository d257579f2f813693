//! Deterministic data with heavy ties: most rows share their leading sort value with dozens of
//! others, so every page boundary falls inside a tie group.

use chrono::{DateTime, NaiveDateTime};
use diesel::prelude::*;

use crate::schema::posts;

/// Tag values: unicode, case and accents, so text comparison is exercised.
pub const TAGS: &[&str] = &["apple", "Apple", "été", "Zürich", "ß", "日本", "a'b\"c;--"];

#[derive(Insertable, Debug, Clone)]
#[diesel(table_name = posts)]
pub struct NewPost {
    pub id: i64,
    pub author_id: i64,
    pub created_at: NaiveDateTime,
    pub score: i32,
    pub tag: String,
    pub title: String,
    pub rank: Option<i32>,
    pub due: Option<NaiveDateTime>,
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
        // About 10% NULLs, and heavy ties among the rest.
        rank: (id % 10 != 3).then_some((id % 6) as i32),
        due: (id % 9 != 0).then(|| timestamp((id * 5) % 11)),
    }
}

/// The five authors.
pub fn authors() -> Vec<(i64, String)> {
    (1..=5).map(|id| (id, format!("author {id}"))).collect()
}

/// 60 memberships: four teams, 15 users, three join times.
pub fn memberships() -> Vec<(i32, i32, NaiveDateTime)> {
    (0..60).map(|i| (i % 4, i / 4, timestamp(i64::from(i % 3)))).collect()
}
