//! Seeding, written once for every backend: each suite's `main.rs` includes this file with its
//! own `Conn` type and `connect()`, so the code is monomorphic and Diesel's bounds stay simple.

use diesel::prelude::*;
use keyset_tests::schema::{authors, memberships, posts};
use keyset_tests::seed;

use crate::{connect, Conn};

/// A fresh connection with the authors, `count` posts (ids 1..=count) and the memberships.
pub fn seeded(count: i64) -> Conn {
    let mut conn = connect();
    let authors: Vec<_> = seed::authors()
        .into_iter()
        .map(|(id, name)| (authors::id.eq(id), authors::name.eq(name)))
        .collect();
    diesel::insert_into(authors::table)
        .values(&authors)
        .execute(&mut conn)
        .expect("insert authors");
    insert_posts(&mut conn, 1..=count);
    let members: Vec<_> = seed::memberships()
        .into_iter()
        .map(|(team, user, joined)| {
            (
                memberships::team_id.eq(team),
                memberships::user_id.eq(user),
                memberships::joined_at.eq(joined),
            )
        })
        .collect();
    diesel::insert_into(memberships::table)
        .values(&members)
        .execute(&mut conn)
        .expect("insert memberships");
    conn
}

/// Inserts the posts with these ids.
pub fn insert_posts(conn: &mut Conn, ids: impl IntoIterator<Item = i64>) {
    let rows: Vec<seed::NewPost> = ids.into_iter().map(seed::post).collect();
    for chunk in rows.chunks(500) {
        diesel::insert_into(posts::table).values(chunk).execute(conn).expect("insert posts");
    }
}
