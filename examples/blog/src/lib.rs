//! A small blog whose models page with keyset, and whose index migrations are written by its
//! build script (`build.rs`) from the models' sort orders: see `migrations/<backend>/`.
//!
//! The tables themselves come from the hand-written migrations: `2024-01-01-000000_create_tables`,
//! `2026-12-03-000000_authors_and_follows`, which gives every post an author and adds who
//! follows whom (what a feed pages among), and `2026-12-06-000000_authors`, the authors' names.
//! Every `*_keyset_indexes` migration is generated. Run them with diesel_migrations:
//!
//! ```
//! use diesel::prelude::*;
//! use diesel_migrations::MigrationHarness;
//!
//! let mut conn = SqliteConnection::establish(":memory:").unwrap();
//! conn.run_pending_migrations(keyset_example_blog::SQLITE_MIGRATIONS).unwrap();
//! ```

use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel_migrations::{embed_migrations, EmbeddedMigrations};
use keyset_runtime::Keyset;

/// The SQLite migrations: the tables, then the generated indexes.
pub const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/sqlite");
/// The PostgreSQL migrations.
pub const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/postgres");
/// The PostgreSQL migrations with the indexes built `CONCURRENTLY`, one migration each, outside a
/// transaction (`metadata.toml`).
pub const POSTGRES_CONCURRENT_MIGRATIONS: EmbeddedMigrations =
    embed_migrations!("migrations/postgres_concurrently");
/// The MySQL/MariaDB migrations.
pub const MYSQL_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/mysql");

/// The schema, as `diesel print-schema` would write it.
pub mod schema {
    diesel::table! {
        posts (id) {
            id -> BigInt,
            created_at -> Timestamp,
            score -> Integer,
            rank -> Nullable<Integer>,
            slug -> Text,
            title -> Text,
            author_id -> BigInt,
        }
    }

    diesel::table! {
        follows (follower_id, author_id) {
            follower_id -> BigInt,
            author_id -> BigInt,
        }
    }

    diesel::table! {
        memberships (team_id, user_id) {
            team_id -> Integer,
            user_id -> Integer,
            joined_at -> Timestamp,
        }
    }

    diesel::table! {
        authors (id) {
            id -> BigInt,
            name -> Text,
        }
    }

    diesel::joinable!(posts -> authors (author_id));
    diesel::allow_tables_to_appear_in_same_query!(posts, follows, authors);
}

use schema::{authors, memberships, posts};

/// The newest posts first, and the newest posts of some authors first (a feed:
/// [`Paginate::among`](keyset_runtime::Paginate::among)). `prefix(author_id)` declares the
/// index such a page seeks, `(author_id, created_at DESC, id DESC)`, beside the order's own:
/// the migration writer writes both.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = posts)]
#[keyset(prefix(author_id))]
pub struct Post {
    #[sort(desc)]
    pub created_at: NaiveDateTime,
    #[sort(desc)]
    #[tiebreaker]
    pub id: i64,
    pub author_id: i64,
    pub title: String,
}

/// The lowest scores first, the newest first among equals: mixed directions, a renamed column.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = posts)]
pub struct TopScore {
    #[sort(asc)]
    pub score: i32,
    #[sort(desc)]
    #[diesel(column_name = created_at)]
    pub published: NaiveDateTime,
    #[sort(asc)]
    #[tiebreaker]
    pub id: i64,
}

/// Ranked posts first, the unranked (NULL) last.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = posts)]
pub struct ByRank {
    #[sort(desc, nulls = last)]
    pub rank: Option<i32>,
    #[sort(desc)]
    #[tiebreaker]
    pub id: i64,
}

/// By slug, a unique column that is not the primary key: its migration creates the unique index
/// that makes `#[tiebreaker(unique)]` true.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = posts)]
pub struct BySlug {
    #[sort(asc)]
    #[tiebreaker(unique)]
    pub slug: String,
}

/// A composite primary key as the tiebreaker.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = memberships)]
pub struct Membership {
    #[sort(asc)]
    pub joined_at: NaiveDateTime,
    #[sort(asc)]
    #[tiebreaker]
    pub team_id: i32,
    #[sort(asc)]
    #[tiebreaker]
    pub user_id: i32,
}

/// Posts by their author's name, each author's posts together, newest first: an order led by
/// the joined table's keys, ending with its primary key. The migration writer writes an index on
/// each table: `authors (name, id)`, unique, and the posts' `(author_id, created_at DESC, id
/// DESC)`, which [`Post`]'s prefix already writes.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = posts)]
#[keyset(prefix(author_id))]
pub struct ByAuthor {
    #[sort(asc)]
    #[diesel(select_expression = authors::name)]
    pub author_name: String,
    #[sort(asc)]
    #[diesel(select_expression = authors::id)]
    pub author_key: i64,
    #[sort(desc)]
    pub created_at: NaiveDateTime,
    #[sort(desc)]
    #[tiebreaker]
    pub id: i64,
}
