//! What an invalid model still expands to. The errors are reported first; beside them we define
//! the names users refer to (`PostCursor`, the `Keyset` impl, `PostOrder`, the marks of its
//! equality prefixes) from the keys we can trust, so the rest of their code does not add a
//! cascade of "cannot find type" or "trait not implemented" errors to the real one; and the
//! static checks that no reported mistake decides (a field's type against its column), so that
//! those mistakes are reported in the same compile.

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

use crate::expand::{self, hidden_import, public_name};
use crate::model::{default_name, hidden_name, Model, SortKey};

pub fn fallback(input: &DeriveInput, model: Option<Model>) -> TokenStream {
    match model {
        // A field that is not a plain column would name a column that may not exist.
        Some(mut model) if model.generics.params.is_empty() => {
            // A name given to a generated type that is another type's too is already an error;
            // defining it would add rustc's "defined multiple times".
            if model.cursor == *model.ident || model.cursor == model.order_enum {
                model.cursor = default_name(model.ident, "Cursor");
            }
            if model.order_enum == *model.ident {
                model.order_enum = default_name(model.ident, "Order");
            }
            let keys: Vec<&SortKey> =
                model.keys.iter().filter(|key| key.not_a_column.is_none()).collect();
            let mut out = expand::items(&model, &keys);
            if !model.orders.is_empty() {
                out.extend(expand::orders_fallback(&model));
            }
            out.extend(expand::checks(&model));
            // Pages among a set of values name `Prefix<column>`: without the marks, each adds
            // an error of its own.
            out.extend(expand::prefix_impls(&model));
            out
        }
        // Not a struct with named fields, or a generic one: no key can be trusted, so the names
        // are defined with no keys at all.
        _ => without_keys(input),
    }
}

/// An empty `<Model>Cursor` and a `Keyset` impl with no sort keys, for any item (generics kept).
fn without_keys(input: &DeriveInput) -> TokenStream {
    let rt = quote!(::keyset_runtime::__private);
    let ident = &input.ident;
    let vis = &input.vis;
    let cursor = default_name(ident, "Cursor");
    let hidden = hidden_name(ident, "Cursor");
    // `Keyset` is `'static`: a bound that holds the impl well-formed, so it adds no error of its
    // own to the one that the struct is generic.
    let mut generics = input.generics.clone();
    generics.make_where_clause().predicates.push(syn::parse_quote!(Self: 'static));
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let definition = |name: &syn::Ident| {
        quote! {
            #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::cmp::PartialEq)]
            #vis struct #name {}
        }
    };
    let definition = public_name(vis, &hidden, &cursor, &quote!(), definition);
    let hidden = hidden_import(&hidden, &cursor);
    quote! {
        #definition

        const _: () = {
            #hidden

            #[automatically_derived]
            impl #rt::CursorValue for #cursor {
                fn write(&self, _: &mut #rt::Writer) {}

                fn read(
                    _: &mut #rt::Reader<'_>,
                ) -> ::core::result::Result<Self, #rt::CursorError> {
                    ::core::result::Result::Ok(#cursor {})
                }
            }

            #[automatically_derived]
            impl #impl_generics #rt::Keyset for #ident #ty_generics #where_clause {
                type Cursor = #cursor;
                type Columns = #rt::End;
                type Keys = #rt::End;
                const SORT_ORDER: &'static str = "";

                fn cursor(&self) -> #cursor {
                    #cursor {}
                }

                fn columns() -> Self::Columns {
                    #rt::End
                }

                fn keys(_: #cursor) -> Self::Keys {
                    #rt::End
                }
            }
        };
    }
}
