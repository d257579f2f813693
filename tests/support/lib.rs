//! What every behaviour suite shares: the schema, the models (1 to 3 sort keys, uniform and mixed
//! directions, a renamed column), seeded data with heavy ties, and the walks that page through a
//! table and compare the result with an independent, hand-written ORDER BY.

pub mod models;
pub mod order;
pub mod reads;
pub mod schema;
pub mod seed;
pub mod walk;

/// The PostgreSQL service on this machine (trust auth); `PG_DATABASE_URL` overrides it.
pub const POSTGRES_URL: &str = "postgres://postgres@127.0.0.1:5432/test";

/// The MariaDB service on this machine (root, no password); `MYSQL_DATABASE_URL` overrides it.
pub const MYSQL_URL: &str = "mysql://root@127.0.0.1:3306/test";

/// The database URL for a backend's suite: the environment variable `var`, else `default` (the
/// service on this machine). A suite that cannot connect fails: it never skips silently.
pub fn database_url(var: &str, default: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| default.to_owned())
}
