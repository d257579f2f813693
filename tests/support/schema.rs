//! The tables the suites page through.

diesel::table! {
    authors (id) {
        id -> BigInt,
        name -> Text,
    }
}

diesel::table! {
    posts (id) {
        id -> BigInt,
        author_id -> BigInt,
        created_at -> Timestamp,
        score -> Integer,
        tag -> Text,
        title -> Text,
        rank -> Nullable<Integer>,
        due -> Nullable<Timestamp>,
    }
}

diesel::table! {
    /// A table with a composite primary key, for composite tiebreakers.
    memberships (team_id, user_id) {
        team_id -> Integer,
        user_id -> Integer,
        joined_at -> Timestamp,
    }
}

diesel::table! {
    /// A table for a model with named sort orders: a nullable key, and keys that tie.
    stories (id) {
        id -> BigInt,
        created_at -> Timestamp,
        score -> Integer,
        title -> Text,
        published_at -> Nullable<Timestamp>,
    }
}

diesel::joinable!(posts -> authors (author_id));
diesel::allow_tables_to_appear_in_same_query!(authors, posts, memberships, stories);

/// The schema for SQLite (each in-memory database is private to its connection).
pub const SQLITE_DDL: &[&str] = &[
    "CREATE TABLE authors (id BIGINT PRIMARY KEY NOT NULL, name TEXT NOT NULL)",
    "CREATE TABLE posts (
        id BIGINT PRIMARY KEY NOT NULL,
        author_id BIGINT NOT NULL REFERENCES authors (id),
        created_at TIMESTAMP NOT NULL,
        score INTEGER NOT NULL,
        tag TEXT NOT NULL,
        title TEXT NOT NULL UNIQUE,
        rank INTEGER,
        due TIMESTAMP
    )",
    "CREATE TABLE memberships (
        team_id INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        joined_at TIMESTAMP NOT NULL,
        PRIMARY KEY (team_id, user_id)
    )",
    "CREATE TABLE stories (
        id BIGINT PRIMARY KEY NOT NULL,
        created_at TIMESTAMP NOT NULL,
        score INTEGER NOT NULL,
        title TEXT NOT NULL,
        published_at TIMESTAMP
    )",
    // `Story::INDEXES` as the derive writes them (`orders_plan.rs` checks that they are).
    r#"CREATE INDEX IF NOT EXISTS "stories_keyset_created_at_desc_id_desc" ON "stories" ("created_at" DESC, "id" DESC);"#,
    r#"CREATE INDEX IF NOT EXISTS "stories_keyset_score_desc_created_at_desc_id_desc" ON "stories" ("score" DESC, "created_at" DESC, "id" DESC);"#,
    r#"CREATE INDEX IF NOT EXISTS "stories_keyset_title_asc_id_asc" ON "stories" ("title" ASC, "id" ASC);"#,
    r#"CREATE INDEX IF NOT EXISTS "stories_keyset_published_at_asc_nulls_last_id_asc" ON "stories" ("published_at" ASC, "id" ASC);"#,
    r#"CREATE INDEX IF NOT EXISTS "stories_keyset_score_asc_created_at_desc_id_asc" ON "stories" ("score" ASC, "created_at" DESC, "id" ASC);"#,
    // The index a feed of `Newest` among authors seeks (`#[keyset(prefix(author_id))]`).
    r#"CREATE INDEX IF NOT EXISTS "posts_keyset_author_id_asc_created_at_desc_id_desc" ON "posts" ("author_id" ASC, "created_at" DESC, "id" DESC);"#,
];

/// The schema for PostgreSQL: temporary tables, private to the connection, so that tests run in
/// parallel against one database without seeing each other's rows.
pub const POSTGRES_DDL: &[&str] = &[
    "CREATE TEMPORARY TABLE authors (id BIGINT PRIMARY KEY, name TEXT NOT NULL)",
    "CREATE TEMPORARY TABLE posts (
        id BIGINT PRIMARY KEY,
        author_id BIGINT NOT NULL REFERENCES authors (id),
        created_at TIMESTAMP NOT NULL,
        score INTEGER NOT NULL,
        tag TEXT NOT NULL,
        title TEXT NOT NULL UNIQUE,
        rank INTEGER,
        due TIMESTAMP
    )",
    "CREATE TEMPORARY TABLE memberships (
        team_id INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        joined_at TIMESTAMP NOT NULL,
        PRIMARY KEY (team_id, user_id)
    )",
    "CREATE TEMPORARY TABLE stories (
        id BIGINT PRIMARY KEY,
        created_at TIMESTAMP NOT NULL,
        score INTEGER NOT NULL,
        title TEXT NOT NULL,
        published_at TIMESTAMP
    )",
    // `Story::INDEXES` as the derive writes them (`orders_plan.rs` checks that they are).
    r#"CREATE INDEX IF NOT EXISTS "stories_keyset_created_at_desc_id_desc" ON "stories" ("created_at" DESC, "id" DESC);"#,
    r#"CREATE INDEX IF NOT EXISTS "stories_keyset_score_desc_created_at_desc_id_desc" ON "stories" ("score" DESC, "created_at" DESC, "id" DESC);"#,
    r#"CREATE INDEX IF NOT EXISTS "stories_keyset_title_asc_id_asc" ON "stories" ("title" ASC, "id" ASC);"#,
    r#"CREATE INDEX IF NOT EXISTS "stories_keyset_published_at_asc_nulls_last_id_asc" ON "stories" ("published_at" ASC NULLS LAST, "id" ASC);"#,
    r#"CREATE INDEX IF NOT EXISTS "stories_keyset_score_asc_created_at_desc_id_asc" ON "stories" ("score" ASC, "created_at" DESC, "id" ASC);"#,
    // The index a feed of `Newest` among authors seeks (`#[keyset(prefix(author_id))]`).
    r#"CREATE INDEX IF NOT EXISTS "posts_keyset_author_id_asc_created_at_desc_id_desc" ON "posts" ("author_id" ASC, "created_at" DESC, "id" DESC);"#,
];

/// The schema for MariaDB/MySQL: temporary tables as for PostgreSQL (they take no foreign
/// keys); `DATETIME(6)` keeps microseconds; utf8mb4 with the server's default collation, which is
/// case- and accent-insensitive, so text keys tie more than elsewhere.
pub const MYSQL_DDL: &[&str] = &[
    "CREATE TEMPORARY TABLE authors (id BIGINT PRIMARY KEY, name VARCHAR(64) NOT NULL)
        DEFAULT CHARSET = utf8mb4",
    "CREATE TEMPORARY TABLE posts (
        id BIGINT PRIMARY KEY,
        author_id BIGINT NOT NULL,
        created_at DATETIME(6) NOT NULL,
        score INTEGER NOT NULL,
        tag VARCHAR(64) NOT NULL,
        title VARCHAR(64) NOT NULL UNIQUE,
        rank INTEGER,
        due DATETIME(6)
    ) DEFAULT CHARSET = utf8mb4",
    "CREATE TEMPORARY TABLE memberships (
        team_id INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        joined_at DATETIME(6) NOT NULL,
        PRIMARY KEY (team_id, user_id)
    )",
    "CREATE TEMPORARY TABLE stories (
        id BIGINT PRIMARY KEY,
        created_at DATETIME(6) NOT NULL,
        score INTEGER NOT NULL,
        title VARCHAR(64) NOT NULL,
        published_at DATETIME(6)
    ) DEFAULT CHARSET = utf8mb4",
    // `Story::INDEXES` as the derive writes them (`orders_plan.rs` checks that they are).
    "CREATE INDEX `stories_keyset_created_at_desc_id_desc` ON `stories` (`created_at` DESC, `id` DESC);",
    "CREATE INDEX `stories_keyset_score_desc_created_at_desc_id_desc` ON `stories` (`score` DESC, `created_at` DESC, `id` DESC);",
    "CREATE INDEX `stories_keyset_title_asc_id_asc` ON `stories` (`title` ASC, `id` ASC);",
    "CREATE INDEX `stories_keyset_published_at_asc_nulls_last_id_asc` ON `stories` (`published_at` ASC, `id` ASC);",
    "CREATE INDEX `stories_keyset_score_asc_created_at_desc_id_asc` ON `stories` (`score` ASC, `created_at` DESC, `id` ASC);",
    // The index a feed of `Newest` among authors seeks (`#[keyset(prefix(author_id))]`).
    "CREATE INDEX `posts_keyset_author_id_asc_created_at_desc_id_desc` ON `posts` (`author_id` ASC, `created_at` DESC, `id` DESC);",
];
