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
//! writes or checks once. See [`migrations`] for the rules and [`index`] for the DDL.
//!
//! The derive itself is a pipeline, one module per stage, used by `keyset-derive` (depend on
//! `keyset-runtime`, which re-exports it): `attr` parses our attributes and the Diesel keys we
//! need → `model` builds a typed model of the struct → `valid` checks the rules that make the sort
//! order a total order → `expand` writes the code. Errors from every stage are collected in a
//! `ctxt::Ctxt` and reported together; when there are any, `fallback` emits the cursor and trait
//! impl anyway so that user code that names them does not drown the real error in follow-on
//! errors.

#![warn(missing_docs)]

mod attr;
mod ctxt;
mod expand;
mod fallback;
pub mod index;
pub mod migrations;
mod model;
mod valid;

pub use index::Backend;
pub use migrations::{MigrationError, Migrations, Mode};

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
    match (cx.finish(), &model) {
        (Ok(()), Some(model)) => expand::expand(model),
        // A model that could not be built always records why, so this arm is never taken; an
        // empty expansion is still the safe answer.
        (Ok(()), None) => TokenStream::new(),
        (Err(errors), model) => {
            let mut out = errors.to_compile_error();
            out.extend(fallback::fallback(&input, model.as_ref()));
            out
        }
    }
}
