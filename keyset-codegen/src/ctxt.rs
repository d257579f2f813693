//! Error collection: every stage records what it finds wrong and carries on, so that the user sees
//! all mistakes of one derive at once instead of fixing them one compile at a time.

use std::fmt::Display;

use proc_macro2::TokenStream;
use quote::ToTokens;

/// Collects errors from every stage of the derive.
#[derive(Default)]
pub struct Ctxt {
    errors: Option<syn::Error>,
    /// Mistakes that rustc reports itself (a misspelled attribute), in words: the model is
    /// invalid, but an error of ours would only repeat rustc's. The migration writer, which has
    /// no rustc beside it, names them.
    left_to_rustc: Vec<String>,
}

impl Ctxt {
    pub fn new() -> Self {
        Self::default()
    }

    /// Records an error spanned at `tokens` (an attribute, argument, field or type).
    pub fn error_spanned_by<T: ToTokens, M: Display>(&mut self, tokens: T, message: M) {
        self.syn_error(syn::Error::new_spanned(tokens, message));
    }

    /// Records an error that syn produced while parsing.
    pub fn syn_error(&mut self, error: syn::Error) {
        match &mut self.errors {
            Some(errors) => errors.combine(error),
            None => self.errors = Some(error),
        }
    }

    /// Records that the model is invalid for a reason rustc reports on its own (e.g. "cannot
    /// find attribute `srot`"), given in words: no error of ours, but no expansion of a valid
    /// model either.
    pub fn left_to_rustc(&mut self, reason: impl Display) {
        self.left_to_rustc.push(reason.to_string());
    }

    /// Ends collection: `Err` with all errors combined as `compile_error!`s (none when rustc
    /// reports the only mistakes), if the model is invalid.
    pub fn finish(self) -> Result<(), TokenStream> {
        match self.errors {
            Some(errors) => Err(errors.to_compile_error()),
            None if !self.left_to_rustc.is_empty() => Err(TokenStream::new()),
            None => Ok(()),
        }
    }

    /// Ends collection for the migration writer: every reason the model is invalid, in words
    /// (rustc's to report included), none when it is valid, so exactly when
    /// [`finish`](Self::finish) fails.
    pub fn reasons(self) -> Vec<String> {
        let errors = self.errors.into_iter().flatten().map(|error| error.to_string());
        errors.chain(self.left_to_rustc).collect()
    }
}
