//! The migration writer end to end, on fresh databases of this backend: what it writes runs,
//! reverts and redoes with diesel_migrations' `FileBasedMigrations` and `MigrationHarness` (the
//! code `diesel migration run`, `revert` and `redo` call), in the scenarios that used to bite: a
//! model written before its table's migration; sort orders, NULL placement and uniqueness that
//! change; `check()` when the migrations lag the models.

use std::collections::BTreeSet;
use std::fs;
use std::path::PathBuf;

use diesel::prelude::*;
use diesel_migrations::{FileBasedMigrations, MigrationHarness};
use keyset_codegen::{Backend, MigrationError, Migrations};

use crate::migrations_db::{fresh_named, BACKEND, CREATE_COMMENTS, INDEXES_SQL};

/// A crate's sources and migrations in a scratch directory, removed when dropped.
struct Project(PathBuf);

impl Project {
    fn new(tag: &str) -> Project {
        let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
            "keyset-writer-{}-{tag}-{}",
            BACKEND.name(),
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(root.join("src")).unwrap();
        let project = Project(root);
        project.migration(
            "2024-01-01-000000_create_posts",
            "CREATE TABLE posts (id BIGINT PRIMARY KEY, created_at BIGINT NOT NULL, rank INTEGER, \
             slug VARCHAR(64) NOT NULL);",
            "DROP TABLE posts;",
        );
        project
    }

    fn models(&self, source: &str) {
        fs::write(self.0.join("src/models.rs"), source).unwrap();
    }

    /// A hand-written migration, as after `diesel migration generate`.
    fn migration(&self, folder: &str, up: &str, down: &str) {
        let folder = self.0.join("migrations").join(folder);
        fs::create_dir_all(&folder).unwrap();
        fs::write(folder.join("up.sql"), up).unwrap();
        fs::write(folder.join("down.sql"), down).unwrap();
    }

    fn writer(&self) -> Migrations {
        Migrations::new(BACKEND, self.0.join("migrations")).source(self.0.join("src"))
    }

    /// The migration Diesel runs last: its order is the version without dashes, as text.
    fn last_folder(&self) -> PathBuf {
        let folders = fs::read_dir(self.0.join("migrations")).unwrap();
        let key = |path: &PathBuf| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            name.split('_').next().unwrap().replace('-', "")
        };
        folders.map(|folder| folder.unwrap().path()).max_by_key(key).unwrap()
    }

    /// What `diesel migration run` reads.
    fn source(&self) -> FileBasedMigrations {
        FileBasedMigrations::from_path(self.0.join("migrations")).unwrap()
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

#[derive(QueryableByName)]
struct IndexName {
    #[diesel(sql_type = diesel::sql_types::Text)]
    name: String,
}

/// The keyset indexes on `table`, by name, as the database's catalog has them.
fn keyset_indexes(conn: &mut crate::Conn, table: &str) -> BTreeSet<String> {
    diesel::sql_query(INDEXES_SQL)
        .bind::<diesel::sql_types::Text, _>(table)
        .load::<IndexName>(conn)
        .unwrap()
        .into_iter()
        .map(|index| index.name)
        .filter(|name| name.contains("_keyset_"))
        .collect()
}

fn names(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|name| name.to_string()).collect()
}

fn table_exists(conn: &mut crate::Conn, table: &str) -> bool {
    diesel::sql_query(format!("SELECT COUNT(*) FROM {table}")).execute(conn).is_ok()
}

const POST: &str = "
    #[derive(Queryable, Selectable, Keyset)]
    #[diesel(table_name = posts)]
    pub struct Post { #[sort(desc)] created_at: i64, #[sort(desc)] #[tiebreaker] id: i64 }
";

const COMMENT: &str = "
    #[derive(Queryable, Selectable, Keyset)]
    #[diesel(table_name = comments)]
    pub struct Comment { #[sort(desc)] posted_at: i64, #[sort(desc)] #[tiebreaker] id: i64 }
";

/// The first scenario: the model for a new table comes first, then
/// `diesel migration generate create_comments`. The migrations must run on a fresh database.
#[test]
fn a_model_written_before_its_tables_migration_gets_its_index_after_it() {
    let project = Project::new("new-table");
    project.models(&format!("{POST}{COMMENT}"));
    let first = project.writer().write().unwrap();
    assert_eq!(first.folders.len(), 1, "the posts index is written");
    assert_eq!(first.waiting.keys().collect::<Vec<_>>(), ["comments"], "comments' index waits");
    let err = project.writer().check().unwrap_err().to_string();
    assert!(err.contains("waits: no migration creates the table `comments`"), "{err}");

    // The table's migration, dated before the index migration just written (the worst case: the
    // same second, or a clock behind), in the form this backend's users write.
    project.migration("2025-01-01-000000_create_comments", CREATE_COMMENTS, "DROP TABLE comments;");
    let second = project.writer().write().unwrap();
    assert_eq!(second.waiting.len(), 0);
    assert!(!second.folders.is_empty());
    project.writer().check().unwrap();

    let (mut conn, _db) = fresh_named("new_table");
    let applied = conn.run_pending_migrations(project.source()).unwrap();
    assert_eq!(applied.len(), 3 + second.folders.len(), "{applied:?}");
    assert_eq!(
        keyset_indexes(&mut conn, "posts"),
        names(&["posts_keyset_created_at_desc_id_desc"])
    );
    let comments = names(&["comments_keyset_posted_at_desc_id_desc"]);
    assert_eq!(keyset_indexes(&mut conn, "comments"), comments);

    // `diesel migration redo`: revert the last migration, run it again.
    conn.revert_last_migration(project.source()).unwrap();
    assert_eq!(keyset_indexes(&mut conn, "comments"), BTreeSet::new());
    conn.run_pending_migrations(project.source()).unwrap();
    assert_eq!(keyset_indexes(&mut conn, "comments"), comments);

    conn.revert_all_migrations(project.source()).unwrap();
    assert!(!table_exists(&mut conn, "comments") && !table_exists(&mut conn, "posts"));
}

/// Three versions of the models on one table: an order that changes direction, a NULL placement
/// that changes, a unique tiebreaker that stops and starts being one.
const VERSIONS: [(&str, [&str; 3]); 3] = [
    (
        "#[derive(Keyset)] #[diesel(table_name = posts)]
         struct Post { #[sort(desc)] created_at: i64, #[sort(desc)] #[tiebreaker] id: i64 }
         #[derive(Keyset)] #[diesel(table_name = posts)]
         struct ByRank { #[sort(desc, nulls = last)] rank: Option<i32>, #[sort(desc)] #[tiebreaker] id: i64 }
         #[derive(Keyset)] #[diesel(table_name = posts)]
         struct BySlug { #[sort(asc)] #[tiebreaker(unique)] slug: String }",
        [
            "posts_keyset_created_at_desc_id_desc",
            "posts_keyset_rank_desc_nulls_last_id_desc",
            "posts_keyset_slug_unique",
        ],
    ),
    (
        "#[derive(Keyset)] #[diesel(table_name = posts)]
         struct Post { #[sort(desc)] created_at: i64, #[sort(asc)] #[tiebreaker] id: i64 }
         #[derive(Keyset)] #[diesel(table_name = posts)]
         struct ByRank { #[sort(desc, nulls = first)] rank: Option<i32>, #[sort(desc)] #[tiebreaker] id: i64 }
         #[derive(Keyset)] #[diesel(table_name = posts)]
         struct BySlug { #[sort(asc)] slug: String, #[sort(asc)] #[tiebreaker] id: i64 }",
        [
            "posts_keyset_created_at_desc_id_asc",
            "posts_keyset_rank_desc_nulls_first_id_desc",
            "posts_keyset_slug_asc_id_asc",
        ],
    ),
    (
        "#[derive(Keyset)] #[diesel(table_name = posts)]
         struct Post { #[sort(asc)] #[tiebreaker] id: i64 }
         #[derive(Keyset)] #[diesel(table_name = posts)]
         struct ByRank { #[sort(desc, nulls = last)] rank: Option<i32>, #[sort(desc)] #[tiebreaker] id: i64 }
         #[derive(Keyset)] #[diesel(table_name = posts)]
         struct BySlug { #[sort(asc)] #[tiebreaker(unique)] slug: String }",
        [
            "posts_keyset_id_asc",
            "posts_keyset_rank_desc_nulls_last_id_desc",
            "posts_keyset_slug_unique",
        ],
    ),
];

fn insert_post(conn: &mut crate::Conn, id: i64, slug: &str) -> QueryResult<usize> {
    diesel::sql_query(format!(
        "INSERT INTO posts (id, created_at, rank, slug) VALUES ({id}, 1, NULL, '{slug}')"
    ))
    .execute(conn)
}

/// Each change of the models is one new migration, checked, applied to a database that has the
/// previous ones (as in production), and the whole history runs on a fresh database.
fn changing_models(tag: &str, one_per_index: bool, writer: impl Fn(&Project) -> Migrations) {
    let project = Project::new(tag);
    let (mut conn, _db) = fresh_named(&format!("{tag}_step"));
    for (i, (models, indexes)) in VERSIONS.iter().enumerate() {
        project.models(models);
        if i > 0 {
            // The models changed; the migrations did not yet: check fails, with the diff.
            match writer(&project).check() {
                Err(MigrationError::Stale { changes, .. }) => {
                    let (previous, now) = (names(&VERSIONS[i - 1].1), names(indexes));
                    let dropped: BTreeSet<String> = previous.difference(&now).cloned().collect();
                    let created: BTreeSet<String> = now.difference(&previous).cloned().collect();
                    assert_eq!(changes.drop.keys().cloned().collect::<BTreeSet<_>>(), dropped);
                    assert_eq!(changes.create.keys().cloned().collect::<BTreeSet<_>>(), created);
                }
                other => panic!("version {i}: {other:?}"),
            }
        }
        let written = writer(&project).write().unwrap();
        assert!(!written.folders.is_empty(), "version {i}");
        writer(&project).check().unwrap();
        let applied = conn.run_pending_migrations(project.source()).unwrap();
        assert_eq!(applied.len(), written.folders.len() + usize::from(i == 0), "version {i}");
        assert_eq!(keyset_indexes(&mut conn, "posts"), names(indexes), "version {i}");
        match i {
            // `#[tiebreaker(unique)]` is made true by its index ..
            0 => {
                insert_post(&mut conn, 1, "same").unwrap();
                assert!(insert_post(&mut conn, 2, "same").is_err(), "a duplicate slug is refused");
            }
            // .. and is no longer enforced once it is gone.
            1 => {
                insert_post(&mut conn, 2, "other").unwrap();
                assert_eq!(names(indexes).iter().filter(|n| n.ends_with("_unique")).count(), 0);
            }
            _ => {}
        }
    }

    // A deleted migration: check fails where the build in write mode would write it again.
    let last = project.last_folder();
    let aside = project.0.join("aside");
    fs::rename(&last, &aside).unwrap();
    let err = writer(&project).check().unwrap_err().to_string();
    assert!(err.contains("are stale"), "{err}");
    assert!(
        err.contains("+ CREATE UNIQUE INDEX"),
        "the unique index comes back in the diff: {err}"
    );
    fs::rename(&aside, &last).unwrap();
    writer(&project).check().unwrap();

    // `diesel migration redo` on the production database: the last migration undone, then run
    // again. One per index, the last one created the unique index; else it was the whole change.
    conn.revert_last_migration(project.source()).unwrap();
    let undone = if one_per_index {
        let mut last = names(&VERSIONS[2].1);
        last.remove("posts_keyset_slug_unique");
        last
    } else {
        names(&VERSIONS[1].1)
    };
    assert_eq!(keyset_indexes(&mut conn, "posts"), undone);
    conn.run_pending_migrations(project.source()).unwrap();
    assert_eq!(keyset_indexes(&mut conn, "posts"), names(&VERSIONS[2].1));

    // The whole history on a fresh database, then reverted.
    let (mut fresh, _fresh_db) = fresh_named(&format!("{tag}_fresh"));
    fresh.run_pending_migrations(project.source()).unwrap();
    assert_eq!(keyset_indexes(&mut fresh, "posts"), names(&VERSIONS[2].1));
    fresh.revert_all_migrations(project.source()).unwrap();
    assert!(!table_exists(&mut fresh, "posts"));
}

#[test]
fn changed_orders_placements_and_uniqueness_each_add_a_migration_that_runs_and_reverts() {
    changing_models("changes", false, Project::writer);
}

/// PostgreSQL: `CREATE INDEX CONCURRENTLY` fails inside a transaction, so this passes only if
/// every migration runs alone and outside one (`metadata.toml`). Other backends ignore it.
#[test]
fn concurrently_built_indexes_run_revert_and_redo() {
    let one_per_index = BACKEND == Backend::Postgres;
    changing_models("concurrently", one_per_index, |project| project.writer().concurrently());
}
