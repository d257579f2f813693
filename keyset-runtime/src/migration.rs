//! The indexes a model needs, as DDL per backend. `#[derive(Keyset)]` puts them on the model as
//! [`Keyset::INDEXES`](crate::Keyset::INDEXES); the build-time writer
//! (`keyset_codegen::Migrations`, in `[build-dependencies]`) writes the same DDL into Diesel
//! migrations, from the same code, and checks them in CI.
//!
//! ```
//! # use diesel::prelude::*;
//! # use keyset_runtime::Keyset;
//! # use keyset_runtime::migration::Backend;
//! # diesel::table! { posts (id) { id -> BigInt, created_at -> BigInt } }
//! #[derive(Queryable, Selectable, Keyset)]
//! struct Post {
//!     #[sort(desc)]
//!     created_at: i64,
//!     #[sort(desc)]
//!     #[tiebreaker]
//!     id: i64,
//! }
//!
//! let index = &Post::INDEXES[0];
//! assert_eq!(index.name, "posts_keyset_created_at_desc_id_desc");
//! assert_eq!(
//!     index.create(Backend::Postgres),
//!     r#"CREATE INDEX IF NOT EXISTS "posts_keyset_created_at_desc_id_desc" ON "posts" ("created_at" DESC, "id" DESC);"#
//! );
//! ```

/// A backend the DDL is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Backend {
    /// SQLite.
    Sqlite,
    /// PostgreSQL.
    Postgres,
    /// MySQL and MariaDB.
    Mysql,
}

/// One index a model needs, with its DDL for each backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexDdl {
    /// The index's name: deterministic, readable, within every engine's identifier limit.
    pub name: &'static str,
    /// `CREATE INDEX` for SQLite, PostgreSQL and MySQL/MariaDB.
    pub create: [&'static str; 3],
    /// `DROP INDEX` for SQLite, PostgreSQL and MySQL/MariaDB.
    pub drop: [&'static str; 3],
}

impl IndexDdl {
    /// `CREATE INDEX ..` for `backend`.
    pub fn create(&self, backend: Backend) -> &'static str {
        self.create[slot(backend)]
    }

    /// `DROP INDEX ..` for `backend`.
    pub fn drop(&self, backend: Backend) -> &'static str {
        self.drop[slot(backend)]
    }
}

fn slot(backend: Backend) -> usize {
    match backend {
        Backend::Sqlite => 0,
        Backend::Postgres => 1,
        Backend::Mysql => 2,
    }
}
