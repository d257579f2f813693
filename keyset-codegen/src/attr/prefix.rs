//! The grammar of one equality prefix, inside `#[keyset(prefix(..))]`: the columns of the model's
//! `table!` that a listing filters on by equality (`author_id = 7`), comma separated. Each
//! order's index is written again led by them, so that a filtered page seeks that index rather
//! than reading and discarding the rows of other values.
//!
//! They are columns, not fields: a listing may filter on a column the model does not select.

use proc_macro2::{Span, TokenTree};
use quote::ToTokens;
use syn::ext::IdentExt;
use syn::parse::ParseStream;
use syn::{Ident, Token};

pub(super) const PREFIX_SYNTAX: &str = "write `prefix(author_id)`: the columns of the model's \
     `table!` that a listing filters on by equality, comma separated, e.g. \
     `prefix(tenant_id, author_id)`";

/// `tenant_id, author_id`, inside `prefix(..)`, whose parentheses span `parens`.
pub(super) fn prefix(input: ParseStream, parens: Span) -> syn::Result<Vec<Ident>> {
    let mut columns: Vec<Ident> = Vec::new();
    while !input.is_empty() {
        let column = column(input)?;
        if columns.contains(&column) {
            return Err(syn::Error::new(
                column.span(),
                format!(
                    "`{column}` is listed twice in this `prefix(..)`: an equality prefix names \
                     each column once; remove this one"
                ),
            ));
        }
        columns.push(column);
        if !input.is_empty() {
            input.parse::<Token![,]>()?;
        }
    }
    if columns.is_empty() {
        return Err(syn::Error::new(
            parens,
            format!("`prefix()` names no column: {PREFIX_SYNTAX}"),
        ));
    }
    Ok(columns)
}

/// One column: an identifier, as the `table!` declares it (`r#type` for a keyword).
fn column(input: ParseStream) -> syn::Result<Ident> {
    if input.peek(syn::Lit) {
        let literal: syn::Lit = input.parse()?;
        let message = match &literal {
            syn::Lit::Str(text) if syn::parse_str::<Ident>(&text.value()).is_ok() => format!(
                "`prefix` names a column as the `table!` declares it, without quotes: write \
                 `prefix({})`",
                text.value()
            ),
            other => format!(
                "expected a column of the model's `table!`, found `{}`: {PREFIX_SYNTAX}",
                other.to_token_stream()
            ),
        };
        return Err(syn::Error::new(literal.span(), message));
    }
    let ahead = input.fork();
    let Ok(word) = ahead.call(Ident::parse_any) else {
        let found: TokenTree = input.parse()?;
        return Err(syn::Error::new(
            found.span(),
            format!("expected a column of the model's `table!`, found `{found}`: {PREFIX_SYNTAX}"),
        ));
    };
    if ahead.peek(Token![::]) {
        let path: syn::Path = input.call(syn::Path::parse_mod_style)?;
        let last = path.segments.last().map(|segment| segment.ident.to_string());
        return Err(syn::Error::new_spanned(
            path,
            format!(
                "`prefix` names a column of the model's own table, without its table: write \
                 `prefix({})`",
                last.unwrap_or_default()
            ),
        ));
    }
    let column = match input.parse::<Ident>() {
        Ok(column) => column,
        Err(_)
            if matches!(word.to_string().as_str(), "self" | "Self" | "super" | "crate" | "_") =>
        {
            return Err(syn::Error::new(
                word.span(),
                format!("`{word}` is no column name: {PREFIX_SYNTAX}"),
            ));
        }
        // `type`: a keyword, which the `table!` declares as a raw identifier.
        Err(_) => {
            return Err(syn::Error::new(
                word.span(),
                format!(
                    "`{word}` is a keyword: the `table!` declares a column of that name as \
                     `r#{word}`; write `prefix(r#{word})`"
                ),
            ));
        }
    };
    if !input.is_empty() && !input.peek(Token![,]) {
        let found: TokenTree = input.fork().parse()?;
        let message = match found.to_string().to_lowercase().as_str() {
            "asc" | "desc" => format!(
                "a prefix column takes no direction: a listing filters on it by equality, which \
                 an index serves in either direction, so the index holds it ascending; write \
                 `prefix({column})`"
            ),
            _ => format!(
                "unexpected `{found}` after the column `{column}`: separate columns with `,`; \
                 {PREFIX_SYNTAX}"
            ),
        };
        return Err(syn::Error::new(found.span(), message));
    }
    Ok(column)
}
