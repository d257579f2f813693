//! Writes the index migrations of this crate's `Keyset` models, one folder per backend, next to
//! the hand-written migration that creates the tables (and after it: an index waits for the
//! migration that creates its table). An unchanged model writes nothing; in CI (`CI` set) or with
//! `KEYSET_MIGRATIONS=check` nothing is written, and stale migrations fail the build.

use keyset_codegen::{Backend, Migrations};

fn main() {
    for backend in Backend::ALL {
        Migrations::new(backend, format!("migrations/{}", backend.name()))
            .source("src")
            .write_for_build();
    }
    // The PostgreSQL indexes again, built `CONCURRENTLY` (no write lock while they build): one
    // migration per index, each run outside a transaction, as PostgreSQL requires.
    Migrations::new(Backend::Postgres, "migrations/postgres_concurrently")
        .source("src")
        .concurrently()
        .write_for_build();
}
