//! The behaviour suite on SQLite (diesel's bundled libsqlite3, in memory).

mod compose;
mod hygiene;
mod request;
mod sql;
mod tokens;
mod walk;
