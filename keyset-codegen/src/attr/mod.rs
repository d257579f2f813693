//! Attribute parsing: our own `#[sort(..)]`, `#[tiebreaker]` and `#[keyset(..)]`, and the keys of
//! Diesel's `#[diesel(..)]` that decide which table and column a field maps to.
//!
//! Every token is either recognised or rejected with an error that shows the correct syntax;
//! nothing is silently ignored, except Diesel's own keys, which Diesel itself validates.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::parse::ParseStream;
use syn::{Attribute, Ident, LitStr, Token};

use crate::spelling::did_you_mean;

mod keyset;
mod order;
mod prefix;

pub use keyset::{parse_keyset_struct, KeysetStruct};
pub use order::OrderAttr;

pub(crate) mod kw {
    syn::custom_keyword!(asc);
    syn::custom_keyword!(desc);
    syn::custom_keyword!(nulls);
    syn::custom_keyword!(first);
    syn::custom_keyword!(last);
    syn::custom_keyword!(unique);
    syn::custom_keyword!(max_token_len);
    syn::custom_keyword!(listing);
    syn::custom_keyword!(order);
    syn::custom_keyword!(cursor);
    syn::custom_keyword!(order_enum);
    syn::custom_keyword!(text_collation);
    syn::custom_keyword!(prefix);
    syn::custom_keyword!(reads_and_sorts);
    syn::custom_keyword!(postgres_fdw);
    syn::custom_keyword!(spider);
}

const SORT_SYNTAX: &str = "write `#[sort(asc)]` or `#[sort(desc)]`, and for an `Option<T>` field \
     add the NULL placement: `#[sort(desc, nulls = last)]`";

/// The direction of one sort key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Asc,
    Desc,
}

impl Direction {
    /// The SQL keyword, as it appears in ORDER BY and CREATE INDEX.
    pub fn sql(self) -> &'static str {
        match self {
            Direction::Asc => "ASC",
            Direction::Desc => "DESC",
        }
    }
}

/// Where NULLs of a nullable sort key go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nulls {
    First,
    Last,
}

/// `#[sort(desc)]`, `#[sort(asc, nulls = first)]`.
#[derive(Clone, Debug)]
pub struct SortAttr {
    /// The whole attribute, `#[sort(desc)]`, for errors about it.
    pub tokens: TokenStream,
    pub direction: Direction,
    /// The placement and the span of the `nulls = ..` argument.
    pub nulls: Option<(Nulls, Span)>,
    /// False for the stand-in of an attribute that could not be parsed: its direction is a guess.
    pub parsed: bool,
}

/// `#[tiebreaker]` or `#[tiebreaker(unique)]`.
#[derive(Clone, Debug)]
pub struct TiebreakerAttr {
    /// The whole attribute, for errors about it.
    pub tokens: TokenStream,
    /// One span over `[tiebreaker]`, for the generated primary-key check: a check needs a single
    /// span, and a compiler on stable cannot join the `#` to the brackets.
    pub span: Span,
    /// `unique`: the column is unique but not the table's primary key; the user vouches for it.
    pub unique: bool,
    /// False for the stand-in of an attribute that could not be parsed: `unique` is a guess.
    pub parsed: bool,
}

impl SortAttr {
    /// A stand-in for an attribute that could not be parsed (its error is already recorded), so
    /// that the field still counts as a sort key for the rules that do not need its arguments.
    pub fn unparsed(attr: &Attribute) -> Self {
        SortAttr {
            tokens: attr.to_token_stream(),
            direction: Direction::Asc,
            nulls: None,
            parsed: false,
        }
    }

    pub fn parse(attr: &Attribute) -> syn::Result<Self> {
        let tokens = attr.to_token_stream();
        let span = attr.bracket_token.span.join();
        let list = match &attr.meta {
            syn::Meta::List(list) => list,
            syn::Meta::Path(_) => {
                return Err(syn::Error::new(
                    span,
                    format!("`#[sort]` needs a direction: {SORT_SYNTAX}"),
                ));
            }
            syn::Meta::NameValue(nv) => {
                return Err(syn::Error::new_spanned(
                    nv,
                    format!("`#[sort = ..]` is not how a sort key is written: {SORT_SYNTAX}"),
                ));
            }
        };
        list.parse_args_with(|input: ParseStream| {
            let mut direction: Option<Direction> = None;
            let mut nulls = None;
            while !input.is_empty() {
                let lookahead = input.lookahead1();
                if lookahead.peek(kw::asc) || lookahead.peek(kw::desc) {
                    let (dir, dir_span) = if input.peek(kw::asc) {
                        (Direction::Asc, input.parse::<kw::asc>()?.span)
                    } else {
                        (Direction::Desc, input.parse::<kw::desc>()?.span)
                    };
                    if let Some(first) = direction {
                        let first = first.sql().to_lowercase();
                        let word = dir.sql().to_lowercase();
                        let message = if first == word {
                            format!("`{word}` is given twice: write it once, `#[sort({word})]`")
                        } else {
                            format!(
                                "`#[sort]` takes one direction, found `{first}` and `{word}`: keep \
                                 one, `#[sort({first})]` or `#[sort({word})]`"
                            )
                        };
                        return Err(syn::Error::new(dir_span, message));
                    }
                    direction = Some(dir);
                } else if lookahead.peek(kw::nulls) {
                    let key = input.parse::<kw::nulls>()?;
                    if nulls.is_some() {
                        return Err(syn::Error::new(
                            key.span,
                            "`nulls` is given twice: write it once, `nulls = first` or `nulls = last`",
                        ));
                    }
                    if !input.peek(Token![=]) {
                        return Err(syn::Error::new(
                            key.span,
                            "`nulls` needs a placement: write `nulls = first` or `nulls = last`",
                        ));
                    }
                    input.parse::<Token![=]>()?;
                    let value = if input.peek(kw::first) {
                        input.parse::<kw::first>()?;
                        Nulls::First
                    } else if input.peek(kw::last) {
                        input.parse::<kw::last>()?;
                        Nulls::Last
                    } else {
                        let found = input.fork().parse::<proc_macro2::TokenTree>();
                        let (span, found, hint) = match &found {
                            Ok(token) => (
                                token.span(),
                                format!("`{token}`"),
                                did_you_mean(&token.to_string(), &["first", "last"]),
                            ),
                            Err(_) => (key.span, "nothing".to_owned(), String::new()),
                        };
                        return Err(syn::Error::new(
                            span,
                            format!(
                                "unknown NULL placement {found}: {hint}write `nulls = first` or \
                                 `nulls = last`"
                            ),
                        ));
                    };
                    nulls = Some((value, key.span));
                } else {
                    return Err(unknown_argument(input, lookahead.error()));
                }
                if !input.is_empty() {
                    input.parse::<Token![,]>()?;
                }
            }
            match direction {
                Some(direction) => Ok(SortAttr { tokens: tokens.clone(), direction, nulls, parsed: true }),
                None => Err(syn::Error::new(span, format!("`#[sort]` needs a direction: {SORT_SYNTAX}"))),
            }
        })
    }
}

/// Replaces syn's "expected one of" with a message that also names the unknown word, and the
/// argument it looks like a misspelling of.
fn unknown_argument(input: ParseStream, fallback: syn::Error) -> syn::Error {
    let Ok(word) = input.fork().call(<Ident as syn::ext::IdentExt>::parse_any) else {
        return fallback;
    };
    let lower = word.to_string().to_lowercase();
    let message = match lower.as_str() {
        "asc" | "desc" => format!("write `{lower}`, in lower case: `#[sort({lower})]`"),
        "first" | "last" => format!(
            "`{word}` is a NULL placement: write `nulls = {lower}`, e.g. \
             `#[sort(desc, nulls = {lower})]`"
        ),
        _ => format!(
            "unknown `#[sort]` argument `{word}`: {hint}expected `asc`, `desc` or \
             `nulls = first|last`; {SORT_SYNTAX}",
            hint = did_you_mean(&word.to_string(), &["asc", "desc", "nulls"]),
        ),
    };
    syn::Error::new(word.span(), message)
}

const TIEBREAKER_SYNTAX: &str =
    "write `#[tiebreaker]` on the primary key, or `#[tiebreaker(unique)]` on a \
     `NOT NULL` column with a unique index that is not the primary key";

impl TiebreakerAttr {
    /// A stand-in for an attribute that could not be parsed (its error is already recorded).
    pub fn unparsed(attr: &Attribute) -> Self {
        TiebreakerAttr {
            tokens: attr.to_token_stream(),
            span: attr.bracket_token.span.join(),
            unique: false,
            parsed: false,
        }
    }

    pub fn parse(attr: &Attribute) -> syn::Result<Self> {
        let tokens = attr.to_token_stream();
        let span = attr.bracket_token.span.join();
        match &attr.meta {
            syn::Meta::Path(_) => Ok(TiebreakerAttr { tokens, span, unique: false, parsed: true }),
            syn::Meta::List(list) if list.tokens.is_empty() => Err(syn::Error::new(
                list.delimiter.span().join(),
                format!("`#[tiebreaker]` takes no empty parentheses: {TIEBREAKER_SYNTAX}"),
            )),
            syn::Meta::List(list) => list.parse_args_with(|input: ParseStream| {
                let fork = input.fork();
                if fork.parse::<kw::unique>().is_ok() && fork.is_empty() {
                    input.parse::<kw::unique>()?;
                    return Ok(TiebreakerAttr {
                        tokens: tokens.clone(),
                        span,
                        unique: true,
                        parsed: true,
                    });
                }
                Err(syn::Error::new_spanned(
                    &list.tokens,
                    format!(
                        "`#[tiebreaker]` takes no arguments except `unique`, found `{}`: \
                         {hint}{TIEBREAKER_SYNTAX}",
                        list.tokens,
                        hint = did_you_mean(&list.tokens.to_string(), &["unique"]),
                    ),
                ))
            }),
            syn::Meta::NameValue(nv) => Err(syn::Error::new_spanned(
                nv,
                format!("`#[tiebreaker]` takes no value: {TIEBREAKER_SYNTAX}"),
            )),
        }
    }
}

/// The keys of a struct's `#[diesel(..)]` attributes that matter to us.
#[derive(Default)]
pub struct DieselStruct {
    pub table_name: Option<syn::Path>,
}

/// The keys of a field's `#[diesel(..)]` attributes that matter to us.
#[derive(Default)]
pub struct DieselField {
    pub column_name: Option<Ident>,
    /// `embed`, `deserialize_as`, or a `select_expression` that is not a bare column: the field
    /// is not a plain column value, so it cannot be compared with a column in SQL.
    pub not_a_column: Option<Ident>,
    /// `select_expression = authors::name`: the field holds that column (of another table of
    /// the query, typically), the path as written.
    pub column_path: Option<syn::Path>,
}

/// Reads one `#[diesel(..)]` attribute of a struct. Unknown keys are Diesel's business: we skip
/// them without judging (Diesel rejects the ones it does not know).
pub fn parse_diesel_struct(attr: &Attribute, out: &mut DieselStruct) -> syn::Result<()> {
    parse_diesel_items(attr, |key, input| {
        if key == "table_name" {
            input.parse::<Token![=]>()?;
            out.table_name = Some(input.parse()?);
            Ok(true)
        } else {
            Ok(false)
        }
    })
}

/// Reads one `#[diesel(..)]` attribute of a field.
pub fn parse_diesel_field(attr: &Attribute, out: &mut DieselField) -> syn::Result<()> {
    parse_diesel_items(attr, |key, input| {
        if key == "column_name" {
            input.parse::<Token![=]>()?;
            out.column_name = Some(if input.peek(LitStr) {
                column_from_str(&input.parse::<LitStr>()?)?
            } else {
                input.parse::<Ident>()?
            });
            return Ok(true);
        }
        if key == "select_expression" {
            input.parse::<Token![=]>()?;
            // A bare column path is a column the SQL can compare; anything else is not.
            match input.parse::<syn::Expr>()? {
                syn::Expr::Path(path) if path.qself.is_none() && path.path.segments.len() >= 2 => {
                    out.column_path = Some(path.path)
                }
                _ => out.not_a_column = Some(key.clone()),
            }
            return Ok(true);
        }
        if key == "embed" || key == "deserialize_as" {
            out.not_a_column = Some(key.clone());
        }
        Ok(false)
    })
}

/// `column_name = "type"` names the column `r#type` of the `table!`, as Diesel reads it: any
/// name that is a keyword in Rust is a raw identifier there.
fn column_from_str(name: &LitStr) -> syn::Result<Ident> {
    let value = name.value();
    match syn::parse_str::<Ident>(&format!("r#{value}")) {
        Ok(mut ident) => {
            ident.set_span(name.span());
            Ok(ident)
        }
        Err(_) => Err(syn::Error::new(
            name.span(),
            format!(
                "`{value}` is not a column of a Diesel `table!`: `column_name` names the column as \
                 the `table!` declares it, e.g. `#[diesel(column_name = created_at)]`"
            ),
        )),
    }
}

/// Walks the comma-separated items of `#[diesel(..)]`, handing each key to `on_key`. When it
/// returns `false` the item's value (`= value` or `(..)`) is skipped.
fn parse_diesel_items(
    attr: &Attribute,
    mut on_key: impl FnMut(&Ident, ParseStream) -> syn::Result<bool>,
) -> syn::Result<()> {
    // `#[diesel]` alone or `#[diesel = ..]` is Diesel's to reject.
    let syn::Meta::List(list) = &attr.meta else {
        return Ok(());
    };
    list.parse_args_with(|input: ParseStream| {
        while !input.is_empty() {
            let key: Ident = input.call(syn::ext::IdentExt::parse_any)?;
            if !on_key(&key, input)? {
                skip_diesel_value(input)?;
            }
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        Ok(())
    })
}

/// Skips `= <type or expression>` or `(..)` after a Diesel key we do not read.
fn skip_diesel_value(input: ParseStream) -> syn::Result<()> {
    if input.peek(syn::token::Paren) {
        let _group: proc_macro2::Group = input.parse()?;
    } else if input.peek(Token![=]) {
        input.parse::<Token![=]>()?;
        // Values are types (`deserialize_as = Vec<u8>`) or expressions (`select_expression = ..`,
        // `treat_none_as_null = true`). A type may hold top-level commas inside `<..>`, so try a
        // type first and fall back to an expression.
        let fork = input.fork();
        if fork.parse::<syn::Type>().is_ok() && (fork.is_empty() || fork.peek(Token![,])) {
            input.parse::<syn::Type>()?;
        } else {
            input.parse::<syn::Expr>()?;
        }
    }
    Ok(())
}
