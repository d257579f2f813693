//! The grammar of one named order, inside `#[keyset(order(..))]`: a name, then the fields to sort
//! by, each with its direction and, on an `Option` field, its NULL placement. Every token is
//! recognised or refused with the spelling to write instead.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::parse::ParseStream;
use syn::{Ident, Token};

use super::{kw, Direction, Nulls};
use crate::spelling::{did_you_mean, variant_of};

/// `order(top: score desc, created_at desc, id desc)`.
pub struct OrderAttr {
    /// The order's name, as clients write it: `top`.
    pub name: Ident,
    pub keys: Vec<OrderKeyAttr>,
}

/// One key of a named order: `published_at desc nulls last`.
pub struct OrderKeyAttr {
    /// The field it sorts by.
    pub field: Ident,
    /// The whole key, for errors about it.
    pub tokens: TokenStream,
    pub direction: Direction,
    /// The placement and the span of its `nulls`.
    pub nulls: Option<(Nulls, Span)>,
}

pub(super) const ORDER_SYNTAX: &str = "write `order(new: created_at desc, id desc)`: a name, then the fields \
     to sort by, each `asc` or `desc` (an `Option` field adds `nulls first` or `nulls last`), ending \
     with the `#[tiebreaker]` field";

/// `top: score desc, created_at desc, id desc`, inside `order(..)`.
pub(super) fn order(input: ParseStream) -> syn::Result<OrderAttr> {
    let name = order_name(input)?;
    if !input.peek(Token![:]) {
        return Err(match input.parse::<TokenTree>() {
            // `most-read`, `most.read`: a name of several words, joined as Rust cannot join them.
            Ok(TokenTree::Punct(joint)) if !input.is_empty() && !input.peek(Token![:]) => {
                let rest = input
                    .call(<Ident as syn::ext::IdentExt>::parse_any)
                    .map(|word| word.to_string());
                let written = format!("{name}{}{}", joint.as_char(), rest.unwrap_or_default());
                let snake = written.replace(|c: char| !c.is_alphanumeric(), "_");
                syn::Error::new(
                    name.span(),
                    format!(
                        "`{written}` is no name for an order: a name is one identifier (a client \
                         sends it as `?sort={snake}`, the enum names it as a variant): write \
                         `order({snake}: ..)`"
                    ),
                )
            }
            _ => syn::Error::new(
                name.span(),
                format!("`{name}` needs a `:` before its keys: {ORDER_SYNTAX}"),
            ),
        });
    }
    input.parse::<Token![:]>()?;
    let mut keys = Vec::new();
    while !input.is_empty() {
        keys.push(key(input)?);
        if !input.is_empty() {
            input.parse::<Token![,]>()?;
        }
    }
    if keys.is_empty() {
        return Err(syn::Error::new(
            name.span(),
            format!("the order `{name}` has no keys: {ORDER_SYNTAX}"),
        ));
    }
    Ok(OrderAttr { name, keys })
}

/// An order's name: one identifier (a Rust keyword too: `?sort=type` names `PostOrder::Type`),
/// whose UpperCamelCase is an identifier the enum can name a variant (not `Self`, not empty).
fn order_name(input: ParseStream) -> syn::Result<Ident> {
    if input.peek(syn::Lit) {
        let literal: syn::Lit = input.parse()?;
        let text = match &literal {
            syn::Lit::Str(text) => text.value(),
            other => other.to_token_stream().to_string(),
        };
        let snake = text.replace(|c: char| !c.is_alphanumeric(), "_");
        return Err(syn::Error::new(
            literal.span(),
            format!(
                "an order's name is an identifier, not a literal (a client sends it as \
                 `?sort={snake}`, the enum names it as a variant): write `order({snake}: ..)`"
            ),
        ));
    }
    let name: Ident = input.call(syn::ext::IdentExt::parse_any).map_err(|error| {
        syn::Error::new(error.span(), format!("an order starts with its name: {ORDER_SYNTAX}"))
    })?;
    let shown = name.to_string();
    let shown = shown.trim_start_matches("r#");
    match variant_of(shown).as_str() {
        "Self" => Err(syn::Error::new(
            name.span(),
            format!(
                "`{shown}` cannot name an order: its variant in the order enum would be `Self`, \
                 which Rust reserves; choose another name, e.g. `order(own: ..)`"
            ),
        )),
        variant if !variant.starts_with(|c: char| c.is_alphabetic()) => Err(syn::Error::new(
            name.span(),
            format!(
                "`{shown}` cannot name an order: its variant in the order enum is the name in \
                 UpperCamelCase, its `_` dropped, which must start with a letter; choose a name \
                 that does, e.g. `order(new: ..)`"
            ),
        )),
        _ => Ok(name),
    }
}

/// `published_at desc nulls last`.
fn key(input: ParseStream) -> syn::Result<OrderKeyAttr> {
    let start = input.fork();
    let field: Ident = input.call(syn::ext::IdentExt::parse_any).map_err(|error| {
        syn::Error::new(error.span(), format!("expected a field to sort by: {ORDER_SYNTAX}"))
    })?;
    let direction = if input.peek(kw::asc) {
        input.parse::<kw::asc>()?;
        Direction::Asc
    } else if input.peek(kw::desc) {
        input.parse::<kw::desc>()?;
        Direction::Desc
    } else {
        let found = input.fork().call(<Ident as syn::ext::IdentExt>::parse_any);
        return Err(match found {
            Ok(word) if matches!(word.to_string().to_lowercase().as_str(), "asc" | "desc") => {
                let lower = word.to_string().to_lowercase();
                syn::Error::new(word.span(), format!("write `{field} {lower}`, in lower case"))
            }
            Ok(word) => syn::Error::new(
                word.span(),
                format!(
                    "unknown direction `{word}`: {hint}write `{field} asc` or `{field} desc`",
                    hint = did_you_mean(&word.to_string(), &["asc", "desc"]),
                ),
            ),
            Err(_) => syn::Error::new(
                field.span(),
                format!("`{field}` needs a direction: write `{field} asc` or `{field} desc`"),
            ),
        });
    };
    let direction_word = direction.sql().to_lowercase();
    let mut nulls = None;
    // SQL's `NULLS LAST`: the attribute's words are lower case, as its directions are.
    let ahead = input.fork();
    if let Ok(word) = ahead.call(<Ident as syn::ext::IdentExt>::parse_any) {
        if word != "nulls" && word.to_string().eq_ignore_ascii_case("nulls") {
            let placement = ahead.call(<Ident as syn::ext::IdentExt>::parse_any);
            let placement = match placement.map(|word| word.to_string().to_lowercase()) {
                Ok(word) if word == "first" => "first",
                _ => "last",
            };
            return Err(syn::Error::new(
                word.span(),
                format!("write `{field} {direction_word} nulls {placement}`, in lower case"),
            ));
        }
    }
    if input.peek(kw::nulls) {
        let key = input.parse::<kw::nulls>()?;
        let placement = if input.peek(kw::first) {
            input.parse::<kw::first>()?;
            Nulls::First
        } else if input.peek(kw::last) {
            input.parse::<kw::last>()?;
            Nulls::Last
        } else if let Ok(word) = input.fork().call(<Ident as syn::ext::IdentExt>::parse_any) {
            let lower = word.to_string().to_lowercase();
            let hint = if lower == "first" || lower == "last" {
                format!("write `{field} {direction_word} nulls {lower}`, in lower case")
            } else {
                let hint = did_you_mean(&word.to_string(), &["first", "last"]);
                format!("unknown NULL placement `{word}`: {hint}write `{field} {direction_word} nulls first` or `nulls last`")
            };
            return Err(syn::Error::new(word.span(), hint));
        } else {
            return Err(syn::Error::new(
                key.span,
                format!(
                    "`nulls` needs a placement: write `{field} .. nulls first` or `nulls last`"
                ),
            ));
        };
        nulls = Some((placement, key.span));
    }
    if !input.is_empty() && !input.peek(Token![,]) {
        let found: TokenTree = input.fork().parse()?;
        return Err(syn::Error::new(
            found.span(),
            format!("unexpected `{found}` after the key `{field}`: separate keys with `,`; {ORDER_SYNTAX}"),
        ));
    }
    let tokens = tokens_between(start, input);
    Ok(OrderKeyAttr { field, tokens, direction, nulls })
}

/// The tokens `start` has that `end` no longer has: one key, for errors spanning it whole.
fn tokens_between(start: syn::parse::ParseBuffer, end: ParseStream) -> TokenStream {
    let mut tokens = TokenStream::new();
    let stop = end.cursor();
    let _ = start.step(|cursor| {
        let mut rest = *cursor;
        while rest != stop {
            let Some((tree, next)) = rest.token_tree() else { break };
            tree.to_tokens(&mut tokens);
            rest = next;
        }
        Ok(((), rest))
    });
    tokens
}
