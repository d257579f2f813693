//! The typed model of a `#[derive(Keyset)]` struct: which fields are sort keys, in which direction,
//! on which column of which table. Built from the `DeriveInput`, recording every attribute error
//! on the way so that all of them are reported together.

use proc_macro2::Span;
use quote::format_ident;
use syn::{Data, DeriveInput, Fields, Ident, Type, Visibility};

use crate::attr::{self, DieselStruct, Direction, KeysetStruct, Nulls, SortAttr, TiebreakerAttr};
use crate::ctxt::Ctxt;

mod field;
mod order;

use field::{misspelled, misspelled_reason, FieldAttrs};

/// A struct that derives `Keyset`.
pub struct Model<'a> {
    pub ident: &'a Ident,
    pub vis: &'a Visibility,
    pub generics: &'a syn::Generics,
    /// The Diesel table module, e.g. `posts` or `schema::posts`.
    pub table: syn::Path,
    /// The public name of the generated cursor struct, `<Model>Cursor`, or as
    /// `#[keyset(cursor = ..)]` names it: an alias of `cursor_hidden` (see `expand::public_name`).
    pub cursor: Ident,
    /// The name the cursor struct is defined under, `__<Model>Cursor` (see `hidden_name`).
    pub cursor_hidden: Ident,
    /// `#[keyset(cursor = ..)]` and `#[keyset(order_enum = ..)]` were given: the rules about
    /// these names apply.
    pub cursor_named: bool,
    pub order_enum_named: bool,
    /// The sort keys of the field attributes, in ORDER BY order (the order of the fields): the
    /// model's own order, empty when it has only named ones.
    pub keys: Vec<SortKey<'a>>,
    /// The named orders of `#[keyset(order(..))]`, in declaration order.
    pub orders: Vec<NamedOrder<'a>>,
    /// The public name of the generated enum naming the orders, `<Model>Order`, or as
    /// `#[keyset(order_enum = ..)]` names it: an alias of `order_enum_hidden`.
    pub order_enum: Ident,
    /// The name the enum is defined under, `__<Model>Order`.
    pub order_enum_hidden: Ident,
    /// How many `order(..)` the struct declares, those in error included.
    pub declared_orders: usize,
    /// `#[keyset(max_token_len = ..)]`: the longest token of the listing, when not the default.
    pub max_token_len: Option<usize>,
    /// `#[keyset(listing = "..")]`: the listing's own name, which its tokens carry.
    pub listing: Option<String>,
    /// `#[keyset(text_collation = "C")]`: the byte-order collation every shard's text key
    /// columns sort by, which lets a merge of shards' pages compare text keys.
    pub text_collation: Option<String>,
    /// A field has `#[tiebreaker]` but no `#[sort]`: already an error, and the rules about
    /// missing keys or a missing tiebreaker would only repeat it.
    pub unsorted_tiebreaker: bool,
    /// The fields marked `#[tiebreaker]`, in field order: what a named order must end with.
    pub tiebreakers: Vec<&'a Ident>,
    /// Every field is a column of the model's table (none is `embed`, `deserialize_as`, or a
    /// `select_expression` other than one of those columns), each a different one: Diesel's
    /// `Selectable` then outputs each key under its column's name, and no name twice.
    pub own_columns: bool,
    /// `#[keyset(prefix(..))]`, in declaration order: the columns of the model's table that a
    /// listing filters on by equality, as written (their spans are where a missing column is
    /// reported). Each leads an index of every order that does not sort by one of them.
    pub prefixes: Vec<Vec<Ident>>,
    /// `#[keyset(reads_and_sorts)]`, at its span: orders of a joined table's columns that no
    /// index serves are kept, their pages reading and sorting what the join matches.
    pub reads_and_sorts: Option<proc_macro2::Span>,
    /// `#[keyset(postgres_fdw)]`: the table is read through postgres_fdw, which sends no row
    /// value to the servers holding the rows: the orders' seeks are written as it sends them.
    pub postgres_fdw: bool,
    /// `#[keyset(spider)]`: the table is a MariaDB Spider table, whose data nodes get one
    /// statement per range of a seek: each statement of a page seeks one range.
    pub spider: bool,
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
    /// The table module of a column of another table, from
    /// `#[diesel(select_expression = authors::name)]` (a join's column): `authors`. `None` for
    /// a column of the model's table.
    pub joined: Option<syn::Path>,
}

/// `#[keyset(order(top: score desc, created_at desc, id desc))]`.
pub struct NamedOrder<'a> {
    /// The name as declared and as clients write it, `top`.
    pub name: Ident,
    /// Its enum variant, `Top`.
    pub variant: Ident,
    /// Its keys, in order, each read as if the field had `#[sort(..)]` with its direction.
    pub keys: Vec<SortKey<'a>>,
}

impl SortKey<'_> {
    pub fn direction(&self) -> Direction {
        self.sort.direction
    }

    /// The NULL placement of an `Option` key. A placement written on another key is an error
    /// (`valid.rs`), and the fallback expands such a key as the plain one it is.
    pub fn nulls(&self) -> Option<Nulls> {
        self.option_inner().and(self.sort.nulls.map(|(nulls, _)| nulls))
    }

    /// `Some(T)` when the field's type is `Option<T>`, i.e. the column is nullable.
    pub fn option_inner(&self) -> Option<&Type> {
        option_inner(self.ty)
    }

    /// The joined table's module as written (`authors`, `schema::authors`), for a key of another
    /// table; `None` for a column of the model's table.
    pub fn joined_table(&self) -> Option<String> {
        self.joined.as_ref().map(|path| quote::quote!(#path).to_string().replace(' ', ""))
    }

    /// The column as SQL names it in the order's words: `created_at`, or `authors.name` for a
    /// column of another table.
    pub fn column_name(&self) -> String {
        let column = self.column.to_string();
        let column = column.trim_start_matches("r#");
        match self.joined.as_ref().and_then(|path| path.segments.last()) {
            Some(table) => format!("{}.{column}", table.ident.to_string().trim_start_matches("r#")),
            None => column.to_owned(),
        }
    }
}

impl<'a> Model<'a> {
    /// Builds the model, or records why it cannot be built. Attribute errors are recorded but do
    /// not stop the model from being built from the rest, so validation still runs.
    pub fn from_ast(cx: &mut Ctxt, input: &'a DeriveInput) -> Option<Model<'a>> {
        for attr in &input.attrs {
            if let Some(meant) = misspelled(attr, &["sort", "tiebreaker", "keyset"]) {
                // rustc reports it ("cannot find attribute"), and suggests the name.
                cx.left_to_rustc(misspelled_reason(attr, meant));
            }
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
        let mut errors = Vec::new();
        for attr in &input.attrs {
            if attr.path().is_ident("keyset") {
                attr::parse_keyset_struct(attr, &mut options, &mut errors);
            } else if misspelled(attr, &["keyset"]).is_some() {
                // It may declare orders: the rules about a model without any must not follow.
                options.declared_orders += 1;
            }
        }
        errors.into_iter().for_each(|error| cx.syn_error(error));

        let mut fields: Vec<FieldAttrs> =
            fields.iter().filter_map(|field| FieldAttrs::from_field(cx, field)).collect();
        // `select_expression = posts::title` on a model of `posts` is its own column.
        let own = table.segments.last().map(|segment| &segment.ident);
        for field in &mut fields {
            if field.joined.as_ref().and_then(|path| path.segments.last()).map(|s| &s.ident) == own
            {
                field.joined = None;
            }
        }
        let mut columns = std::collections::HashSet::new();
        let own_columns = fields.iter().all(|field| {
            field.not_a_column.is_none() && field.joined.is_none() && columns.insert(&field.column)
        });
        let named = options.declared_orders > 0;
        let sorted = fields.iter().any(|field| field.sort.is_some());
        let mut unsorted_tiebreaker = false;
        let tiebreakers = fields.iter().filter(|field| field.tiebreaker.is_some());
        let tiebreakers = tiebreakers.map(|field| field.ident).collect();
        let mut keys = Vec::new();
        for field in &fields {
            match (&field.sort, &field.tiebreaker) {
                (Some(sort), _) => keys.push(field.key(sort.clone())),
                // A `#[tiebreaker]` alone names the unique key for the named orders; with no
                // named order, or beside a field order, it lacks its direction.
                (None, Some(tiebreaker)) if !named || sorted => {
                    unsorted_tiebreaker = true;
                    cx.syn_error(syn::Error::new_spanned(
                        &tiebreaker.tokens,
                        format!(
                            "`#[tiebreaker]` needs a sort direction on the same field: write \
                             `#[sort(desc)] #[tiebreaker] {ident}: ..` (or `#[sort(asc)]`)",
                            ident = field.ident,
                        ),
                    ));
                }
                (None, _) => {}
            }
        }
        let orders = options
            .orders
            .into_iter()
            .filter_map(|order| NamedOrder::new(cx, order, &fields))
            .collect();
        Some(Model {
            ident: &input.ident,
            vis: &input.vis,
            generics: &input.generics,
            table,
            cursor_named: options.cursor.is_some(),
            order_enum_named: options.order_enum.is_some(),
            cursor: options.cursor.unwrap_or_else(|| default_name(&input.ident, "Cursor")),
            cursor_hidden: hidden_name(&input.ident, "Cursor"),
            keys,
            orders,
            order_enum: options.order_enum.unwrap_or_else(|| default_name(&input.ident, "Order")),
            order_enum_hidden: hidden_name(&input.ident, "Order"),
            declared_orders: options.declared_orders,
            max_token_len: options.max_token_len,
            listing: options.listing.map(|name| name.value()),
            text_collation: options.text_collation.map(|collation| collation.value()),
            unsorted_tiebreaker,
            tiebreakers,
            own_columns,
            prefixes: options.prefixes,
            reads_and_sorts: options.reads_and_sorts,
            postgres_fdw: options.postgres_fdw.is_some(),
            spider: options.spider.is_some(),
        })
    }

    /// The name of the table (the last segment of its path), as written in SQL.
    pub fn table_name(&self) -> String {
        let last = self.table.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        last.trim_start_matches("r#").to_owned()
    }

    /// The orders whose indexes are written, field order first: not an empty field order, nor
    /// one with a key of a joined table, which no index on the model's table holds.
    pub fn indexed_orders(&self) -> impl Iterator<Item = &[SortKey<'a>]> {
        let orders = std::iter::once(&self.keys[..]).chain(self.orders.iter().map(|o| &o.keys[..]));
        orders.filter(|keys| !keys.is_empty() && keys.iter().all(|key| key.joined.is_none()))
    }

    /// The orders led by one joined table's keys, each split into those keys and the model's own
    /// that follow: `(authors.name, authors.id)`, `(created_at, id)`. None where the struct keeps
    /// orders that no index serves (`reads_and_sorts`): its joined orders may be of any shape.
    /// The derive refuses the other shapes (`valid/joined.rs`), and checks with the types that
    /// the joined keys end with their table's primary key.
    pub fn joined_orders(&self) -> impl Iterator<Item = (&[SortKey<'a>], &[SortKey<'a>])> {
        let orders = std::iter::once(&self.keys[..]).chain(self.orders.iter().map(|o| &o.keys[..]));
        let kept = self.reads_and_sorts.is_some();
        orders.filter(move |_| !kept).filter_map(|keys| {
            let run = joined_run(&keys.iter().collect::<Vec<_>>())?;
            Some(keys.split_at(run))
        })
    }

    /// How many of an order's `keys` are the joined keys that lead it, where it is one of
    /// [`joined_orders`](Self::joined_orders); 0 for any other: what its `GROUP_KEYS` tells the
    /// runtime, which may then page it a group (a joined row) at a time.
    pub fn group_keys(&self, keys: &[&SortKey]) -> usize {
        match self.reads_and_sorts {
            Some(_) => 0,
            None => joined_run(keys).unwrap_or(0),
        }
    }

    /// The sort order `keys` in words, e.g. `posts: created_at DESC, id DESC`, or
    /// `posts[admin]: ..` for a named listing; `reversed` flips every direction and NULL
    /// placement. Tokens carry a hash of it, so a token issued for another listing or another
    /// order is rejected; the struct's name is not in it, so renaming the struct keeps tokens.
    pub fn signature(&self, keys: &[&SortKey], reversed: bool) -> String {
        let listing = match &self.listing {
            Some(name) => format!("{}[{name}]", self.table_name()),
            None => self.table_name(),
        };
        format!("{listing}: {}", key_words(keys, reversed))
    }

    /// The signature of the field order in token format version 2, which hashed the struct's
    /// name: `Post(posts: created_at DESC, id DESC)`.
    pub fn legacy_signature(&self) -> String {
        let keys: Vec<&SortKey> = self.keys.iter().collect();
        format!("{}({}: {})", self.ident, self.table_name(), key_words(&keys, false))
    }
}

/// How many of `keys` lead them from one joined table, where every later key is the model's
/// own: the shape of a joined order. `None` for an order not led by a joined key, or with a
/// joined key after its own (which the derive refuses, `valid/joined.rs`).
fn joined_run(keys: &[&SortKey]) -> Option<usize> {
    let lead = keys.first()?.joined_table()?;
    let run = keys.iter().take_while(|key| key.joined_table().as_ref() == Some(&lead)).count();
    keys[run..].iter().all(|key| key.joined.is_none()).then_some(run)
}

/// `created_at DESC, id DESC NULLS LAST`.
fn key_words(keys: &[&SortKey], reversed: bool) -> String {
    let keys: Vec<String> = keys
        .iter()
        .map(|key| {
            let (direction, nulls) = key.directions(reversed);
            let mut words = format!("{} {}", key.column_name(), direction.sql());
            match nulls {
                Some(Nulls::First) => words.push_str(" NULLS FIRST"),
                Some(Nulls::Last) => words.push_str(" NULLS LAST"),
                None => {}
            }
            words
        })
        .collect();
    keys.join(", ")
}

impl SortKey<'_> {
    /// The key's direction and NULL placement, or with `reversed` their opposites: the key as
    /// the reversed order sorts it.
    pub fn directions(&self, reversed: bool) -> (Direction, Option<Nulls>) {
        if !reversed {
            return (self.direction(), self.nulls());
        }
        let direction = match self.direction() {
            Direction::Asc => Direction::Desc,
            Direction::Desc => Direction::Asc,
        };
        let nulls = self.nulls().map(|nulls| match nulls {
            Nulls::First => Nulls::Last,
            Nulls::Last => Nulls::First,
        });
        (direction, nulls)
    }
}

/// `<Model>Cursor` or `<Model>Order`: the default public name of a generated type, located at the
/// struct's name, so that rustc's "defined multiple times" for a user type of that name points at
/// the struct that generates it.
pub fn default_name(ident: &Ident, suffix: &str) -> Ident {
    format_ident!("{}{}", ident, suffix, span = Span::call_site().located_at(ident.span()))
}

/// `__<Model>Cursor` or `__<Model>Order`: the name a generated type is defined under, which no
/// user type takes, and which the model's name keeps apart from other models' in one module, even
/// when two of them are given one public name. rustc writes it in type errors, where it reads as
/// the public name, `<Model>Cursor`, would.
pub fn hidden_name(ident: &Ident, suffix: &str) -> Ident {
    format_ident!("__{}{}", ident, suffix)
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
