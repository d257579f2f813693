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
//! order (the order of the fields), and end with a unique tiebreaker. Other `#[diesel(..)]` keys
//! are Diesel's business and pass through untouched.
//!
//! The derive accepts only sort orders that are provably total, and says at compile time what to
//! write instead of anything else: a tiebreaker is required, it is the last sort key (or keys), it
//! is the table's primary key (composite keys in the key's order) unless `#[tiebreaker(unique)]`
//! vouches for another unique column, and it is never nullable. Every attribute, and every rule
//! with the mistake it refuses, is in the reference on the derive macro,
//! [`Keyset`](macro@crate::Keyset). All mistakes of one derive are reported together, each at the
//! attribute or field at fault.
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
//! # Guides
//!
//! Each kind of listing has a guide, with examples that compile and run:
//!
//! - [services](guide::services): the async stack (diesel-async, pools, migrations without a
//!   blocking connection), a handler, generic helpers;
//! - [orders chosen at run time](guide::orders): `?sort=top&dir=asc`, one handler for every order,
//!   joins included;
//! - [listings that join](guide::joins): a page of `(Post, Author)`, a sort key of the joined
//!   table, which joins keep the order total;
//! - [feeds and filtered listings](guide::feeds): pages among a set of values (the posts of the
//!   authors a user follows) at a cost bounded by the set and the page, and the equality prefix
//!   a filtered listing's index needs;
//! - [counts](guide::counts): "1,000+", "about 12,000", "page 3 of about 600": bounded,
//!   estimated and exact counts beside a page, and who decides which;
//! - [nullable keys](guide::nullable): NULL placement on every backend, and what a page at the NULL
//!   boundary runs;
//! - [tokens](guide::tokens): their format and limits, what a forged token can do, sort key types,
//!   signed tokens (no forgery or edits) and encrypted ones (no reading either);
//! - [the SQL, per engine](guide::sql): the statements a page runs on SQLite, PostgreSQL and
//!   MariaDB, and checking a query's plan in your tests ([`explain`]);
//! - [index migrations](guide::migrations): the index each order needs, written by a build script;
//! - [shards](guide::shards) and [read replicas](guide::replicas): pages over several databases.
//!
//! # Sync or async
//!
//! The same query pages with [`Paginated::load_page`] on a Diesel connection and, with the feature
//! `diesel-async`, with `Paginated::load_page_async` on a diesel-async one: the same statements,
//! binds, `Page` and tokens, since one page machine decides what a page runs and each driver only
//! executes it. In generic helpers, bound the query by [`PageQuery`] (or `AsyncPageQuery`).
//!
//! # Tokens
//!
//! [`Page::next_cursor`] and [`Page::prev_cursor`] are opaque, URL-safe tokens tied to the listing
//! and its sort order ([`token`]), and to the request's scope ([`PageRequest::scoped`]). A
//! client can read their key values: with the feature `signed` it cannot forge or edit them,
//! with `encrypted` not read them either (`TokenKeys`). A malformed or foreign token is an
//! [`Error::Cursor`] before any query runs, and [`Error::is_client_error`] tells a handler to
//! answer 400; a fault of the server (the database, [`Error::KeysTooLong`]) is never the
//! client's.
//!
//! # GraphQL
//!
//! With the feature `async-graphql`, the module `relay` serves a keyset listing as a [Relay
//! connection](https://relay.dev/graphql/connections.htm) for async-graphql: `first`/`after` and
//! `last`/`before` validated, a cursor per edge usable in both directions, and `pageInfo`.
//!
//! # The expensive path
//!
//! For the rare grid that must jump to page 37, [`PageRequest::page_number`] pages by OFFSET (its
//! tokens then page on by keyset), at O(depth) per call where a keyset page is O(page). A count
//! beside a page is asked for with [`PageRequest::count`]: bounded ("1,000+") or estimated
//! ("page 3 of about 600") at a cost bounded whatever the table, exact only where the listing
//! allows its O(rows) ([the counts guide](guide::counts)).

#![warn(missing_docs)]

mod among;
mod checks;
mod count;
mod error;
#[cfg(any(feature = "sqlite", feature = "postgres", feature = "mysql"))]
pub mod explain;
mod fetched;
pub mod guide;
#[cfg(feature = "http")]
pub mod http;
mod machine;
pub mod migration;
mod model;
mod orders;
mod page;
mod paginate;
mod paginated;
mod position;
#[cfg(feature = "async-graphql")]
pub mod relay;
mod repeat;
mod request;
mod run;
mod selection;
mod shards;
mod sql;
mod start;
pub mod token;

pub use among::{Among, AmongQuery};
pub use count::{Count, ParseCountError, TotalCount, TotalKind};
pub use error::{CursorError, Error, RequestError};
#[cfg(feature = "derive")]
pub use keyset_derive::Keyset;
pub use model::Keyset;
pub use orders::named::{Orders, ParseOrderError, SortDirection};
pub use page::{CamelCase, Page};
pub use paginate::{Paginate, Paginated};
pub use repeat::Repeat;
pub use request::PageRequest;
#[cfg(feature = "diesel-async")]
pub use run::AsyncPageQuery;
pub use run::PageQuery;
pub use shards::{ShardOrder, Shardable};
pub use token::direction::Direction;
#[cfg(feature = "signed")]
pub use token::keys::{KeyError, TokenKeys};

/// What generated code names. Not public API: it may change in any release.
#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

/// What this workspace's tests and benches reach past the public API. Not public API.
#[cfg(feature = "__testing")]
#[doc(hidden)]
#[path = "testing.rs"]
pub mod __testing;
