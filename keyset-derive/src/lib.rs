//! The `#[derive(Keyset)]` macro. This crate is a thin shim: the parser, model, validation and
//! code generation live in `keyset-codegen`, where they can be unit-tested and reused by the
//! build-time migration writer. Depend on `keyset-runtime`, which re-exports this derive.

use proc_macro::TokenStream;

/// Derives keyset pagination for a Diesel model. See `keyset_runtime::Keyset` for the attributes.
#[proc_macro_derive(Keyset, attributes(sort, tiebreaker, diesel))]
pub fn derive_keyset(input: TokenStream) -> TokenStream {
    keyset_codegen::derive_keyset(input.into()).into()
}
