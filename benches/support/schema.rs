//! The benchmark tables and the models paged over them.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use keyset_runtime::Keyset;

diesel::table! {
    /// 1,000,000 posts; `created_at` ties in groups of 100 (see [`crate::seed`]).
    bench_posts (id) {
        id -> BigInt,
        created_at -> Timestamp,
        author_id -> BigInt,
        title -> Text,
    }
}

diesel::table! {
    /// One row, written last when the table is complete: which schema and how many rows. A table
    /// without it (an interrupted build) or with other values is rebuilt.
    bench_meta (schema_version) {
        schema_version -> Integer,
        row_count -> BigInt,
    }
}

diesel::table! {
    /// Never created: it gives the token bench's other cursors their columns.
    bench_ranked (id) {
        id -> BigInt,
        score -> Integer,
        created_at -> Timestamp,
    }
}

/// Newest first, the primary key breaking ties: the order of the depth sweep.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = bench_posts)]
pub struct Post {
    #[sort(desc)]
    pub created_at: NaiveDateTime,
    #[sort(desc)]
    #[tiebreaker]
    pub id: i64,
    pub author_id: i64,
    pub title: String,
}

/// Three keys in mixed directions: the three-key cursor of the token bench.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = bench_ranked)]
pub struct Ranked {
    #[sort(desc)]
    pub score: i32,
    #[sort(desc)]
    pub created_at: NaiveDateTime,
    #[sort(asc)]
    #[tiebreaker]
    pub id: i64,
}

/// Two integer keys: the token bench's cursor without a timestamp.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = bench_ranked)]
pub struct Scored {
    #[sort(desc)]
    pub score: i32,
    #[sort(asc)]
    #[tiebreaker]
    pub id: i64,
}

diesel::table! {
    /// The authors of [`bench_join_posts`]: 1,000, their names in another order than their ids.
    bench_authors (id) {
        id -> BigInt,
        name -> Text,
    }
}

diesel::table! {
    /// 100,000 posts for the joins bench, `created_at` tying in groups of 100 as in
    /// [`bench_posts`], 100 posts per author. Indexed only as [`JoinPost::INDEXES`] and
    /// [`PostByAuthorGroup::INDEXES`] say: `(created_at, id)`, `(author_id, created_at, id)`, and
    /// `bench_authors (name, id)`.
    bench_join_posts (id) {
        id -> BigInt,
        created_at -> Timestamp,
        author_id -> BigInt,
        title -> Text,
    }
}

diesel::table! {
    /// [`bench_meta`] for the joins bench's tables.
    bench_join_meta (schema_version) {
        schema_version -> Integer,
        row_count -> BigInt,
    }
}

diesel::joinable!(bench_join_posts -> bench_authors (author_id));
diesel::allow_tables_to_appear_in_same_query!(bench_join_posts, bench_authors);

/// A post of the joins bench, newest first: the posts' own order, which their index serves.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = bench_join_posts)]
pub struct JoinPost {
    #[sort(desc)]
    pub created_at: NaiveDateTime,
    #[sort(desc)]
    #[tiebreaker]
    pub id: i64,
    pub author_id: i64,
    pub title: String,
}

/// The same posts in their author's name order, a column of the joined table, then the author
/// (its primary key), then newest first: the authors walked in their index of `(name, id)`, and
/// each author's posts in the index `prefix(author_id)` leads.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = bench_join_posts)]
#[keyset(prefix(author_id))]
pub struct PostByAuthorGroup {
    #[sort(asc)]
    #[diesel(select_expression = bench_authors::name)]
    pub author_name: String,
    #[sort(asc)]
    #[diesel(select_expression = bench_authors::id)]
    pub author_key: i64,
    #[sort(desc)]
    pub created_at: NaiveDateTime,
    #[sort(desc)]
    #[tiebreaker]
    pub id: i64,
    pub title: String,
}

/// The same posts in their author's name order, then newest id first, without the author: the
/// posts of authors of one name would interleave, and no index serves the order (kept with
/// `reads_and_sorts`), so each page reads and sorts what the join matches past the cursor.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = bench_join_posts)]
#[keyset(reads_and_sorts)]
pub struct PostByAuthor {
    #[sort(asc)]
    #[diesel(select_expression = bench_authors::name)]
    pub author_name: String,
    #[sort(desc)]
    #[tiebreaker]
    pub id: i64,
    pub created_at: NaiveDateTime,
    pub title: String,
}

/// What rides along with each post in the join's tuple.
#[derive(Queryable, Selectable, Debug, Clone, PartialEq)]
#[diesel(table_name = bench_authors)]
pub struct Author {
    pub id: i64,
    pub name: String,
}

diesel::table! {
    /// The orders bench's 1,000,000 posts: `bench_posts`' rows (the same ids, timestamps tying in
    /// groups of 100, authors and titles) and `published_at`, the post's `created_at` or NULL for
    /// a draft (one post in seven, spread over every tie group). Indexed only as the three models
    /// below need ([`crate::order_seed::indexes`]).
    bench_orders (id) {
        id -> BigInt,
        created_at -> Timestamp,
        published_at -> Nullable<Timestamp>,
        author_id -> BigInt,
        title -> Text,
    }
}

diesel::table! {
    /// [`bench_meta`] for the orders bench's table.
    bench_orders_meta (schema_version) {
        schema_version -> Integer,
        row_count -> BigInt,
    }
}

/// Uniform directions: newest first, the newest id first among ties.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = bench_orders)]
pub struct Newest {
    #[sort(desc)]
    pub created_at: NaiveDateTime,
    #[sort(desc)]
    #[tiebreaker]
    pub id: i64,
    pub published_at: Option<NaiveDateTime>,
    pub author_id: i64,
    pub title: String,
}

/// Mixed directions: newest first, the oldest id first among ties (no row value expresses it).
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = bench_orders)]
pub struct NewestOldId {
    #[sort(desc)]
    pub created_at: NaiveDateTime,
    #[sort(asc)]
    #[tiebreaker]
    pub id: i64,
    pub published_at: Option<NaiveDateTime>,
    pub author_id: i64,
    pub title: String,
}

/// A nullable leading key: published posts newest first, the drafts (NULL) after them, newest
/// id first among ties. NULLs last descending is SQLite's and MariaDB's own placement, so their
/// indexes serve it without a NULLS clause; PostgreSQL's index declares it.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = bench_orders)]
pub struct Published {
    #[sort(desc, nulls = last)]
    pub published_at: Option<NaiveDateTime>,
    #[sort(desc)]
    #[tiebreaker]
    pub id: i64,
    pub created_at: NaiveDateTime,
    pub author_id: i64,
    pub title: String,
}

/// The three orders above declared by name, as a listing whose client picks the order declares
/// them: paged with `paginate_by`, which matches the run-time choice to the statements the field
/// orders' models run. Its tokens are theirs (a token is bound to the table, the keys and their
/// directions, not to the model).
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = bench_orders)]
#[keyset(order(uniform: created_at desc, id desc))]
#[keyset(order(mixed: created_at desc, id asc))]
#[keyset(order(published: published_at desc nulls last, id desc))]
pub struct Listing {
    #[tiebreaker]
    pub id: i64,
    pub created_at: NaiveDateTime,
    pub published_at: Option<NaiveDateTime>,
    pub author_id: i64,
    pub title: String,
}
