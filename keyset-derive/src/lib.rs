//! The `#[derive(Keyset)]` macro. This crate is a thin shim: the parser, model, validation and
//! code generation live in `keyset-codegen`, where they can be unit-tested and reused by the
//! build-time migration writer. Depend on `keyset-runtime`, which re-exports this derive.

use proc_macro::TokenStream;

/// Derives keyset pagination for a Diesel model: a `<Model>Cursor` struct holding the values of
/// its sort keys, and the `keyset_runtime::Keyset` impl. Use it through `keyset-runtime`
/// (`use keyset_runtime::Keyset;`), beside Diesel's `Queryable` and `Selectable`:
///
/// ```text
/// #[derive(Queryable, Selectable, Keyset)]
/// #[diesel(table_name = posts)]
/// struct Post {
///     #[sort(desc)]
///     created_at: NaiveDateTime,
///     #[sort(desc)]
///     #[tiebreaker]
///     id: i64,
///     title: String,
/// }
/// ```
///
/// # Attributes
///
/// | attribute | on | syntax | default |
/// |---|---|---|---|
/// | `#[sort(..)]` | a field | `#[sort(asc)]` or `#[sort(desc)]` | none: a field without it is not a sort key, and the direction must be written |
/// | `nulls = ..` in `#[sort(..)]` | an `Option<T>` field | `#[sort(desc, nulls = last)]`, `#[sort(asc, nulls = first)]` | none: required on an `Option<T>` key, an error on any other |
/// | `#[tiebreaker]` | the last sort key(s) | `#[tiebreaker]`, no arguments | none: the sort order needs one |
/// | `#[tiebreaker(unique)]` | the last sort key | `#[tiebreaker(unique)]` | the tiebreaker must be the primary key unless `unique` is written |
/// | `#[keyset(order(name: field dir, ..))]` | the struct | `#[keyset(order(top: score desc, id desc))]`; an `Option` field adds `nulls first` or `nulls last`; several orders in one attribute or several | none: a named order a client chooses at run time, ending with the `#[tiebreaker]` field; the name is one identifier (a keyword too, but not `self`) |
/// | `#[keyset(listing = "..")]` | the struct | `#[keyset(listing = "admin")]` | none: a name the listing's tokens carry, so that another listing of the same table and order refuses them |
/// | `#[keyset(max_token_len = ..)]` | the struct | `#[keyset(max_token_len = 4096)]`, from 64 to 65 536 characters | 1024: the longest token the listing issues and accepts; raise it for long text keys |
/// | `#[keyset(cursor = ..)]` | the struct | `#[keyset(cursor = PostKey)]` | `<Model>Cursor`: the generated cursor's name |
/// | `#[keyset(order_enum = ..)]` | the struct, with named orders | `#[keyset(order_enum = PostSort)]` | `<Model>Order`: the generated enum of the named orders |
/// | `#[keyset(text_collation = "..")]` | the struct | `#[keyset(text_collation = "C")]`: `"C"`, `"POSIX"`, `"ucs_basic"`, `"BINARY"`, `"utf8mb4_nopad_bin"` | none: every shard's text key columns sort in this byte-order collation, so that pages of several shards may merge on them |
/// | `#[keyset(prefix(..))]` | the struct | `#[keyset(prefix(author_id))]`, `#[keyset(prefix(tenant_id, author_id))]`: columns of the model's `table!` (not field names; the model need not select them), comma separated; repeatable | none: each order's index is also written led by these columns, for a listing filtered on them by equality and a page among a set of their values (see [Equality prefixes](#equality-prefixes)) |
/// | `#[diesel(table_name = ..)]` | the struct | Diesel's: `table_name = posts` or a path, `schema::posts` | the struct's name in snake case plus `s`, as Diesel infers it (`BlogPost` → `blog_posts`) |
/// | `#[diesel(column_name = ..)]` | a field | Diesel's: `column_name = created_at` or `column_name = "type"` | the field's name |
/// | `#[keyset(reads_and_sorts)]` | the struct | `#[keyset(reads_and_sorts)]`, no value | none: an order of a joined table's columns must lead with them, end them with that table's primary key, and the struct declare the column that joins it as a `prefix(..)` (see the joins guide); this keeps any other such order, whose pages read every row the join matches past the cursor and sort them |
/// | `#[keyset(postgres_fdw)]` | the struct | `#[keyset(postgres_fdw)]`, no value | none: the table is read through postgres_fdw (foreign tables, or a table partitioned over them), so every order seeks without the row value postgres_fdw does not send on to the servers that hold the rows (see the shards guide) |
/// | `#[keyset(spider)]` | the struct | `#[keyset(spider)]`, no value | none: the table is a MariaDB Spider table, so a page past a cursor seeks one range of the index per statement (one per tie level), which Spider sends each data node whole, where one predicate of several ranges came back with rows twice (see the shards guide) |
/// | `#[diesel(select_expression = ..)]` | a sort key | Diesel's, a bare column of a joined table: `select_expression = authors::name` | none: the key is that column (not the tiebreaker); the joined table's keys get their index on that table |
///
/// The sort keys are the `#[sort(..)]` fields, **in field order**: the first is the leading key
/// of the ORDER BY. Other `#[diesel(..)]` keys (`check_for_backend`, `serialize_as`,
/// `treat_none_as_null`, `deserialize_as` on a field that is not a sort key, ..) are Diesel's
/// business and pass through untouched.
///
/// # Rules
///
/// A sort order pages correctly only if it is a total order, so the derive refuses, each with
/// its own compile error that says what to write instead:
///
/// 1. **Not a struct with named fields**: an enum, a union, a tuple or unit struct, or a struct
///    with type, lifetime or const parameters.
/// 2. **No sort key**: a struct without any `#[sort(..)]` field.
/// 3. **No tiebreaker**: no field is marked `#[tiebreaker]`. Rows that tie on every sort key would
///    be skipped or repeated across pages.
/// 4. **Tiebreaker not last**: a plain sort key after a `#[tiebreaker]` field. The tiebreaker
///    fields are the trailing sort keys; several of them only for a composite primary key.
/// 5. **Tiebreaker without a direction**: `#[tiebreaker]` on a field without `#[sort(..)]`. There
///    is no default: the direction is part of the ORDER BY and of the index that serves it.
/// 6. **Tiebreaker not the primary key**: the tiebreaker columns, in field order, must be the
///    table's `<table as diesel::Table>::PrimaryKey` (every column of a composite key, in the
///    key's order), checked at compile time with the error at the `#[tiebreaker]`. For a
///    `NOT NULL` column with a unique index that is not the primary key, write
///    `#[tiebreaker(unique)]`: you vouch for its uniqueness, and it must be the only tiebreaker.
/// 7. **Nullable tiebreaker**: a tiebreaker of type `Option<T>`; a nullable column is not a key.
/// 8. **Type mismatch**: a sort key whose Rust type Diesel cannot bind as its column's SQL type
///    (`String` for an `Integer` column), or a plain (not `Option<T>`) field on a `Nullable<..>`
///    column, which would silently skip the rows where it is NULL; checked at compile time with
///    the error at the field's type.
/// 9. **Nullable sort key**: an `Option<T>` sort key must say where its NULLs go
///    (`#[sort(desc, nulls = last)]`), since databases disagree about it; the ORDER BY then pins
///    that placement on every backend and the predicate handles NULL cursor values. `nulls = ..`
///    on a field that is not an `Option<T>` is an error.
/// 10. **Not a column**: a sort key with `#[diesel(embed)]` or `#[diesel(deserialize_as = ..)]`,
///     or whose `#[diesel(select_expression = ..)]` is an expression rather than a bare column,
///     holds no single column's value to compare; a bare column of a joined table is a key,
///     but not a tiebreaker (which must be unique in the model's own table).
/// 11. **Misused attributes**: an unknown or repeated `#[sort(..)]` argument (`#[sort(dsec)]`,
///     `#[sort(asc, desc)]`), `#[sort]` without a direction, `#[tiebreaker]` with arguments other
///     than `unique`, `#[sort]` or `#[tiebreaker]` on the struct or twice on one field,
///     `#[keyset(..)]` on a field, with an unknown or repeated option, or a `max_token_len`
///     outside 64 to 65 536.
/// 12. **Named orders**: every `#[keyset(order(..))]` by the rules above (a tiebreaker last,
///     a direction per key, NULL placement on `Option` keys, in lower case), each key a field of
///     the struct, once; names unique, each one identifier whose UpperCamelCase names a variant
///     (`most_read`, not `most-read` or `"top"`; not `self`, whose variant would be `Self`).
/// 13. **Equality prefixes**: `prefix(..)` of columns of the model's `table!` (checked at
///     compile time, the error at the column), each once; `prefix()` empty, or the same prefix
///     twice; a column every order sorts by (see below).
///
/// # Equality prefixes
///
/// A listing filtered by equality on a column that does not lead its order's index
/// (`.filter(posts::author_id.eq(7))` under `created_at desc, id desc`) reads that index in
/// order and discards the rows of other values, as many as come before the page's own: measured
/// by a user, 13,680 rows read per page of one author's posts, 12.0 ms, against 0.15 ms with the
/// index `(author_id, created_at DESC, id DESC)`. `#[keyset(prefix(author_id))]` declares that
/// index: for each order whose index the derive writes (the field order and each named order;
/// not one with a key of a joined table), the prefix columns ascending (an equality is served in
/// either direction), then the order's keys with their directions and NULL placements. The
/// indexes land in `Keyset::INDEXES` and in the migrations that `keyset-codegen` writes, beside
/// the orders' own. A page among a set of values (a feed: the posts of the authors one follows)
/// uses the same index, one seek per value.
///
/// An index holds a column once: an order that sorts by a prefix column gets no index of that
/// prefix, and a column that every order sorts by is refused. A listing filtered on such a
/// column and sorted by it first needs no prefix: its order's index already leads with it.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use diesel::prelude::*;
/// use keyset_runtime::migration::Backend;
/// use keyset_runtime::{Keyset, PageRequest, Paginate};
///
/// diesel::table! {
///     posts (id) {
///         id -> BigInt,
///         author_id -> BigInt,
///         created_at -> BigInt,
///     }
/// }
///
/// #[derive(Queryable, Selectable, Keyset)]
/// #[diesel(table_name = posts)]
/// #[keyset(prefix(author_id))]
/// struct Post {
///     #[sort(desc)]
///     created_at: i64,
///     #[sort(desc)]
///     #[tiebreaker]
///     id: i64,
/// }
///
/// let names: Vec<&str> = Post::INDEXES.iter().map(|index| index.name).collect();
/// assert_eq!(
///     names,
///     ["posts_keyset_created_at_desc_id_desc", "posts_keyset_author_id_asc_created_at_desc_id_desc"]
/// );
///
/// let mut conn = SqliteConnection::establish(":memory:")?;
/// diesel::sql_query(
///     "CREATE TABLE posts (id BIGINT PRIMARY KEY NOT NULL, author_id BIGINT NOT NULL, \
///      created_at BIGINT NOT NULL)",
/// )
/// .execute(&mut conn)?;
/// for index in Post::INDEXES {
///     diesel::sql_query(index.create(Backend::Sqlite)).execute(&mut conn)?;
/// }
///
/// // One author's posts: each page seeks `(author_id, created_at DESC, id DESC)`.
/// let first = posts::table
///     .filter(posts::author_id.eq(7))
///     .select(Post::as_select())
///     .order(Post::order_by())
///     .limit(21);
/// let plan = keyset_runtime::explain::sqlite_index_seek(&first, &mut conn)?;
/// assert!(plan[0].contains("posts_keyset_author_id_asc_created_at_desc_id_desc"), "{plan:?}");
/// let page = posts::table
///     .filter(posts::author_id.eq(7))
///     .select(Post::as_select())
///     .paginate(&PageRequest::first(20))?
///     .load_page(&mut conn)?;
/// assert!(page.items.is_empty());
/// # Ok(())
/// # }
/// ```
///
/// Every mistake of one derive is reported at once, each at the attribute, argument or field at
/// fault. When there are any, the derive still defines `<Model>Cursor`, the `Keyset` impl and the
/// order enum, paging in the keys it could trust, so that code using them adds no errors of its
/// own. The guides (`keyset_runtime::guide`) show each attribute at work, in examples that run.
#[proc_macro_derive(Keyset, attributes(sort, tiebreaker, keyset, diesel))]
pub fn derive_keyset(input: TokenStream) -> TokenStream {
    keyset_codegen::derive_keyset(input.into()).into()
}
