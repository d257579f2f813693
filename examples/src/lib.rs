//! What the web and GraphQL examples serve, as a library so that their end-to-end tests can start
//! the same servers on a loopback port.
//!
//! - [`db`] (feature `web`): the tables, the model with its sort orders and its feeds
//!   ([`db::feed`]), and the database: a pool of diesel-async connections, SQLite by default,
//!   PostgreSQL (feature `postgres`) or MariaDB/MySQL (feature `mysql`) by URL;
//! - [`pool`] (feature `web`): the pools (deadpool or bb8) and how a SQLite connection is set up;
//! - `web` (feature `web`): `GET /posts?sort=&dir=&limit=&after=&before=` as JSON pages,
//!   `POST /posts`; the feeds `GET /feed?authors=1,2,3&..` and `GET /users/{id}/feed?..`, and
//!   `PUT /users/{id}/follows/{author}`;
//! - `graphql` (feature `graphql`): the same posts as a Relay connection, at `POST /graphql`.
//!
//! Run them with `cargo run -p keyset-examples --features web --example web` and
//! `cargo run -p keyset-examples --features graphql --example graphql`. The quickstart
//! (`cargo run --example quickstart`) is sync Diesel and needs none of this.

#[cfg(feature = "web")]
pub mod db;
#[cfg(feature = "graphql")]
pub mod graphql;
#[cfg(feature = "web")]
pub mod openapi;
#[cfg(feature = "web")]
pub mod pool;
#[cfg(feature = "web")]
pub mod web;
