//! The marks of `#[keyset(prefix(..))]`: `Prefix<column>` for the last column of each prefix,
//! which the runtime requires of a page among a set of that column's values (a feed), since the
//! derive then writes the index it seeks once per value.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::runtime;
use crate::model::Model;

/// `impl Prefix<posts::author_id> for Post {}`, once per column that ends a prefix. The column
/// keeps its span in `prefix(..)`, so that a missing one is reported there (beside the check's
/// own message, see `checks::column_assertions`).
pub fn prefix_impls(model: &Model) -> TokenStream {
    let (rt, ident, table) = (runtime(), model.ident, &model.table);
    let mut lasts: Vec<&Ident> = Vec::new();
    for last in model.prefixes.iter().filter_map(|prefix| prefix.last()) {
        if !lasts.contains(&last) {
            lasts.push(last);
        }
    }
    let impls = lasts.iter().map(|column| {
        quote! {
            #[automatically_derived]
            impl #rt::Prefix<#table::#column> for #ident {}
        }
    });
    quote!(#(#impls)*)
}
