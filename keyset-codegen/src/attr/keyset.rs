//! The struct's `#[keyset(..)]` options: `max_token_len = ..`, `listing = ".."`, the named sort
//! orders, `order(new: created_at desc, id desc)`, the names of the generated types,
//! `cursor = ..` and `order_enum = ..`, `text_collation = ".."` for pages merged across
//! shards, the equality prefixes of filtered listings, `prefix(author_id)`,
//! `reads_and_sorts`, which keeps an order of a joined table's columns that no index serves, and
//! `postgres_fdw` and `spider`, for a table read through PostgreSQL's foreign data wrapper or
//! MariaDB's Spider engine.
//!
//! An order lists fields, each with its direction and, for an `Option` field, its NULL
//! placement, in the words of `#[sort(..)]`: `published_at desc nulls last`. A mistake in one
//! option is reported and the others are still read, so that every mistake of the attribute
//! shows at once.

use proc_macro2::{Span, TokenTree};
use syn::parse::ParseStream;
use syn::{Attribute, Ident, LitStr, Token};

use super::kw;
use super::order::{order, OrderAttr, ORDER_SYNTAX};
use super::prefix::{prefix, PREFIX_SYNTAX};
use crate::spelling::did_you_mean;

/// The struct's `#[keyset(..)]` options.
#[derive(Default)]
pub struct KeysetStruct {
    /// `max_token_len = 4096`: the longest token the listing issues and accepts.
    pub max_token_len: Option<usize>,
    /// `listing = "admin"`: a name that keeps this listing's tokens apart from another's on the
    /// same table and order.
    pub listing: Option<LitStr>,
    /// `order(name: keys..)`, in declaration order.
    pub orders: Vec<OrderAttr>,
    /// How many `order(..)` were written, those that could not be read included: rules about a
    /// model without orders must not follow from a mistake in one.
    pub declared_orders: usize,
    /// `cursor = ArticleKey`: the name of the generated cursor, instead of `<Model>Cursor`.
    pub cursor: Option<Ident>,
    /// `order_enum = ArticleSort`: the name of the generated enum of the named orders, instead
    /// of `<Model>Order`.
    pub order_enum: Option<Ident>,
    /// `text_collation = "C"`: the text keys' columns sort in byte order on every shard, so a
    /// merge of shards' pages may compare them in Rust. Only byte-order collations are read.
    pub text_collation: Option<LitStr>,
    /// `prefix(tenant_id, author_id)`, in declaration order: the columns a listing filters on
    /// by equality, which lead an index of each order. Each a different list.
    pub prefixes: Vec<Vec<Ident>>,
    /// `reads_and_sorts`, at its span: the user accepts orders of a joined table's columns that
    /// no index serves (not led by them, or not ending them with its primary key), whose pages
    /// read every row the join matches and sort them.
    pub reads_and_sorts: Option<Span>,
    /// `postgres_fdw`, at its span: the table is read through postgres_fdw (foreign tables, or
    /// a table partitioned over them), so pages write no row value, which it does not send on.
    pub postgres_fdw: Option<Span>,
    /// `spider`, at its span: the table is a MariaDB Spider table, so pages past a cursor seek
    /// one index range per statement.
    pub spider: Option<Span>,
}

/// The range `max_token_len` takes: a token must hold its header and a key or two, and travels in
/// a URL, which servers and proxies cap at a few kilobytes (8 KiB is a common default).
pub const MAX_TOKEN_LEN_RANGE: std::ops::RangeInclusive<usize> = 64..=65_536;

const KEYSET_SYNTAX: &str =
    "write `#[keyset(max_token_len = 4096)]`, `#[keyset(listing = \"admin\")]`, \
     `#[keyset(order(new: created_at desc, id desc))]`, `#[keyset(cursor = PostKey)]`, \
     `#[keyset(order_enum = PostSort)]`, `#[keyset(text_collation = \"C\")]`, \
     `#[keyset(prefix(author_id))]`, `#[keyset(reads_and_sorts)]`, \
     `#[keyset(postgres_fdw)]` or `#[keyset(spider)]`";

/// The options, for "did you mean".
const OPTIONS: &[&str] = &[
    "max_token_len",
    "listing",
    "order",
    "cursor",
    "order_enum",
    "text_collation",
    "prefix",
    "reads_and_sorts",
    "postgres_fdw",
    "spider",
];

/// Reads one `#[keyset(..)]` attribute of the struct into `out`, recording each mistake in
/// `errors` and reading on.
pub fn parse_keyset_struct(attr: &Attribute, out: &mut KeysetStruct, errors: &mut Vec<syn::Error>) {
    let list = match &attr.meta {
        syn::Meta::List(list) if !list.tokens.is_empty() => list,
        _ => {
            let message = format!("`#[keyset]` needs an option: {KEYSET_SYNTAX}");
            return errors.push(syn::Error::new_spanned(attr, message));
        }
    };
    let parsed = list.parse_args_with(|input: ParseStream| {
        while !input.is_empty() {
            if let Err(error) = option(input, out) {
                errors.push(error);
                // Skip to the next option: a mistake in one does not hide the others.
                while !input.is_empty() && !input.peek(Token![,]) {
                    input.parse::<TokenTree>()?;
                }
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(())
    });
    errors.extend(parsed.err());
}

/// One option.
fn option(input: ParseStream, out: &mut KeysetStruct) -> syn::Result<()> {
    let lookahead = input.lookahead1();
    if lookahead.peek(kw::max_token_len) {
        max_token_len(input, out)
    } else if lookahead.peek(kw::listing) {
        let key = input.parse::<kw::listing>()?;
        if out.listing.is_some() {
            return Err(syn::Error::new(key.span, "`listing` is given twice: write it once"));
        }
        let syntax = "`listing` takes a name in quotes: write `#[keyset(listing = \"admin\")]`";
        input.parse::<Token![=]>().map_err(|_| syn::Error::new(key.span, syntax))?;
        let name: LitStr = input.parse().map_err(|error| syn::Error::new(error.span(), syntax))?;
        if name.value().is_empty() || name.value().contains(['[', ']']) {
            return Err(syn::Error::new(
                name.span(),
                "a listing name is a word without brackets: `#[keyset(listing = \"admin\")]`",
            ));
        }
        out.listing = Some(name);
        Ok(())
    } else if lookahead.peek(kw::order) {
        let key = input.parse::<kw::order>()?;
        out.declared_orders += 1;
        if !input.peek(syn::token::Paren) {
            return Err(syn::Error::new(
                key.span,
                format!("`order` needs its keys: {ORDER_SYNTAX}"),
            ));
        }
        // Parsed on its own, so that a mistake inside adds no "unexpected token" for the rest.
        let group: proc_macro2::Group = input.parse()?;
        out.orders.push(syn::parse::Parser::parse2(order, group.stream())?);
        Ok(())
    } else if lookahead.peek(kw::cursor) {
        let key = input.parse::<kw::cursor>()?;
        name(input, key.span, "cursor", "PostKey", &mut out.cursor)
    } else if lookahead.peek(kw::order_enum) {
        let key = input.parse::<kw::order_enum>()?;
        name(input, key.span, "order_enum", "PostSort", &mut out.order_enum)
    } else if lookahead.peek(kw::text_collation) {
        text_collation(input, out)
    } else if lookahead.peek(kw::prefix) {
        prefix_option(input, out)
    } else if lookahead.peek(kw::reads_and_sorts) {
        let key = input.parse::<kw::reads_and_sorts>()?;
        flag(input, key.span, "reads_and_sorts", &mut out.reads_and_sorts)
    } else if lookahead.peek(kw::postgres_fdw) {
        let key = input.parse::<kw::postgres_fdw>()?;
        flag(input, key.span, "postgres_fdw", &mut out.postgres_fdw)
    } else if lookahead.peek(kw::spider) {
        let key = input.parse::<kw::spider>()?;
        flag(input, key.span, "spider", &mut out.spider)
    } else {
        let word = input.fork().call(<Ident as syn::ext::IdentExt>::parse_any);
        // `order` and `prefix` take parentheses: a misspelled order (`ordre(..)`) may declare
        // one, so the rules about a model without orders must not follow from it.
        let prefix = word
            .as_ref()
            .is_ok_and(|word| !did_you_mean(&word.to_string(), &["prefix"]).is_empty());
        if input.peek2(syn::token::Paren) && !prefix {
            out.declared_orders += 1;
        }
        Err(match word {
            Ok(word) => syn::Error::new(
                word.span(),
                format!(
                    "unknown `#[keyset]` option `{word}`: {hint}expected `max_token_len`, \
                     `listing`, `order`, `cursor`, `order_enum`, `text_collation`, `prefix`, \
                     `reads_and_sorts`, `postgres_fdw` or `spider`; \
                     {KEYSET_SYNTAX}",
                    hint = did_you_mean(&word.to_string(), OPTIONS),
                ),
            ),
            Err(_) => lookahead.error(),
        })
    }
}

/// `prefix(tenant_id, author_id)`; repeatable, each prefix a different list of columns.
fn prefix_option(input: ParseStream, out: &mut KeysetStruct) -> syn::Result<()> {
    let key = input.parse::<kw::prefix>()?;
    if !input.peek(syn::token::Paren) {
        return Err(syn::Error::new(
            key.span,
            format!("`prefix` takes its columns in parentheses: {PREFIX_SYNTAX}"),
        ));
    }
    // Parsed on its own, so that a mistake inside adds no "unexpected token" for the rest.
    let group: proc_macro2::Group = input.parse()?;
    let parens = group.span();
    let columns =
        syn::parse::Parser::parse2(|input: ParseStream| prefix(input, parens), group.stream())?;
    if out.prefixes.contains(&columns) {
        let words: Vec<String> = columns.iter().map(Ident::to_string).collect();
        return Err(syn::Error::new(
            key.span,
            format!(
                "`prefix({})` is declared twice: one declaration writes its indexes; remove this \
                 one",
                words.join(", ")
            ),
        ));
    }
    out.prefixes.push(columns);
    Ok(())
}

/// `cursor = PostKey` or `order_enum = PostSort`, after the key: the name of a generated type.
fn name(
    input: ParseStream,
    key: Span,
    option: &str,
    example: &str,
    out: &mut Option<Ident>,
) -> syn::Result<()> {
    if out.is_some() {
        return Err(syn::Error::new(key, format!("`{option}` is given twice: write it once")));
    }
    let syntax = format!(
        "`{option}` takes the name of the type to generate, without quotes: write \
         `#[keyset({option} = {example})]`"
    );
    input.parse::<Token![=]>().map_err(|_| syn::Error::new(key, &syntax))?;
    let name: Ident = input.parse().map_err(|error| syn::Error::new(error.span(), &syntax))?;
    if !input.is_empty() && !input.peek(Token![,]) {
        return Err(syn::Error::new(input.span(), syntax));
    }
    *out = Some(name);
    Ok(())
}

/// The collations whose order is byte order, as Rust's `String` compares: PostgreSQL's `"C"`,
/// `"POSIX"` and `"ucs_basic"`, SQLite's `"BINARY"`, and MariaDB's binary NO PAD collations.
fn is_byte_order(collation: &str) -> bool {
    matches!(collation, "C" | "POSIX" | "ucs_basic" | "BINARY") || collation.ends_with("_nopad_bin")
}

/// `text_collation = "C"`, after the key.
fn text_collation(input: ParseStream, out: &mut KeysetStruct) -> syn::Result<()> {
    let key = input.parse::<kw::text_collation>()?;
    if out.text_collation.is_some() {
        return Err(syn::Error::new(key.span, "`text_collation` is given twice: write it once"));
    }
    let syntax = "`text_collation` takes the collation, in quotes, that every shard's text key \
         columns sort by: write `#[keyset(text_collation = \"C\")]`";
    input.parse::<Token![=]>().map_err(|_| syn::Error::new(key.span, syntax))?;
    let collation: LitStr = input.parse().map_err(|error| syn::Error::new(error.span(), syntax))?;
    let name = collation.value();
    if is_byte_order(&name) {
        out.text_collation = Some(collation);
        return Ok(());
    }
    let why = if name.ends_with("_bin") {
        format!(
            "`{name}` pads with spaces (`'a'` equals `'a '` there, not in Rust); its NO PAD \
             twin, `{}_nopad_bin`, sorts in byte order",
            name.trim_end_matches("_bin")
        )
    } else {
        format!("`{name}` is not known to sort text in byte order, as the merge does in Rust")
    };
    Err(syn::Error::new(
        collation.span(),
        format!(
            "{why}: pages of several shards are merged by comparing text keys byte by byte, which \
             matches only a byte-order collation: PostgreSQL's `\"C\"` (or `\"POSIX\"`, \
             `\"ucs_basic\"`), SQLite's `\"BINARY\"` or MariaDB's `\"utf8mb4_nopad_bin\"`"
        ),
    ))
}

fn max_token_len(input: ParseStream, out: &mut KeysetStruct) -> syn::Result<()> {
    let key = input.parse::<kw::max_token_len>()?;
    if out.max_token_len.is_some() {
        return Err(syn::Error::new(
            key.span,
            "`max_token_len` is given twice: write it once, `#[keyset(max_token_len = 4096)]`",
        ));
    }
    let syntax = "write `#[keyset(max_token_len = 4096)]`";
    if !input.peek(Token![=]) {
        return Err(syn::Error::new(
            key.span,
            format!("`max_token_len` needs a length in characters: {syntax}"),
        ));
    }
    input.parse::<Token![=]>()?;
    let value: syn::LitInt = input.parse().map_err(|err| {
        syn::Error::new(
            err.span(),
            format!("`max_token_len` is a whole number of characters: {syntax}"),
        )
    })?;
    let len = value.base10_parse::<usize>().ok().filter(|len| MAX_TOKEN_LEN_RANGE.contains(len));
    let Some(len) = len else {
        return Err(syn::Error::new(
            value.span(),
            format!(
                "`max_token_len = {value}` is out of range: a token takes from {} to {} \
                 characters (the default is 1024)",
                MAX_TOKEN_LEN_RANGE.start(),
                MAX_TOKEN_LEN_RANGE.end()
            ),
        ));
    };
    out.max_token_len = Some(len);
    Ok(())
}

/// An option without a value (`reads_and_sorts`, `postgres_fdw`, `spider`), at `span`, into
/// `out`: refused when given twice or with a value.
fn flag(input: ParseStream, span: Span, option: &str, out: &mut Option<Span>) -> syn::Result<()> {
    if out.is_some() {
        return Err(syn::Error::new(span, format!("`{option}` is given twice: write it once")));
    }
    if !input.is_empty() && !input.peek(Token![,]) {
        return Err(syn::Error::new(
            input.span(),
            format!("`{option}` takes no value: write `#[keyset({option})]`"),
        ));
    }
    *out = Some(span);
    Ok(())
}
