//! Keyset (cursor, seek) pagination for Diesel, correct by construction.
//!
//! OFFSET pagination re-reads every row before the page, so deep pages get slower, and rows
//! inserted or deleted meanwhile shift pages (duplicates, skipped rows). Keyset pagination
//! remembers the sort values of the last row and asks for the rows strictly after them: with a
//! matching index every page is one index seek (on SQLite, one per tie level it reaches), and
//! page 10 000 costs what page 1 costs.
//!
//! ```
//! use diesel::prelude::*;
//! use keyset_runtime::{Keyset, PageRequest, Paginate};
//!
//! diesel::table! {
//!     posts (id) {
//!         id -> BigInt,
//!         created_at -> BigInt,
//!         title -> Text,
//!     }
//! }
//!
//! #[derive(Queryable, Selectable, Keyset, Debug)]
//! #[diesel(table_name = posts)]
//! struct Post {
//!     #[sort(desc)]
//!     created_at: i64,
//!     #[sort(desc)]
//!     #[tiebreaker]
//!     id: i64,
//!     title: String,
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut conn = SqliteConnection::establish(":memory:")?;
//! diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY, created_at BIGINT NOT NULL, title TEXT NOT NULL)")
//!     .execute(&mut conn)?;
//! diesel::sql_query("INSERT INTO posts VALUES (1, 10, 'a'), (2, 10, 'b'), (3, 20, 'c')")
//!     .execute(&mut conn)?;
//!
//! let first = posts::table
//!     .select(Post::as_select())
//!     .paginate(&PageRequest::first(2))?
//!     .load_page(&mut conn)?;
//! assert_eq!(first.items.iter().map(|p| p.id).collect::<Vec<_>>(), [3, 2]);
//!
//! let token = first.next_cursor.expect("a second page exists");
//! let second = posts::table
//!     .select(Post::as_select())
//!     .paginate(&PageRequest::after(token, 2))?
//!     .load_page(&mut conn)?;
//! assert_eq!(second.items.iter().map(|p| p.id).collect::<Vec<_>>(), [1]);
//! assert_eq!(second.next_cursor, None); // the last page: no token, never ""
//! # Ok(())
//! # }
//! ```
//!
//! # The derive
//!
//! `#[derive(Keyset)]` goes beside Diesel's `Queryable` and `Selectable` and reads the same
//! `#[diesel(table_name = ..)]` and `#[diesel(column_name = ..)]`. Mark the sort keys, in ORDER BY
//! order (the order of the fields), and end with a unique tiebreaker:
//!
//! | attribute | on | syntax | default |
//! |---|---|---|---|
//! | `#[sort(..)]` | a field | `#[sort(asc)]` or `#[sort(desc)]` | none: a field without it is not a sort key, and the direction must be written |
//! | `nulls = ..` in `#[sort(..)]` | an `Option<T>` field | `#[sort(desc, nulls = last)]`, `#[sort(asc, nulls = first)]` | none: required on an `Option<T>` key, an error on any other |
//! | `#[tiebreaker]` | the last sort key(s) | `#[tiebreaker]`, no arguments | none: the sort order needs one |
//! | `#[tiebreaker(unique)]` | the last sort key | `#[tiebreaker(unique)]` | the tiebreaker must be the primary key unless `unique` is written |
//! | `#[keyset(order(name: field dir, ..))]` | the struct | `#[keyset(order(top: score desc, id desc))]`; an `Option` field adds `nulls first` or `nulls last` | none: a named order a client chooses at run time (see [Orders chosen at run time](#orders-chosen-at-run-time)) |
//! | `#[keyset(listing = "..")]` | the struct | `#[keyset(listing = "admin")]` | none: a name the listing's tokens carry, so that another listing of the same table and order refuses them |
//! | `#[keyset(max_token_len = ..)]` | the struct | `#[keyset(max_token_len = 4096)]`, from 64 to 65 536 characters | 1024: the longest token the listing issues and accepts; raise it for long text keys |
//! | `#[keyset(cursor = ..)]` | the struct | `#[keyset(cursor = PostKey)]` | `<Model>Cursor`: the name of the generated cursor (see [Generated names](#generated-names)) |
//! | `#[keyset(order_enum = ..)]` | the struct, with named orders | `#[keyset(order_enum = PostSort)]` | `<Model>Order`: the name of the generated enum of the named orders |
//! | `#[diesel(table_name = ..)]` | the struct | Diesel's: `table_name = posts` or a path, `schema::posts` | the struct's name in snake case plus `s`, as Diesel infers it (`BlogPost` → `blog_posts`) |
//! | `#[diesel(column_name = ..)]` | a field | Diesel's: `column_name = created_at` or `column_name = "type"` | the field's name |
//!
//! Other `#[diesel(..)]` keys are Diesel's business and pass through untouched.
//!
//! The derive accepts only sort orders that are provably total, and says at compile time what to
//! write instead of anything else (the full list is in the derive's documentation): a tiebreaker
//! is required, it is the last sort key (or keys), it is the table's primary key (composite keys
//! in the key's order; checked against `<table as diesel::Table>::PrimaryKey`) unless
//! `#[tiebreaker(unique)]` vouches for another unique column, and it is never an `Option` nor a
//! nullable column (`Nullable<..>` in `table!`). Each
//! sort key's Rust type must be one Diesel binds as its column's SQL type, and an `Option<T>`
//! exactly when the column is nullable; an `Option<T>` key must name its NULL placement (see
//! [Nullable keys](#nullable-keys)). Sort keys are plain columns (not `embed`,
//! `select_expression` or `deserialize_as`), and the derive takes a non-generic struct with named
//! fields. All mistakes of one derive are reported together, each at the attribute or field at
//! fault.
//!
//! ```
//! # use diesel::prelude::*;
//! # use keyset_runtime::Keyset;
//! diesel::table! {
//!     memberships (team_id, user_id) {
//!         team_id -> Integer,
//!         user_id -> Integer,
//!         joined_at -> BigInt,
//!         handle -> Text,
//!     }
//! }
//!
//! /// A composite primary key as the tiebreaker: every column, in the key's order.
//! #[derive(Queryable, Selectable, Keyset)]
//! #[diesel(table_name = memberships)]
//! struct Membership {
//!     #[sort(desc)]
//!     #[diesel(column_name = joined_at)]
//!     joined: i64,
//!     #[sort(asc)]
//!     #[tiebreaker]
//!     team_id: i32,
//!     #[sort(asc)]
//!     #[tiebreaker]
//!     user_id: i32,
//! }
//!
//! /// A unique column that is not the primary key, vouched for.
//! #[derive(Queryable, Selectable, Keyset)]
//! #[diesel(table_name = memberships)]
//! struct ByHandle {
//!     #[sort(asc)]
//!     #[tiebreaker(unique)]
//!     handle: String,
//! }
//!
//! assert_eq!(Membership::SORT_ORDER, "memberships: joined_at DESC, team_id ASC, user_id ASC");
//! ```
//!
//! It generates `<Model>Cursor` (one public field per sort key, `Debug`, `Clone`, `PartialEq`,
//! `From<&Model>`, and [`CursorValue`](token::CursorValue), its binary form in tokens) and the
//! [`Keyset`] impl, whose [`after`](Keyset::after),
//! [`before`](Keyset::before), [`order_by`](Keyset::order_by) and
//! [`reverse_order_by`](Keyset::reverse_order_by) are ordinary Diesel expressions.
//!
//! # Generated names
//!
//! The derive defines `<Model>Cursor` and, with named orders, `<Model>Order` beside the model:
//! each an alias of the generated type, which is defined as `__<Model>Cursor` or
//! `__<Model>Order` (the names rustc writes in type errors). Through the alias the type is built,
//! matched and given impls as a struct or enum of that name (`ArticleSort::Top`, though a type
//! alias cannot be imported from: no `use ArticleSort::*`). When the module already has a type of
//! that name, rustc reports it once, as defined multiple times, at the struct's name: name the
//! generated ones with `#[keyset(cursor = ..)]` and `#[keyset(order_enum = ..)]` instead.
//!
//! ```
//! # use diesel::prelude::*;
//! # use keyset_runtime::Keyset;
//! # diesel::table! { articles (id) { id -> BigInt, score -> Integer } }
//! /// The application's own cursor type, older than the listing.
//! pub struct ArticleCursor {
//!     pub offset: u64,
//! }
//!
//! #[derive(Queryable, Selectable, Keyset)]
//! #[keyset(cursor = ArticleKey, order_enum = ArticleSort)]
//! #[keyset(order(top: score desc, id desc))]
//! struct Article {
//!     #[sort(desc)]
//!     #[tiebreaker]
//!     id: i64,
//!     score: i32,
//! }
//!
//! let key: <Article as Keyset>::Cursor = ArticleKey { id: 42 };
//! assert_eq!(key.id, 42);
//! assert_eq!("top".parse::<ArticleSort>()?, ArticleSort::Top);
//! # let _ = ArticleCursor { offset: 0 };
//! # Ok::<(), keyset_runtime::ParseOrderError>(())
//! ```
//!
//! # Nullable keys
//!
//! A sort key of type `Option<T>` names where its NULLs go: `#[sort(desc, nulls = last)]`. The
//! order is then the same on every backend: the ORDER BY pins the placement (`NULLS LAST` where
//! the engine has the syntax and its own placement differs, a leading `x IS NULL` term on MySQL
//! and MariaDB), and the seek predicate is right for NULL and non-NULL cursor values alike, so
//! no row is lost at the NULL boundary. Tokens carry NULLs losslessly.
//!
//! ```
//! # use diesel::prelude::*;
//! # use keyset_runtime::{Keyset, PageRequest, Paginate};
//! diesel::table! {
//!     tasks (id) {
//!         id -> BigInt,
//!         due -> Nullable<BigInt>,
//!     }
//! }
//!
//! /// Tasks by due date, the undated ones last.
//! #[derive(Queryable, Selectable, Keyset, Debug)]
//! struct Task {
//!     #[sort(asc, nulls = last)]
//!     due: Option<i64>,
//!     #[sort(asc)]
//!     #[tiebreaker]
//!     id: i64,
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut conn = SqliteConnection::establish(":memory:")?;
//! diesel::sql_query("CREATE TABLE tasks (id BIGINT PRIMARY KEY, due BIGINT)").execute(&mut conn)?;
//! diesel::sql_query("INSERT INTO tasks VALUES (1, NULL), (2, 20), (3, NULL), (4, 10)")
//!     .execute(&mut conn)?;
//! let mut ids = Vec::new();
//! let mut request = PageRequest::first(1);
//! loop {
//!     let page = tasks::table.select(Task::as_select()).paginate(&request)?.load_page(&mut conn)?;
//!     ids.extend(page.items.iter().map(|task| task.id));
//!     match page.next_cursor {
//!         Some(token) => request = PageRequest::after(token, 1),
//!         None => break,
//!     }
//! }
//! assert_eq!(ids, [4, 2, 1, 3]);
//! # Ok(())
//! # }
//! ```
//!
//! A predicate with `OR x IS NULL` on the leading key would scan every row before the cursor on
//! PostgreSQL and SQLite, and be followed by a sort on MariaDB, so on every backend a page that
//! reaches the NULL boundary is fetched as two index seeks, one per side, the second only when the
//! first leaves the page short; a boxed query, which cannot run twice ([`Repeat`]), is fetched
//! with the single predicate instead. Give the index the
//! same placement: `CREATE INDEX .. (due ASC NULLS LAST, id ASC)` on PostgreSQL; SQLite, MySQL and
//! MariaDB indexes have no NULLS clause and serve the placement they sort by themselves (NULLs
//! first ascending, last descending); for the other one the first and last pages sort.
//!
//! # Orders chosen at run time
//!
//! A listing whose client picks the order (`?sort=top&dir=asc`) names its orders on the struct,
//! each written as the fields to sort by with their directions, ending with the `#[tiebreaker]`
//! field, and checked at compile time as the field order is. The derive generates an enum of
//! them ([`Orders`]: `PostOrder` reads `?sort=top`), and [`Paginate::paginate_by`] pages in the
//! chosen one and [`SortDirection`] into the same `Page<Post>`, whatever the order:
//!
//! ```
//! # use diesel::prelude::*;
//! use keyset_runtime::{Keyset, PageRequest, Paginate, SortDirection};
//! # diesel::table! { posts (id) { id -> BigInt, score -> Integer, title -> Text } }
//!
//! #[derive(Queryable, Selectable, Keyset)]
//! #[keyset(order(top: score desc, id desc), order(title: title asc, id asc))]
//! struct Post {
//!     #[tiebreaker]
//!     id: i64,
//!     score: i32,
//!     title: String,
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let mut conn = SqliteConnection::establish(":memory:")?;
//! # diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY, score INTEGER NOT NULL, title TEXT NOT NULL)").execute(&mut conn)?;
//! # diesel::sql_query("INSERT INTO posts VALUES (1, 5, 'b'), (2, 9, 'c'), (3, 7, 'a')").execute(&mut conn)?;
//! let query = || posts::table.select(Post::as_select());
//! let ids = |page: keyset_runtime::Page<Post>| page.items.iter().map(|post| post.id).collect::<Vec<_>>();
//! for (sort, dir, expected) in [
//!     ("top", None, [2, 3, 1]),
//!     ("top", Some(SortDirection::Asc), [1, 3, 2]),
//!     ("title", Some(SortDirection::Desc), [2, 1, 3]),
//! ] {
//!     let page = query().paginate_by(sort.parse::<PostOrder>()?, dir, &PageRequest::first(10))?;
//!     assert_eq!(ids(page.load_page(&mut conn)?), expected);
//! }
//! # Ok(())
//! # }
//! ```
//!
//! A token is bound to its order and direction: sent with another, it is refused
//! ([`CursorError::OtherOrder`]). Tokens carry the table, the keys' columns, directions and NULL
//! placements, and `#[keyset(listing = "..")]` when given, not the struct's or the variant's
//! name, so renaming either keeps every token valid. Each distinct order gets its index
//! ([`Keyset::INDEXES`], the migration writer); an order and its reverse share one.
//!
//! # Joins
//!
//! A listing of posts with their authors selects a tuple led by the model. The page is a
//! `Page<(Post, Author)>`, its cursor taken from the post; a left join selects
//! `Option::<Author>::as_select()` and pages as `Page<(Post, Option<Author>)>`. A sort key may be
//! a column of a joined table, declared with Diesel's own attribute:
//!
//! ```
//! # use diesel::prelude::*;
//! use keyset_runtime::{Keyset, PageRequest, Paginate};
//! # diesel::table! { authors (id) { id -> BigInt, name -> Text } }
//! # diesel::table! { posts (id) { id -> BigInt, author_id -> BigInt, title -> Text } }
//! # diesel::joinable!(posts -> authors (author_id));
//! # diesel::allow_tables_to_appear_in_same_query!(authors, posts);
//!
//! #[derive(Queryable, Selectable, Keyset, Debug)]
//! #[diesel(table_name = posts)]
//! struct Post {
//!     #[sort(asc)]
//!     #[diesel(select_expression = authors::name)]
//!     author_name: String,
//!     #[sort(asc)]
//!     #[tiebreaker]
//!     id: i64,
//!     title: String,
//! }
//!
//! #[derive(Queryable, Selectable, Debug)]
//! #[diesel(table_name = authors)]
//! struct Author {
//!     id: i64,
//!     name: String,
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let mut conn = SqliteConnection::establish(":memory:")?;
//! # diesel::sql_query("CREATE TABLE authors (id BIGINT PRIMARY KEY, name TEXT NOT NULL)").execute(&mut conn)?;
//! # diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY, author_id BIGINT NOT NULL, title TEXT NOT NULL)").execute(&mut conn)?;
//! # diesel::sql_query("INSERT INTO authors VALUES (1, 'Zoe'), (2, 'Ann')").execute(&mut conn)?;
//! # diesel::sql_query("INSERT INTO posts VALUES (1, 1, 'a'), (2, 2, 'b'), (3, 1, 'c')").execute(&mut conn)?;
//! let query = || posts::table.inner_join(authors::table).select((Post::as_select(), Author::as_select()));
//! let page = query().paginate(&PageRequest::first(2))?.load_page(&mut conn)?;
//! let rows: Vec<(i64, &str)> = page.items.iter().map(|(post, author)| (post.id, author.name.as_str())).collect();
//! assert_eq!(rows, [(2, "Ann"), (1, "Zoe")]);
//!
//! let next = query().paginate(&PageRequest::after(page.next_cursor.unwrap(), 2))?.load_page(&mut conn)?;
//! assert_eq!(next.items.iter().map(|(post, _)| post.id).collect::<Vec<_>>(), [3]);
//! assert_eq!(Post::SORT_ORDER, "posts: authors.name ASC, id ASC");
//! # Ok(())
//! # }
//! ```
//!
//! **Which joins keep the order total.** The tiebreaker is a unique column of the model's table
//! (a joined column cannot be one: the derive says so), and it stays unique in a join only if
//! every row of the model appears once: the join must be *many-to-one from the model's table*,
//! each post joined with at most one author (`posts.inner_join(authors)` through `posts.author_id`,
//! or a left join). A join one-to-many from it, authors with their posts paged by author, repeats
//! each author once per post, and a page boundary inside those copies would skip the rest of
//! them. Diesel's types do not tell the two apart (the ON clause of `joinable!` and a hand-written
//! one are the same kind of type, and a trait bound cannot pick between them), so the page checks
//! the rows instead: two fetched rows with the same keys fail the page with
//! [`Error::RepeatedKeys`], the server's error, never a short or repeating page. For such a
//! listing, page the many side (posts with their author), or declare a model of the join's rows
//! on the many side's table, whose tiebreaker is its primary key, ending the order with the keys
//! that make a row of the join unique:
//!
//! ```
//! # use diesel::prelude::*;
//! use keyset_runtime::{Keyset, PageRequest, Paginate};
//! # diesel::table! { authors (id) { id -> BigInt, name -> Text } }
//! # diesel::table! { posts (id) { id -> BigInt, author_id -> BigInt, title -> Text } }
//! # diesel::joinable!(posts -> authors (author_id));
//! # diesel::allow_tables_to_appear_in_same_query!(authors, posts);
//!
//! /// Authors with their posts, one row per post: a model of posts, sorted by the author.
//! #[derive(Queryable, Selectable, Keyset)]
//! #[diesel(table_name = posts)]
//! struct AuthorPost {
//!     #[sort(asc)]
//!     #[diesel(select_expression = authors::name)]
//!     author_name: String,
//!     #[sort(asc)]
//!     #[diesel(select_expression = authors::id)]
//!     author_id: i64,
//!     #[sort(asc)]
//!     #[tiebreaker]
//!     id: i64, // the post's: unique among the join's rows
//!     title: String,
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let mut conn = SqliteConnection::establish(":memory:")?;
//! # diesel::sql_query("CREATE TABLE authors (id BIGINT PRIMARY KEY, name TEXT NOT NULL)").execute(&mut conn)?;
//! # diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY, author_id BIGINT NOT NULL, title TEXT NOT NULL)").execute(&mut conn)?;
//! # diesel::sql_query("INSERT INTO authors VALUES (1, 'Zoe'), (2, 'Ann')").execute(&mut conn)?;
//! # diesel::sql_query("INSERT INTO posts VALUES (1, 1, 'a'), (2, 2, 'b'), (3, 1, 'c')").execute(&mut conn)?;
//! // Paged from the authors' side, as the listing reads: still one row per post.
//! let query = || authors::table.inner_join(posts::table).select(AuthorPost::as_select());
//! let page = query().paginate(&PageRequest::first(2))?.load_page(&mut conn)?;
//! let rows: Vec<(&str, &str)> = page.items.iter().map(|row| (row.author_name.as_str(), row.title.as_str())).collect();
//! assert_eq!(rows, [("Ann", "b"), ("Zoe", "a")]);
//! # Ok(())
//! # }
//! ```
//!
//! **What a joined key costs.** A sort key from another table is a bare column
//! (`select_expression = authors::name`; an expression of columns is refused, since SQL cannot
//! seek on it). No index on the model's table holds it, so a page in such an order reads the
//! rows the join matches past the cursor and sorts them: O(rows past the cursor), where a page
//! in the model's own columns is one index seek. The derive writes no index for such an order
//! ([`Keyset::INDEXES`] leaves it out), and the migration writer says so. Keep joined keys for
//! listings that stay small, or filter them to a few rows; for a large one, copy the column
//! into the model's table and index it there.
//!
//! # Shards
//!
//! A listing spread over several databases pages as one with [`Paginated::load_page_sharded`]:
//! every shard runs the same page and the rows merge in the model's order, under the rules its
//! docs give ([`ShardOrder`] key types, a tiebreaker unique across shards).
//!
//! # Sync or async
//!
//! The same query pages on a Diesel connection with [`Paginated::load_page`] and, with the
//! feature `diesel-async`, on a diesel-async one (`AsyncPgConnection`, `AsyncMysqlConnection`,
//! `SyncConnectionWrapper<SqliteConnection>`, or a pooled connection) with
//! `Paginated::load_page_async`. One page machine decides what a page runs and the two drivers
//! only execute its statements, so both paths run the same SQL with the same binds, return the
//! same [`Page`], and read each other's tokens; the async future is `Send`. Pick the one your
//! service already uses. For an async server backend name `postgres_backend` or `mysql_backend`
//! (the dialect, without Diesel's sync connections and their client libraries) beside
//! `diesel-async`. In generic helpers, bound the query by [`PageQuery`] or `AsyncPageQuery`.
//!
//! # Sort key types
//!
//! A sort key's type must travel in a token: it implements [`CursorValue`](token::CursorValue).
//! Integers, `bool`, floats, `String`, `Vec<u8>` and `Option<T>` do; enable the feature `chrono`
//! for chrono's `NaiveDateTime`, `DateTime<Utc>`, `NaiveDate` and the like, and `uuid` for
//! `uuid::Uuid`. A type of your own implements it in a few lines, by writing itself as one of
//! those (see [`CursorValue`](token::CursorValue)).
//!
//! Two more features mirror Diesel's, and turn Diesel's on: `time` for the time crate's
//! `PrimitiveDateTime` (`Timestamp`), `OffsetDateTime` (`Timestamptz`), `Date` and `Time`, to the
//! nanosecond and with the offset kept, in the same token bytes as chrono's; `numeric` for
//! `bigdecimal::BigDecimal` (`Numeric`), exact at any precision with its scale kept (`1.50` stays
//! `1.50`). A decimal's scale travels up to 16383 either way (PostgreSQL's largest), and a row
//! whose digits do not fit in a token is [`Error::KeysTooLong`], as a long string is.
//!
//! # Tokens
//!
//! [`Page::next_cursor`] and [`Page::prev_cursor`] are opaque, URL-safe tokens tied to the model
//! and its sort order (see [`token`]). A malformed or foreign token is an [`Error::Cursor`]
//! before any query runs; [`Error::is_client_error`] tells a handler to answer 400. A token is at
//! most 1024 characters ([`Keyset::MAX_TOKEN_LEN`]; `#[keyset(max_token_len = ..)]` raises it for
//! long text keys), and a row whose keys would need a longer one is the server's error,
//! [`Error::KeysTooLong`] (500), not a token the listing would then refuse.
//!
//! A page has a `next_cursor` (`prev_cursor`) exactly when a row may lie past (before) it, empty
//! pages included: a page after a cursor whose rows ahead were all deleted is empty, and its
//! `prev_cursor` leads back to the last page, since every row left lies behind it.
//!
//! With the feature `signed`, `paginate_signed(&request, &keys)` signs the tokens with a server
//! key (HMAC-SHA256, `TokenKeys`, with key rotation), for listings whose key values must
//! not be guessable or edited by clients.
//!
//! # GraphQL
//!
//! With the feature `async-graphql`, the module `relay` serves a keyset listing as a [Relay
//! connection](https://relay.dev/graphql/connections.htm) for async-graphql: `first`/`after` and
//! `last`/`before` validated, a cursor per edge usable in both directions, and `pageInfo`.
//!
//! # The expensive path
//!
//! For the rare grid that must jump to page 37 or show "page 3 of 120",
//! [`PageRequest::page_number`] pages by OFFSET (its tokens then page on by keyset) and
//! [`Paginated::total_count`] counts the query's rows. Both cost what OFFSET costs: O(depth) and
//! O(rows) per call, where a keyset page is O(page).

#![warn(missing_docs)]

mod checks;
mod error;
#[cfg(any(feature = "sqlite", feature = "postgres", feature = "mysql"))]
pub mod explain;
mod fetched;
mod machine;
pub mod migration;
mod model;
mod orders;
mod page;
mod paginate;
mod position;
#[cfg(feature = "async-graphql")]
pub mod relay;
mod repeat;
mod request;
mod run;
mod selection;
mod shards;
mod sql;
pub mod token;

pub use error::{CursorError, Error, RequestError};
#[cfg(feature = "derive")]
pub use keyset_derive::Keyset;
pub use model::Keyset;
pub use orders::named::{Orders, ParseOrderError, SortDirection};
pub use page::Page;
pub use paginate::{Paginate, Paginated};
pub use repeat::Repeat;
pub use request::PageRequest;
#[cfg(feature = "diesel-async")]
pub use run::AsyncPageQuery;
pub use run::PageQuery;
pub use shards::{ShardOrder, Shardable};
pub use token::direction::Direction;
#[cfg(feature = "signed")]
pub use token::signed::{KeyTooShort, TokenKeys};

/// What generated code names. Not public API: it may change in any release.
#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

/// What this workspace's tests and benches reach past the public API. Not public API.
#[cfg(feature = "__testing")]
#[doc(hidden)]
#[path = "testing.rs"]
pub mod __testing;
