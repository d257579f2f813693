//! The benchmark table and the models paged over it.

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
