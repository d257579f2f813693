//! Writes the index migrations of this crate's `Keyset` models, one folder per backend, next to
//! the hand-written migrations that create the tables. An unchanged model writes nothing.

use keyset_codegen::index::Backend;
use keyset_codegen::migrations::Migrations;

fn main() {
    for backend in Backend::ALL {
        Migrations::new(backend, format!("migrations/{}", backend.name()))
            .source("src")
            .write_for_build();
    }
}
