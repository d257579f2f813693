//! The tables the suites page through.

diesel::table! {
    authors (id) {
        id -> BigInt,
        name -> Text,
    }
}

diesel::table! {
    posts (id) {
        id -> BigInt,
        author_id -> BigInt,
        created_at -> Timestamp,
        score -> Integer,
        tag -> Text,
        title -> Text,
    }
}

diesel::table! {
    /// A table with a composite primary key, for composite tiebreakers.
    memberships (team_id, user_id) {
        team_id -> Integer,
        user_id -> Integer,
        joined_at -> Timestamp,
    }
}

diesel::joinable!(posts -> authors (author_id));
diesel::allow_tables_to_appear_in_same_query!(authors, posts, memberships);

/// The schema for SQLite.
pub const SQLITE_DDL: &[&str] = &[
    "CREATE TABLE authors (id BIGINT PRIMARY KEY NOT NULL, name TEXT NOT NULL)",
    "CREATE TABLE posts (
        id BIGINT PRIMARY KEY NOT NULL,
        author_id BIGINT NOT NULL REFERENCES authors (id),
        created_at TIMESTAMP NOT NULL,
        score INTEGER NOT NULL,
        tag TEXT NOT NULL,
        title TEXT NOT NULL UNIQUE
    )",
    "CREATE TABLE memberships (
        team_id INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        joined_at TIMESTAMP NOT NULL,
        PRIMARY KEY (team_id, user_id)
    )",
];
