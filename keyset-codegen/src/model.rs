//! The typed model of a `#[derive(Keyset)]` struct: which fields are sort keys, in which direction,
//! on which column of which table. Built from the `DeriveInput`, recording every attribute error
//! on the way so that all of them are reported together.

use quote::format_ident;
use syn::{Data, DeriveInput, Field, Fields, Ident, Type, Visibility};

use crate::attr::{
    self, DieselField, DieselStruct, Direction, KeysetStruct, Nulls, SortAttr, TiebreakerAttr,
};
use crate::ctxt::Ctxt;

/// A struct that derives `Keyset`.
pub struct Model<'a> {
    pub ident: &'a Ident,
    pub vis: &'a Visibility,
    pub generics: &'a syn::Generics,
    /// The Diesel table module, e.g. `posts` or `schema::posts`.
    pub table: syn::Path,
    /// The generated cursor struct, `<Model>Cursor`.
    pub cursor: Ident,
    /// Sort keys in ORDER BY order (the order of the fields).
    pub keys: Vec<SortKey<'a>>,
    /// `#[keyset(max_token_len = ..)]`: the longest token of the listing, when not the default.
    pub max_token_len: Option<usize>,
    /// A field has `#[tiebreaker]` but no `#[sort]`: already an error, and the rules about
    /// missing keys or a missing tiebreaker would only repeat it.
    pub unsorted_tiebreaker: bool,
}

/// A field with `#[sort(..)]`.
pub struct SortKey<'a> {
    pub ident: &'a Ident,
    pub ty: &'a Type,
    /// The column in the table module (`column_name` or the field name).
    pub column: Ident,
    pub sort: SortAttr,
    pub tiebreaker: Option<TiebreakerAttr>,
    /// A Diesel key (`embed`, ..) that makes the field something other than a column value.
    pub not_a_column: Option<Ident>,
}

impl SortKey<'_> {
    pub fn direction(&self) -> Direction {
        self.sort.direction
    }

    pub fn nulls(&self) -> Option<Nulls> {
        self.sort.nulls.map(|(nulls, _)| nulls)
    }

    /// `Some(T)` when the field's type is `Option<T>`, i.e. the column is nullable.
    pub fn option_inner(&self) -> Option<&Type> {
        option_inner(self.ty)
    }
}

impl<'a> Model<'a> {
    /// Builds the model, or records why it cannot be built. Attribute errors are recorded but do
    /// not stop the model from being built from the rest, so validation still runs.
    pub fn from_ast(cx: &mut Ctxt, input: &'a DeriveInput) -> Option<Model<'a>> {
        for attr in &input.attrs {
            if attr.path().is_ident("sort") || attr.path().is_ident("tiebreaker") {
                cx.error_spanned_by(
                    attr,
                    "`#[sort]` and `#[tiebreaker]` go on fields, not on the struct: write \
                     `#[sort(desc)] created_at: ..` and `#[sort(desc)] #[tiebreaker] id: ..`",
                );
            }
        }
        let fields = match &input.data {
            Data::Struct(data) => match &data.fields {
                Fields::Named(named) => &named.named,
                Fields::Unnamed(_) => {
                    cx.error_spanned_by(
                        &input.ident,
                        "`#[derive(Keyset)]` needs a struct with named fields (`struct Post { id: i64, .. }`): \
                         a tuple struct's fields have no names to map to columns",
                    );
                    return None;
                }
                Fields::Unit => {
                    cx.error_spanned_by(
                        &input.ident,
                        "`#[derive(Keyset)]` needs a struct with named fields (`struct Post { id: i64, .. }`): \
                         a unit struct has no columns to sort by",
                    );
                    return None;
                }
            },
            Data::Enum(data) => {
                cx.error_spanned_by(
                    data.enum_token,
                    "`#[derive(Keyset)]` works on a struct with named fields, not on an enum",
                );
                return None;
            }
            Data::Union(data) => {
                cx.error_spanned_by(
                    data.union_token,
                    "`#[derive(Keyset)]` works on a struct with named fields, not on a union",
                );
                return None;
            }
        };

        let mut diesel = DieselStruct::default();
        for attr in input.attrs.iter().filter(|a| a.path().is_ident("diesel")) {
            if let Err(err) = attr::parse_diesel_struct(attr, &mut diesel) {
                cx.syn_error(err);
            }
        }
        let table = diesel.table_name.unwrap_or_else(|| infer_table_name(&input.ident));
        let mut options = KeysetStruct::default();
        for attr in input.attrs.iter().filter(|a| a.path().is_ident("keyset")) {
            if let Err(err) = attr::parse_keyset_struct(attr, &mut options) {
                cx.syn_error(err);
            }
        }

        let mut unsorted_tiebreaker = false;
        let keys = fields
            .iter()
            .filter_map(|field| SortKey::from_field(cx, field, &mut unsorted_tiebreaker))
            .collect();
        Some(Model {
            ident: &input.ident,
            vis: &input.vis,
            generics: &input.generics,
            table,
            cursor: format_ident!("{}Cursor", input.ident),
            keys,
            max_token_len: options.max_token_len,
            unsorted_tiebreaker,
        })
    }

    /// The tiebreaker keys: the trailing keys marked `#[tiebreaker]`.
    pub fn tiebreakers(&self) -> impl Iterator<Item = &SortKey<'a>> {
        self.keys.iter().filter(|key| key.tiebreaker.is_some())
    }

    /// The name of the table (the last segment of its path), as written in SQL.
    pub fn table_name(&self) -> String {
        let last = self.table.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        last.trim_start_matches("r#").to_owned()
    }

    /// The sort order in words, e.g. `Post(posts: created_at DESC, id DESC)`. Tokens carry a hash
    /// of it, so a token issued for another model or another order is rejected.
    pub fn signature(&self) -> String {
        let keys: Vec<String> = self
            .keys
            .iter()
            .map(|key| {
                let column = key.column.to_string();
                let mut words =
                    format!("{} {}", column.trim_start_matches("r#"), key.direction().sql());
                match key.nulls() {
                    Some(Nulls::First) => words.push_str(" NULLS FIRST"),
                    Some(Nulls::Last) => words.push_str(" NULLS LAST"),
                    None => {}
                }
                words
            })
            .collect();
        format!("{}({}: {})", self.ident, self.table_name(), keys.join(", "))
    }
}

impl<'a> SortKey<'a> {
    /// Reads one field: `None` when it is not a sort key. A `#[tiebreaker]` without `#[sort]` is
    /// an error, and sets `unsorted_tiebreaker`.
    fn from_field(
        cx: &mut Ctxt,
        field: &'a Field,
        unsorted_tiebreaker: &mut bool,
    ) -> Option<SortKey<'a>> {
        let mut sort = None;
        let mut tiebreaker = None;
        let mut diesel = DieselField::default();
        for attr in &field.attrs {
            if attr.path().is_ident("sort") {
                if let Some(first) = &sort {
                    cx.error_spanned_by(attr, duplicate_sort(first));
                    continue;
                }
                match SortAttr::parse(attr) {
                    Ok(parsed) => sort = Some(parsed),
                    // Still a sort key for the rules below; the direction is unknown but the
                    // error is recorded, so expansion never runs with this placeholder.
                    Err(err) => {
                        cx.syn_error(err);
                        sort = Some(SortAttr::unparsed(attr));
                    }
                }
            } else if attr.path().is_ident("tiebreaker") {
                if tiebreaker.is_some() {
                    cx.error_spanned_by(
                        attr,
                        "this field already has a `#[tiebreaker]`: keep one, `#[tiebreaker]` or \
                         `#[tiebreaker(unique)]`",
                    );
                    continue;
                }
                match TiebreakerAttr::parse(attr) {
                    Ok(parsed) => tiebreaker = Some(parsed),
                    Err(err) => {
                        cx.syn_error(err);
                        tiebreaker = Some(TiebreakerAttr::unparsed(attr));
                    }
                }
            } else if attr.path().is_ident("keyset") {
                cx.error_spanned_by(
                    attr,
                    "`#[keyset(..)]` goes on the struct, not on a field: write \
                     `#[keyset(max_token_len = 4096)]` above `struct ..`",
                );
            } else if attr.path().is_ident("diesel") {
                if let Err(err) = attr::parse_diesel_field(attr, &mut diesel) {
                    cx.syn_error(err);
                }
            }
        }
        let ident = field.ident.as_ref()?;
        let Some(sort) = sort else {
            if let Some(tiebreaker) = tiebreaker {
                *unsorted_tiebreaker = true;
                cx.syn_error(syn::Error::new_spanned(
                    &tiebreaker.tokens,
                    format!(
                        "`#[tiebreaker]` needs a sort direction on the same field: write \
                         `#[sort(desc)] #[tiebreaker] {ident}: ..` (or `#[sort(asc)]`)"
                    ),
                ));
            }
            return None;
        };
        Some(SortKey {
            ident,
            ty: &field.ty,
            column: diesel.column_name.unwrap_or_else(|| ident.clone()),
            sort,
            tiebreaker,
            not_a_column: diesel.not_a_column,
        })
    }
}

/// "already has `#[sort(desc)]`": names the first so the user knows which one stays.
fn duplicate_sort(first: &SortAttr) -> String {
    if !first.parsed {
        return "this field already has a `#[sort(..)]`: a field is one sort key with one direction; \
                keep one `#[sort(..)]`"
            .to_owned();
    }
    let mut args = first.direction.sql().to_lowercase();
    match first.nulls {
        Some((Nulls::First, _)) => args.push_str(", nulls = first"),
        Some((Nulls::Last, _)) => args.push_str(", nulls = last"),
        None => {}
    }
    format!(
        "this field already has `#[sort({args})]`: a field is one sort key with one direction; \
         keep one `#[sort(..)]`"
    )
}

/// Diesel's rule for a struct without `#[diesel(table_name = ..)]`: `BlogPost` → `blog_posts`.
fn infer_table_name(ident: &Ident) -> syn::Path {
    let name = ident.to_string();
    let mut snake = String::with_capacity(name.len() + 4);
    for (i, ch) in name.chars().enumerate() {
        if ch.is_uppercase() && i > 0 {
            snake.push('_');
        }
        snake.extend(ch.to_lowercase());
    }
    snake.push('s');
    Ident::new(&snake, ident.span()).into()
}

/// `Some(T)` for `Option<T>` (also `std::option::Option<T>` and `core::option::Option<T>`).
pub fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else { return None };
    if path.qself.is_some() {
        return None;
    }
    let last = path.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    match args.args.first() {
        Some(syn::GenericArgument::Type(inner)) if args.args.len() == 1 => Some(inner),
        _ => None,
    }
}
