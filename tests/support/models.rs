//! Models of every shape the derive supports, over the tables in [`crate::schema`].

use chrono::NaiveDateTime;
use diesel::prelude::*;
use keyset_runtime::Keyset;

use crate::schema::{authors, memberships, posts, stories};

/// One key: the primary key alone. The table name is inferred (`Post` → `posts`), as Diesel does.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
pub struct Post {
    #[sort(asc)]
    #[tiebreaker]
    pub id: i64,
    pub author_id: i64,
    pub title: String,
}

/// Two keys, both descending: the newest first; paged among authors too (a feed).
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = posts)]
#[keyset(prefix(author_id))]
pub struct Newest {
    #[sort(desc)]
    pub created_at: NaiveDateTime,
    #[sort(desc)]
    #[tiebreaker]
    pub id: i64,
}

/// Two keys in mixed directions, the first through a renamed column; paged among authors too.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = posts)]
#[keyset(prefix(author_id))]
pub struct NewestIdAsc {
    #[sort(desc)]
    #[diesel(column_name = created_at)]
    pub published: NaiveDateTime,
    #[sort(asc)]
    #[tiebreaker]
    pub id: i64,
}

/// Three keys in mixed directions.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = posts)]
pub struct TopScore {
    #[sort(asc)]
    pub score: i32,
    #[sort(desc)]
    pub created_at: NaiveDateTime,
    #[sort(asc)]
    #[tiebreaker]
    pub id: i64,
    pub title: String,
}

/// Three keys, all descending, with a text key that ties often.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = posts)]
pub struct ByTag {
    #[sort(desc)]
    pub score: i32,
    #[sort(desc)]
    pub tag: String,
    #[sort(desc)]
    #[tiebreaker]
    pub id: i64,
}

/// A text key paged across shards: every shard's `tag` column sorts in byte order (SQLite's
/// `BINARY`, `COLLATE "C"` on PostgreSQL, `utf8mb4_nopad_bin` on MariaDB, in the shards'
/// schema), which the model declares so that the merge may compare tags in Rust.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = posts)]
#[keyset(text_collation = "C")]
pub struct TagInByteOrder {
    #[sort(asc)]
    pub tag: String,
    #[sort(desc)]
    #[tiebreaker]
    pub id: i64,
}

/// A composite primary key as the tiebreaker, in the key's order.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = memberships)]
pub struct Membership {
    #[sort(asc)]
    pub joined_at: NaiveDateTime,
    #[sort(asc)]
    #[tiebreaker]
    pub team_id: i32,
    #[sort(desc)]
    #[tiebreaker]
    pub user_id: i32,
}

/// A unique column that is not the primary key, vouched for with `#[tiebreaker(unique)]`.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = posts)]
pub struct ByUniqueTitle {
    #[sort(asc)]
    #[tiebreaker(unique)]
    pub title: String,
    pub id: i64,
}

/// Titles as the only key, with the shortest token limit the derive takes (64 characters): a
/// title of more than 41 bytes does not fit in one of its tokens.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = posts)]
#[keyset(max_token_len = 64)]
pub struct TitleShortTokens {
    #[sort(asc)]
    #[tiebreaker(unique)]
    pub title: String,
    pub id: i64,
}

/// The longest title a [`TitleShortTokens`] token holds: 6 header bytes, a 1-byte length and
/// the title make at most 48 bytes, 64 characters of base64.
pub const SHORT_TOKEN_TITLE_BYTES: usize = 41;

/// Titles as the only key, with a raised token limit: long titles travel in its tokens.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = posts)]
#[keyset(max_token_len = 8192)]
pub struct TitleLongTokens {
    #[sort(asc)]
    #[tiebreaker(unique)]
    pub title: String,
    pub id: i64,
}

/// A nullable leading key, descending, NULLs after the values.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = posts)]
pub struct RankDescNullsLast {
    #[sort(desc, nulls = last)]
    pub rank: Option<i32>,
    #[sort(desc)]
    #[tiebreaker]
    pub id: i64,
}

/// A nullable leading key, descending, NULLs before the values.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = posts)]
pub struct RankDescNullsFirst {
    #[sort(desc, nulls = first)]
    pub rank: Option<i32>,
    #[sort(asc)]
    #[tiebreaker]
    pub id: i64,
}

/// A nullable leading key, ascending, NULLs after the values.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = posts)]
pub struct RankAscNullsLast {
    #[sort(asc, nulls = last)]
    pub rank: Option<i32>,
    #[sort(asc)]
    #[tiebreaker]
    pub id: i64,
}

/// A nullable leading key, ascending, NULLs before the values.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = posts)]
pub struct RankAscNullsFirst {
    #[sort(asc, nulls = first)]
    pub rank: Option<i32>,
    #[sort(desc)]
    #[tiebreaker]
    pub id: i64,
}

/// Two nullable keys in opposite placements, the second a timestamp.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = posts)]
pub struct RankDue {
    #[sort(asc, nulls = last)]
    pub rank: Option<i32>,
    #[sort(desc, nulls = first)]
    pub due: Option<NaiveDateTime>,
    #[sort(asc)]
    #[tiebreaker]
    pub id: i64,
}

/// A nullable key behind a non-nullable one.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = posts)]
pub struct ScoreDue {
    #[sort(desc)]
    pub score: i32,
    #[sort(asc, nulls = last)]
    pub due: Option<NaiveDateTime>,
    #[sort(desc)]
    #[tiebreaker]
    pub id: i64,
}

/// An author: what rides along with a post in a join's tuple (`(Newest::as_select(),
/// Author::as_select())`), and a model of its own, to show that a join one-to-many from it
/// repeats its rows.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = authors)]
pub struct Author {
    #[sort(asc)]
    #[tiebreaker]
    pub id: i64,
    pub name: String,
}

/// Posts by their author's name, a column of the joined table `authors`, then newest first:
/// pages a `posts` ⋈ `authors` join (many-to-one, so the primary key still breaks every tie).
/// The posts of two authors of the same name interleave, so no index gives this order: it is
/// kept with `reads_and_sorts`, and each page reads and sorts what the join matches.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = posts)]
#[keyset(order(by_author: author_name asc, created_at desc, id desc), reads_and_sorts)]
pub struct PostByAuthor {
    #[sort(asc)]
    #[diesel(select_expression = authors::name)]
    pub author_name: String,
    #[sort(desc)]
    #[tiebreaker]
    pub id: i64,
    pub created_at: NaiveDateTime,
}

/// Posts grouped by their author: by the author's name, the author (the primary key of
/// `authors`, which keeps each author's posts together), then newest first. A page walks the
/// authors in their index of `(name, id)` and each author's posts in the index that
/// `prefix(author_id)` leads, both written by the derive.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = posts)]
#[keyset(prefix(author_id))]
pub struct PostByAuthorGroup {
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

/// Named sort orders chosen at run time (`paginate_by`): uniform and mixed directions, a text
/// key, a nullable leading key placed as SQLite and MariaDB do not place it by themselves, and
/// `old`, the exact reverse of `new` (the two share their tokens). No field order: `paginate`
/// pages in `new`.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = stories)]
#[keyset(order(new: created_at desc, id desc), order(top: score desc, created_at desc, id desc))]
#[keyset(order(title: title asc, id asc), order(due: published_at asc nulls last, id asc))]
#[keyset(order(mixed: score asc, created_at desc, id asc), order(old: created_at asc, id asc))]
pub struct Story {
    #[tiebreaker]
    pub id: i64,
    pub created_at: NaiveDateTime,
    pub score: i32,
    pub title: String,
    pub published_at: Option<NaiveDateTime>,
}

/// Each named order of [`Story`] as a model's field order, for the statements a page of it
/// runs and the plans of those statements.
pub mod story_orders {
    use super::*;

    /// `new`.
    #[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
    #[diesel(table_name = stories)]
    pub struct New {
        #[sort(desc)]
        pub created_at: NaiveDateTime,
        #[sort(desc)]
        #[tiebreaker]
        pub id: i64,
    }

    /// `top`.
    #[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
    #[diesel(table_name = stories)]
    pub struct Top {
        #[sort(desc)]
        pub score: i32,
        #[sort(desc)]
        pub created_at: NaiveDateTime,
        #[sort(desc)]
        #[tiebreaker]
        pub id: i64,
    }

    /// `title`.
    #[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
    #[diesel(table_name = stories)]
    pub struct Title {
        #[sort(asc)]
        pub title: String,
        #[sort(asc)]
        #[tiebreaker]
        pub id: i64,
    }

    /// `due`.
    #[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
    #[diesel(table_name = stories)]
    pub struct Due {
        #[sort(asc, nulls = last)]
        pub published_at: Option<NaiveDateTime>,
        #[sort(asc)]
        #[tiebreaker]
        pub id: i64,
    }

    /// `mixed`.
    #[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
    #[diesel(table_name = stories)]
    pub struct Mixed {
        #[sort(asc)]
        pub score: i32,
        #[sort(desc)]
        pub created_at: NaiveDateTime,
        #[sort(asc)]
        #[tiebreaker]
        pub id: i64,
    }
}

/// Named orders over posts, for feeds paged among authors in an order chosen at run time
/// (`among(..).paginate_by(..)`): the newest first, by score, and a nullable leading key placed
/// as SQLite and MariaDB do not place it by themselves.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = posts)]
#[keyset(order(new: created_at desc, id desc), order(top: score desc, created_at desc, id desc))]
#[keyset(order(ranked: rank asc nulls last, id asc))]
pub struct FeedPost {
    #[tiebreaker]
    pub id: i64,
    pub author_id: i64,
    pub created_at: NaiveDateTime,
    pub score: i32,
    pub rank: Option<i32>,
}

// Feeds page these models among authors (and `Newest` among tags) too. Their prefixes are
// marked by hand, not declared with `#[keyset(prefix(..))]`, because other suites pin the
// indexes these models declare; `Newest` and `NewestIdAsc` declare theirs.
impl keyset_runtime::__private::Prefix<posts::author_id> for TopScore {}
impl keyset_runtime::__private::Prefix<posts::author_id> for RankDescNullsLast {}
impl keyset_runtime::__private::Prefix<posts::author_id> for RankAscNullsFirst {}
impl keyset_runtime::__private::Prefix<posts::author_id> for RankDue {}
impl keyset_runtime::__private::Prefix<posts::author_id> for FeedPost {}
impl keyset_runtime::__private::Prefix<posts::tag> for Newest {}
