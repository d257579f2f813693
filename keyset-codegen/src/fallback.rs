//! What an invalid model still expands to. The errors are reported first; beside them we define
//! the names users refer to (`PostCursor`, the `Keyset` impl) from the keys we can trust, so the
//! rest of their code does not add a cascade of "cannot find type" errors to the real one.

use proc_macro2::TokenStream;
use syn::DeriveInput;

use crate::expand;
use crate::model::{Model, SortKey};

pub fn fallback(_input: &DeriveInput, model: Option<&Model>) -> TokenStream {
    let Some(model) = model else {
        // Not a struct with named fields: there is nothing sensible to define.
        return TokenStream::new();
    };
    if !model.generics.params.is_empty() {
        return TokenStream::new();
    }
    // A field that is not a plain column would name a column that may not exist.
    let keys: Vec<&SortKey> = model.keys.iter().filter(|key| key.not_a_column.is_none()).collect();
    expand::items(model, &keys)
}
