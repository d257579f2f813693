//! Attribute parsing: our own `#[sort(..)]` and `#[tiebreaker]`, and the keys of Diesel's
//! `#[diesel(..)]` that decide which table and column a field maps to.
//!
//! Every token is either recognised or rejected with an error that shows the correct syntax;
//! nothing is silently ignored, except Diesel's own keys, which Diesel itself validates.

use proc_macro2::Span;
use syn::parse::ParseStream;
use syn::spanned::Spanned;
use syn::{Attribute, Ident, LitStr, Token};

mod kw {
    syn::custom_keyword!(asc);
    syn::custom_keyword!(desc);
    syn::custom_keyword!(nulls);
    syn::custom_keyword!(first);
    syn::custom_keyword!(last);
    syn::custom_keyword!(unique);
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
    /// The whole attribute, for errors about it.
    pub span: Span,
    pub direction: Direction,
    /// The placement and the span of the `nulls = ..` argument.
    pub nulls: Option<(Nulls, Span)>,
}

/// `#[tiebreaker]` or `#[tiebreaker(unique)]`.
#[derive(Clone, Debug)]
pub struct TiebreakerAttr {
    pub span: Span,
    /// `unique`: the column is unique but not the table's primary key; the user vouches for it.
    pub unique: bool,
}

impl SortAttr {
    pub fn parse(attr: &Attribute) -> syn::Result<Self> {
        let span = attr.span();
        if let syn::Meta::Path(_) = attr.meta {
            return Err(syn::Error::new(span, format!("`#[sort]` needs a direction: {SORT_SYNTAX}")));
        }
        attr.parse_args_with(|input: ParseStream| {
            let mut direction: Option<(Direction, Span)> = None;
            let mut nulls = None;
            loop {
                if input.is_empty() {
                    break;
                }
                let lookahead = input.lookahead1();
                if lookahead.peek(kw::asc) || lookahead.peek(kw::desc) {
                    let (dir, dir_span) = if input.peek(kw::asc) {
                        (Direction::Asc, input.parse::<kw::asc>()?.span)
                    } else {
                        (Direction::Desc, input.parse::<kw::desc>()?.span)
                    };
                    if let Some((first, _)) = direction {
                        return Err(syn::Error::new(
                            dir_span,
                            format!(
                                "`#[sort]` takes one direction, found `{}` and `{}`: keep one, \
                                 e.g. `#[sort({})]`",
                                first.sql().to_lowercase(),
                                dir.sql().to_lowercase(),
                                first.sql().to_lowercase(),
                            ),
                        ));
                    }
                    direction = Some((dir, dir_span));
                } else if lookahead.peek(kw::nulls) {
                    let key = input.parse::<kw::nulls>()?;
                    if nulls.is_some() {
                        return Err(syn::Error::new(
                            key.span,
                            "`nulls` is given twice: write it once, `nulls = first` or `nulls = last`",
                        ));
                    }
                    input.parse::<Token![=]>()?;
                    let placement = input.lookahead1();
                    let value = if placement.peek(kw::first) {
                        input.parse::<kw::first>()?;
                        Nulls::First
                    } else if placement.peek(kw::last) {
                        input.parse::<kw::last>()?;
                        Nulls::Last
                    } else {
                        return Err(placement.error());
                    };
                    nulls = Some((value, key.span));
                } else {
                    return Err(unknown_argument(input, lookahead.error()));
                }
                if input.is_empty() {
                    break;
                }
                input.parse::<Token![,]>()?;
            }
            match direction {
                Some((direction, _)) => Ok(SortAttr { span, direction, nulls }),
                None => Err(syn::Error::new(
                    span,
                    format!("`#[sort]` needs a direction: {SORT_SYNTAX}"),
                )),
            }
        })
    }
}

/// Replaces syn's "expected one of" with a message that also names the unknown word.
fn unknown_argument(input: ParseStream, fallback: syn::Error) -> syn::Error {
    match input.fork().parse::<Ident>() {
        Ok(word) => syn::Error::new(
            word.span(),
            format!("unknown `#[sort]` argument `{word}`: expected `asc`, `desc` or `nulls = first|last`; {SORT_SYNTAX}"),
        ),
        Err(_) => fallback,
    }
}

impl TiebreakerAttr {
    pub fn parse(attr: &Attribute) -> syn::Result<Self> {
        let span = attr.span();
        match &attr.meta {
            syn::Meta::Path(_) => Ok(TiebreakerAttr { span, unique: false }),
            syn::Meta::List(list) => {
                list.parse_args_with(|input: ParseStream| {
                    if input.peek(kw::unique) && {
                        let fork = input.fork();
                        fork.parse::<kw::unique>().is_ok() && fork.is_empty()
                    } {
                        input.parse::<kw::unique>()?;
                        Ok(TiebreakerAttr { span, unique: true })
                    } else {
                        Err(syn::Error::new(
                            list.tokens.span(),
                            "`#[tiebreaker]` takes no arguments except `unique`: write \
                             `#[tiebreaker]` on the primary key, or `#[tiebreaker(unique)]` on a \
                             unique column that is not the primary key",
                        ))
                    }
                })
            }
            syn::Meta::NameValue(nv) => Err(syn::Error::new(
                nv.eq_token.span,
                "`#[tiebreaker]` takes no value: write `#[tiebreaker]` or `#[tiebreaker(unique)]`",
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
    /// `embed`, `select_expression` or `deserialize_as`: the field is not a plain column value,
    /// so it cannot be compared with a column in SQL.
    pub not_a_column: Option<Ident>,
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
                input.parse::<LitStr>()?.parse_with(syn::ext::IdentExt::parse_any)?
            } else {
                input.call(syn::ext::IdentExt::parse_any)?
            });
            return Ok(true);
        }
        if key == "embed" || key == "select_expression" || key == "deserialize_as" {
            out.not_a_column = Some(key.clone());
        }
        Ok(false)
    })
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
