//! The code generator behind `#[derive(Keyset)]`, kept out of the proc-macro crate so that it can
//! be unit-tested on `proc_macro2` tokens and shared with the build-time migration writer.
//!
//! The derive is a pipeline, one module per stage:
//! [`attr`] parses our attributes and the Diesel keys we need → [`model`] builds a typed model of
//! the struct → [`valid`] checks the rules that make the sort order a total order → [`expand`]
//! writes the code. Errors from every stage are collected in a [`ctxt::Ctxt`] and reported together;
//! when there are any, [`fallback`] emits the cursor and trait impl anyway so that user code that
//! names them does not drown the real error in follow-on errors.

pub mod attr;
pub mod ctxt;
mod expand;
mod fallback;
pub mod index;
pub mod migrations;
pub mod model;
mod valid;

#[cfg(test)]
mod tests;

use proc_macro2::TokenStream;

/// Runs the whole derive on the tokens of one item.
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
