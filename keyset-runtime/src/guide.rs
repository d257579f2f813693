//! Guides, one per kind of listing or concern, each with examples that compile and run (they are
//! doc-tested). The reference is in the items' own docs: the derive's attributes and rules on
//! the [`Keyset`](crate::Keyset) derive macro, the page's calls on [`Paginated`](crate::Paginated).
//! The same pages are Markdown files in the repository (`keyset-runtime/guide/`), where the
//! README links to them.

#[doc = include_str!("../guide/services.md")]
pub mod services {}

#[doc = include_str!("../guide/orders.md")]
pub mod orders {}

#[doc = include_str!("../guide/joins.md")]
pub mod joins {}

#[doc = include_str!("../guide/feeds.md")]
pub mod feeds {}

#[doc = include_str!("../guide/counts.md")]
pub mod counts {}

#[doc = include_str!("../guide/navigation.md")]
pub mod navigation {}

#[doc = include_str!("../guide/nullable.md")]
pub mod nullable {}

#[doc = include_str!("../guide/tokens.md")]
pub mod tokens {}

#[doc = include_str!("../guide/sql.md")]
pub mod sql {}

#[doc = include_str!("../guide/migrations.md")]
pub mod migrations {}

#[doc = include_str!("../guide/shards.md")]
pub mod shards {}

#[doc = include_str!("../guide/replicas.md")]
pub mod replicas {}
