//! What the web and GraphQL examples serve, as a library so that their end-to-end tests can start
//! the same servers on a loopback port.
//!
//! - [`db`]: the table, the model with its sort order, and the database (SQLite by default,
//!   PostgreSQL with the `postgres` feature and a `postgres://` URL);
//! - `web` (feature `web`): `GET /posts?limit=&after=&before=` as JSON pages, `POST /posts`;
//! - `graphql` (feature `graphql`): the same posts as a Relay connection, at `POST /graphql`.
//!
//! Run them with `cargo run -p keyset-examples --features web --example web` and
//! `cargo run -p keyset-examples --features graphql --example graphql`.

pub mod db;
#[cfg(feature = "graphql")]
pub mod graphql;
#[cfg(feature = "web")]
pub mod web;
