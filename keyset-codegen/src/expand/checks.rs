//! The static checks of a model, generated as calls whose bounds hold only when the model is
//! right about its table: the table exists, each sort key and each `prefix(..)` column names one
//! of its columns, with a field type Diesel compares with that column, and the tiebreaker is the
//! primary key, and an order led by a joined table's keys ends them with that table's primary
//! key. They need the
//! types, which the derive cannot see, so rustc checks them, with the runtime's messages
//! (`keyset_runtime::__private`). They share one closure: one body per model for rustc to check,
//! not one per key.
//!
//! A model with errors gets the checks whose outcome those errors do not decide, so that a
//! wrong type on one field is reported with an attribute mistake on another, not a compile
//! later; a field with a mistake of its own gets none.

use proc_macro2::{Group, Ident, Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::{column_path, runtime};
use crate::model::{Model, SortKey};

/// The checks of every field and tiebreaker the model's orders sort by.
pub fn checks(model: &Model) -> TokenStream {
    let table = &model.table;
    let every_order = || std::iter::once(&model.keys).chain(model.orders.iter().map(|o| &o.keys));
    // Each field once, whichever orders sort by it; none that is not a column.
    let mut fields: Vec<&SortKey> = Vec::new();
    for key in every_order().flatten() {
        if key.not_a_column.is_none() && !fields.iter().any(|field| field.ident == key.ident) {
            fields.push(key);
        }
    }
    let consistent = |field: &&&SortKey| {
        every_order().flatten().filter(|key| key.ident == field.ident).all(nulls_consistent)
    };
    let type_checks = fields.iter().filter(consistent).map(|key| key_type_assertion(model, key));
    // Each distinct tiebreaker once, whichever orders end with it.
    let mut tiebreakers: Vec<Vec<&SortKey>> = Vec::new();
    for keys in every_order().filter(|keys| tiebreakers_sound(keys)) {
        let ends: Vec<&SortKey> = keys.iter().filter(|key| key.tiebreaker.is_some()).collect();
        let same = |known: &Vec<&SortKey>| {
            known.len() == ends.len() && known.iter().zip(&ends).all(|(a, b)| a.ident == b.ident)
        };
        if !ends.is_empty() && !tiebreakers.iter().any(same) {
            tiebreakers.push(ends);
        }
    }
    let primary_key_checks = tiebreakers.iter().map(|keys| primary_key_assertion(model, keys));
    let column_checks = column_assertions(model, &fields);
    let joined_checks = joined_assertions(model);
    quote! {
        const _: fn() = || {
            let _ = #table::table;
            #(#type_checks)*
            #(#primary_key_checks)*
            #column_checks
            #joined_checks
        };
    }
}

/// The key is an `Option` exactly when it places its NULLs, and a tiebreaker is not one: else
/// the derive has said so, and a type check would say it again in other words.
fn nulls_consistent(key: &SortKey) -> bool {
    let option = key.option_inner().is_some();
    option == key.sort.nulls.is_some() && !(option && key.tiebreaker.is_some())
}

/// The tiebreakers are parsed, trailing, columns of the model's table, and `unique` only alone:
/// else the derive has said so, and whether they are the primary key is not yet the question.
fn tiebreakers_sound(keys: &[SortKey]) -> bool {
    let tiebreakers: Vec<_> = keys.iter().filter_map(|key| key.tiebreaker.as_ref()).collect();
    let first = keys.iter().position(|key| key.tiebreaker.is_some()).unwrap_or(keys.len());
    tiebreakers.iter().all(|attr| attr.parsed && !(attr.unique && tiebreakers.len() > 1))
        && keys[first..].iter().all(|key| {
            key.tiebreaker.is_some() && key.not_a_column.is_none() && key.joined.is_none()
        })
        && keys.iter().all(nulls_consistent)
}

/// The field's type must be one Diesel can compare with its column: otherwise the mismatch would
/// surface deep in the runtime's bounds at the first `paginate` call, or at the derive. Both of
/// the check's bounds are on the field's type, and rustc reports a failed bound at the type
/// argument it is on, so the error points at the field's type. The column path keeps its own
/// spans: a wrong table or column name is then the same error at the same place as in the
/// `Keyset` impl, which rustc reports once. A tiebreaker's column must also be `NOT NULL`, which
/// its own check says, rather than asking for an `Option` that a tiebreaker cannot be.
fn key_type_assertion(model: &Model, key: &SortKey) -> TokenStream {
    let rt = runtime();
    let column = column_path(&model.table, key);
    let ty = key.ty;
    let assert = match key.tiebreaker {
        Some(_) => quote!(assert_tiebreaker_type),
        None => quote!(assert_sort_key_type),
    };
    quote_spanned! {key.ty.span()=>
        #rt::#assert::<#column, #ty>();
    }
}

/// Each key's and each `prefix(..)` column is a column of the table. A path to a missing
/// column fails to resolve, with rustc's "cannot find type `x` in module `posts`"; this check
/// adds what to write instead. It names the column in a scope where the table's columns (a glob
/// import) shadow a stand-in of the same name declared in the scope around it: a missing column
/// is then the stand-in, which is not a column of the table, and the runtime's message is
/// reported at its name, the field's (or the `column_name` value, or the identifier in
/// `prefix(..)`). The table's module and name are named in the outermost scope, where no
/// stand-in can shadow them.
fn column_assertions(model: &Model, fields: &[&SortKey]) -> TokenStream {
    let rt = runtime();
    let table = &model.table;
    // A stand-in named as the table's module (or the first segment of its path) would hide
    // it; Diesel forbids a column named as its table, so that is a column of another name.
    let first = table.segments.first().map(|segment| segment.ident.to_string());
    // Each column once, with the check that says who named it.
    let mut columns: Vec<(&Ident, TokenStream)> = Vec::new();
    // A joined table's column (`select_expression = authors::name`) is named by its own path,
    // which rustc resolves (or reports) where the key list names it.
    let keys = fields.iter().filter(|key| key.joined.is_none()).map(|key| {
        let assert = if key.column == *key.ident {
            quote!(assert_field_is_column)
        } else {
            quote!(assert_column_name_is_column)
        };
        (&key.column, assert)
    });
    // A prefix column that a key sorts by is checked as the key's.
    let prefixes = model.prefixes.iter().flatten().map(|c| (c, quote!(assert_prefix_is_column)));
    for (column, assert) in keys.chain(prefixes) {
        let known = columns.iter().any(|(known, _)| *known == column);
        if !known && Some(column.to_string()) != first {
            columns.push((column, assert));
        }
    }
    if columns.is_empty() {
        return TokenStream::new();
    }
    let stand_ins = columns.iter().map(|(column, _)| {
        quote_spanned! {column.span()=>
            #[allow(dead_code, non_camel_case_types)]
            struct #column;
        }
    });
    let asserts = columns.iter().map(|(column, assert)| {
        quote_spanned! {column.span()=>
            #rt::#assert::<__KeysetTable, #column>();
        }
    });
    quote! {
        {
            type __KeysetTable = #table::table;
            // Another `table`, so that rustc's messages name the table by its path,
            // `posts::table`, even in a crate that declares one table.
            #[allow(dead_code, non_camel_case_types)]
            enum table {}
            {
                #(#stand_ins)*
                {
                    #[allow(unused_imports)]
                    use #table::*;
                    #(#asserts)*
                }
            }
        }
    }
}

/// The tiebreaker must be the table's primary key (in order, for a composite key), unless the
/// user vouched for a unique column with `#[tiebreaker(unique)]`. A trait bound against
/// `<table as Table>::PrimaryKey`, reported at the type argument that fails it: that argument
/// and the call carry the span of the first `#[tiebreaker]`, so the error lands there. The
/// table and columns are named in aliases that keep their own spans, so that a wrong name is the
/// same error at the same place as in the `Keyset` impl, which rustc reports once.
fn primary_key_assertion(model: &Model, tiebreakers: &[&SortKey]) -> TokenStream {
    let Some(attr) = tiebreakers.first().and_then(|first| first.tiebreaker.as_ref()) else {
        return TokenStream::new();
    };
    if attr.unique {
        return TokenStream::new();
    }
    let rt = runtime();
    let table = &model.table;
    let columns = tiebreakers.iter().map(|key| column_path(table, key));
    let primary_key =
        if tiebreakers.len() == 1 { quote!(#(#columns)*) } else { quote!((#(#columns,)*)) };
    let (table_alias, tiebreaker_alias) =
        (Ident::new("__Table", attr.span), Ident::new("__Tiebreaker", attr.span));
    let check = respan(
        quote!(#rt::assert_tiebreaker_is_primary_key::<#table_alias, #tiebreaker_alias>();),
        attr.span,
    );
    quote! {
        {
            type #table_alias = #table::table;
            type #tiebreaker_alias = #primary_key;
            #check
        }
    }
}

/// The last key an order takes from the joined table that leads it must be that table's primary
/// key, so that each joined row's rows are consecutive (see `valid/joined.rs`): one check per
/// distinct key, reported at the key (the field's name, or the key in `order(..)`). None where
/// the struct keeps such orders (`reads_and_sorts`), and none for an order whose joined keys
/// break the derive's own rules, which it has reported.
fn joined_assertions(model: &Model) -> TokenStream {
    let rt = runtime();
    let mut ends: Vec<(&syn::Path, &SortKey, Span)> = Vec::new();
    for (joined, _) in model.joined_orders() {
        let (Some(end), Some(path)) = (joined.last(), joined[0].joined.as_ref()) else { continue };
        // A field order's key at the field's name, a named order's at its key in `order(..)`.
        let first_token = end.sort.tokens.clone().into_iter().next();
        let span = if std::ptr::eq(joined.as_ptr(), model.keys.as_ptr()) {
            end.ident.span()
        } else {
            first_token.map_or(end.ident.span(), |token| token.span())
        };
        if !ends.iter().any(|(_, known, _)| known.ident == end.ident) {
            ends.push((path, end, span));
        }
    }
    let checks = ends.iter().map(|(joined, key, span)| {
        let column = &key.column;
        let (table_alias, key_alias) =
            (Ident::new("__JoinedTable", *span), Ident::new("__JoinedKey", *span));
        let check = respan(
            quote!(#rt::assert_joined_keys_end_in_primary_key::<#table_alias, #key_alias>();),
            *span,
        );
        quote! {
            {
                type #table_alias = #joined::table;
                type #key_alias = #joined::#column;
                #check
            }
        }
    });
    quote!(#(#checks)*)
}

/// Gives every token the span of the user's `#[tiebreaker]`, so that an error anywhere in them
/// points there, without rustc adding "in this derive macro expansion". Only for tokens that
/// resolve the same from the user's code: absolute paths, and names defined with the same span.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tree| {
            if let TokenTree::Group(group) = &tree {
                tree =
                    TokenTree::Group(Group::new(group.delimiter(), respan(group.stream(), span)));
            }
            tree.set_span(span);
            tree
        })
        .collect()
}
