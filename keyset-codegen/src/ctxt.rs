//! Error collection: every stage records what it finds wrong and carries on, so that the user sees
//! all mistakes of one derive at once instead of fixing them one compile at a time.

use std::fmt::Display;

use quote::ToTokens;

/// Collects errors from every stage of the derive.
#[derive(Default)]
pub struct Ctxt {
    errors: Option<syn::Error>,
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

    /// Ends collection: `Err` with all errors combined, if any were recorded.
    pub fn finish(self) -> syn::Result<()> {
        match self.errors {
            Some(errors) => Err(errors),
            None => Ok(()),
        }
    }
}
