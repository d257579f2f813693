//! Build-time index migrations for [keyset](https://docs.rs/keyset-runtime) models, and the
//! code generator behind `#[derive(Keyset)]` that they share.
//!
//! Add it to `[build-dependencies]` and let the build script write the Diesel migrations for
//! the indexes your models' sort orders need, with the derive's own parser reading the models:
//!
//! ```no_run
//! // build.rs
//! use keyset_codegen::{Backend, Migrations};
//!
//! fn main() {
//!     Migrations::new(Backend::Postgres, "migrations").source("src").write_for_build();
//! }
//! ```
//!
//! A build writes locally and only checks in CI (`CI` set, or `KEYSET_MIGRATIONS=check`):
//! commit what it writes. Without a build script, the `keyset-migrations` binary of this crate
//! writes or checks once, by the rules below.
//!
//! The derive itself is a pipeline, one module per stage, used by `keyset-derive` (depend on
//! `keyset-runtime`, which re-exports it): `attr` parses our attributes and the Diesel keys we
//! need → `model` builds a typed model of the struct → `valid` checks the rules that make the sort
//! order a total order → `expand` writes the code. Errors from every stage are collected in a
//! `ctxt::Ctxt` and reported together; when there are any, `fallback` emits the cursor and trait
//! impl anyway so that user code that names them does not drown the real error in follow-on
//! errors.
//!
//! # How migrations are written
//!
//! The writer finds the models by parsing the crate's sources with the derive's own parser and
//! rules, so the migrations hold exactly the indexes the derive puts on the models
//! (`Keyset::INDEXES`).
//! Each run compares the indexes the models need with those the existing keyset migrations
//! create (replayed in Diesel's order) and, when they differ, writes one new migration that drops
//! the indexes no longer needed and creates the new ones: a migration already written is never
//! edited, since it may have been applied. When nothing changed it writes nothing, so the build
//! does not loop. It writes only from every model: one the derive refuses, or a file that does
//! not parse, writes nothing ([`MigrationError::Refused`]).
//!
//! **Order.** A new index migration sorts after every existing migration, and an index is only
//! written once a migration creates its table (any form of `CREATE TABLE` in an `up.sql`), or the
//! table is declared [`Migrations::table_created_elsewhere`]; until then it waits and says so.
//! So Diesel never runs an index migration before its table exists.
//!
//! **Writing is deliberate.** A build writes locally and only checks in CI: see [`Mode`].
//!
//! [`Migrations::check`] is the same comparison without writing, for tests: it fails with the
//! statements a new migration would hold, or when an index migration runs before its table.
//!
//! # The indexes
//!
//! Keyset pagination is only constant-cost with an index whose columns and directions match the
//! ORDER BY (or its exact reverse). The index holds the sort keys in order, each with its
//! direction, and the NULL placement of nullable keys where the engine's indexes declare one
//! (PostgreSQL); a tiebreaker vouched for with `#[tiebreaker(unique)]` also gets a unique index,
//! which makes the claim true.

#![warn(missing_docs)]

mod attr;
mod ctxt;
mod expand;
mod fallback;
mod index;
mod migrations;
mod model;
mod spelling;
mod valid;

pub use index::Backend;
pub use migrations::{Changes, MigrationError, Migrations, Mode, OrderProblem, Refusal, Written};

#[cfg(test)]
mod tests;

use proc_macro2::TokenStream;

/// Runs the whole derive on the tokens of one item: the implementation of `#[derive(Keyset)]`,
/// for `keyset-derive`.
#[doc(hidden)]
pub fn derive_keyset(input: TokenStream) -> TokenStream {
    let input: syn::DeriveInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(err) => return err.to_compile_error(),
    };
    let mut cx = ctxt::Ctxt::new();
    let model = model::Model::from_ast(&mut cx, &input);
    if let Some(model) = &model {
        valid::check(&mut cx, model);
    }
    match (cx.finish(), model) {
        (Ok(()), Some(model)) => expand::expand(&model),
        // A model that could not be built always records why, so this arm is never taken; an
        // empty expansion is still the safe answer.
        (Ok(()), None) => TokenStream::new(),
        (Err(mut errors), model) => {
            errors.extend(fallback::fallback(&input, model));
            errors
        }
    }
}
