//! The committed migrations hold exactly the indexes the models need, in an order that runs:
//! what a user's own test looks like. It fails where a local build only warns (an index that
//! waits for its table's migration) and, in CI, where a build would have written.

use keyset_codegen::{Backend, Migrations};

#[test]
fn keyset_migrations_are_current() {
    for backend in Backend::ALL {
        Migrations::new(backend, format!("migrations/{}", backend.name()))
            .source("src")
            .check()
            .unwrap_or_else(|err| panic!("{err}"));
    }
    Migrations::new(Backend::Postgres, "migrations/postgres_concurrently")
        .source("src")
        .concurrently()
        .check()
        .unwrap_or_else(|err| panic!("{err}"));
}
