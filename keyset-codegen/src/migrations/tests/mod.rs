//! The writer on temporary directories: what it writes, that it writes nothing when nothing
//! changed, that a changed order gives a new migration (never an edit), the order against the
//! migrations that create the tables, and the check mode. What a model the derive refuses does
//! (nothing) is in `refused`.

use std::fs;
use std::path::{Path, PathBuf};

use super::*;

mod prefix;
mod refused;

/// A fresh directory under the target dir, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("keyset-migrations-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("src")).unwrap();
        let scratch = Scratch(dir);
        scratch.migration("2024-01-01-000000_create_tables", "CREATE TABLE posts (id BIGINT);");
        scratch
    }

    /// A hand-written migration, as `diesel migration generate` and the user would write it.
    fn migration(&self, folder: &str, up: &str) {
        let folder = self.0.join("migrations").join(folder);
        fs::create_dir_all(&folder).unwrap();
        fs::write(folder.join("up.sql"), up).unwrap();
        fs::write(folder.join("down.sql"), "-- nothing").unwrap();
    }

    fn model(&self, source: &str) {
        fs::write(self.0.join("src/models.rs"), source).unwrap();
    }

    fn migrations(&self, backend: Backend) -> Migrations {
        Migrations::new(backend, self.0.join("migrations")).source(self.0.join("src"))
    }

    /// The migration folders, in Diesel's order.
    fn folders(&self) -> Vec<String> {
        folders::list(&self.0.join("migrations")).unwrap().into_iter().map(|f| f.name).collect()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap()
}

fn version(folder: &Path) -> String {
    folder.file_name().unwrap().to_string_lossy().split('_').next().unwrap().replace('-', "")
}

const NEWEST: &str = r#"
    #[derive(Queryable, Selectable, Keyset)]
    #[diesel(table_name = posts)]
    struct Newest {
        #[sort(desc)] created_at: NaiveDateTime,
        #[sort(desc)] #[tiebreaker] id: i64,
    }
    mod nested {
        #[derive(Keyset)]
        #[diesel(table_name = posts)]
        struct ByTitle {
            #[sort(asc)] #[diesel(column_name = title)] heading: String,
            #[sort(asc)] #[tiebreaker(unique)] slug: String,
        }
    }
"#;

#[test]
fn writes_one_migration_then_nothing() {
    let scratch = Scratch::new("once");
    scratch.model(NEWEST);
    let written = scratch.migrations(Backend::Sqlite).write().unwrap().folders;
    assert_eq!(written.len(), 1);
    let up = read(&written[0].join("up.sql"));
    assert_eq!(
        up.lines().skip(1).collect::<Vec<_>>(),
        [
            r#"CREATE INDEX IF NOT EXISTS "posts_keyset_created_at_desc_id_desc" ON "posts" ("created_at" DESC, "id" DESC);"#,
            r#"CREATE UNIQUE INDEX IF NOT EXISTS "posts_keyset_slug_unique" ON "posts" ("slug" ASC);"#,
            r#"CREATE INDEX IF NOT EXISTS "posts_keyset_title_asc_slug_asc" ON "posts" ("title" ASC, "slug" ASC);"#,
        ]
    );
    let down = read(&written[0].join("down.sql"));
    assert!(
        down.contains(r#"DROP INDEX IF EXISTS "posts_keyset_created_at_desc_id_desc";"#),
        "{down}"
    );

    // Unchanged models: nothing written, and the check passes.
    assert_eq!(scratch.migrations(Backend::Sqlite).write().unwrap(), Written::default());
    scratch.migrations(Backend::Sqlite).check().unwrap();
    assert_eq!(scratch.folders().len(), 2);
}

#[test]
fn a_changed_order_adds_a_migration_and_check_reports_it() {
    let scratch = Scratch::new("changed");
    scratch.model(NEWEST);
    let first = scratch.migrations(Backend::Mysql).write().unwrap().folders;
    let first_up = read(&first[0].join("up.sql"));

    scratch
        .model(&NEWEST.replace("#[sort(desc)] #[tiebreaker] id", "#[sort(asc)] #[tiebreaker] id"));
    let err = scratch.migrations(Backend::Mysql).check().unwrap_err().to_string();
    assert!(err.contains("- CREATE INDEX `posts_keyset_created_at_desc_id_desc`"), "{err}");
    assert!(err.contains("+ CREATE INDEX `posts_keyset_created_at_desc_id_asc`"), "{err}");

    let second = scratch.migrations(Backend::Mysql).write().unwrap().folders;
    assert_eq!(second.len(), 1);
    assert_eq!(read(&first[0].join("up.sql")), first_up, "an applied migration is never edited");
    assert_eq!(
        read(&second[0].join("up.sql")).lines().skip(1).collect::<Vec<_>>(),
        [
            "DROP INDEX `posts_keyset_created_at_desc_id_desc` ON `posts`;",
            "CREATE INDEX `posts_keyset_created_at_desc_id_asc` ON `posts` (`created_at` DESC, `id` ASC);",
        ]
    );
    assert!(version(&second[0]) > version(&first[0]), "versions sort in order");
    scratch.migrations(Backend::Mysql).check().unwrap();
}

#[test]
fn concurrently_writes_one_non_transactional_migration_per_index() {
    let scratch = Scratch::new("concurrently");
    scratch.model(NEWEST);
    let written = scratch.migrations(Backend::Postgres).concurrently().write().unwrap().folders;
    assert_eq!(written.len(), 3);
    for folder in &written {
        assert_eq!(read(&folder.join("metadata.toml")), "run_in_transaction = false\n");
        let up = read(&folder.join("up.sql"));
        assert_eq!(up.lines().count(), 2, "one statement each: {up}");
        assert!(up.contains("INDEX CONCURRENTLY IF NOT EXISTS"), "{up}");
        assert!(read(&folder.join("down.sql")).contains("DROP INDEX CONCURRENTLY IF EXISTS"));
    }
}

#[test]
fn long_names_stay_within_identifier_limits() {
    let columns: Vec<String> =
        (0..8).map(|i| format!("#[sort(asc)] a_rather_long_column_name_{i}: i64,")).collect();
    let scratch = Scratch::new("long");
    scratch.model(&format!(
        "#[derive(Keyset)] #[diesel(table_name = t)] struct Wide {{ {} #[sort(asc)] #[tiebreaker] id: i64 }}",
        columns.join(" ")
    ));
    let wanted = scratch.migrations(Backend::Postgres).wanted().unwrap();
    let name = wanted.keys().next().unwrap();
    assert!(name.len() <= 63, "{name}");
    assert!(name.starts_with("t_keyset_a_rather_long_column_name_0_asc"), "{name}");
}

#[test]
fn utc_versions_are_diesel_cli_style() {
    use std::time::Duration;
    use std::time::UNIX_EPOCH;
    let at = |secs| folders::utc_version(UNIX_EPOCH + Duration::from_secs(secs));
    assert_eq!(at(0), "1970-01-01-000000");
    assert_eq!(at(951_782_400), "2000-02-29-000000");
    assert_eq!(at(1_700_000_000), "2023-11-14-221320");
}

const COMMENTS: &str = r#"
    #[derive(Keyset)]
    #[diesel(table_name = comments)]
    struct Comment { #[sort(desc)] posted_at: i64, #[sort(desc)] #[tiebreaker] id: i64 }
"#;

/// The issue's first scenario: a model for a new table, written before the table's migration.
#[test]
fn an_index_waits_for_the_migration_that_creates_its_table() {
    let scratch = Scratch::new("waits");
    scratch.model(&format!("{NEWEST}{COMMENTS}"));
    let migrations = scratch.migrations(Backend::Postgres);
    let first = migrations.write().unwrap();
    assert_eq!(first.folders.len(), 1, "the posts indexes are written");
    assert!(!read(&first.folders[0].join("up.sql")).contains("comments"));
    assert_eq!(first.waiting.keys().collect::<Vec<_>>(), ["comments"]);
    let err = migrations.check().unwrap_err().to_string();
    assert!(err.contains("waits: no migration creates the table `comments`"), "{err}");
    assert!(err.contains("diesel migration generate create_comments"), "{err}");
    // Waiting writes nothing more.
    assert_eq!(migrations.write().unwrap().folders, Vec::<PathBuf>::new());

    // `diesel migration generate create_comments` now: a version that may even sort before the
    // keyset migration written a moment ago (same second, or a clock behind).
    scratch.migration(
        "2024-06-01-000000_create_comments",
        "CREATE TABLE IF NOT EXISTS \"comments\" (id BIGINT);",
    );
    let second = migrations.write().unwrap();
    assert_eq!(second.waiting, BTreeMap::new());
    assert_eq!(second.folders.len(), 1);
    assert!(read(&second.folders[0].join("up.sql")).contains(r#"ON "comments""#));
    let order = scratch.folders();
    assert_eq!(order.last().unwrap(), second.folders[0].file_name().unwrap().to_str().unwrap());
    migrations.check().unwrap();
}

#[test]
fn a_table_created_elsewhere_does_not_wait() {
    let scratch = Scratch::new("elsewhere");
    scratch.model(COMMENTS);
    let migrations = scratch.migrations(Backend::Sqlite).table_created_elsewhere("Comments");
    assert_eq!(migrations.write().unwrap().folders.len(), 1);
    migrations.check().unwrap();
}

/// What the writer before this rule could leave behind: an index migration Diesel runs before
/// the table's migration. `check` says so, and how to repair it.
#[test]
fn check_fails_on_an_index_migration_before_its_table() {
    let scratch = Scratch::new("misordered");
    scratch.model(COMMENTS);
    let migrations = scratch.migrations(Backend::Sqlite).table_created_elsewhere("comments");
    let written = migrations.write().unwrap().folders;
    let migrations = scratch.migrations(Backend::Sqlite);
    // Without the declaration, no migration creates the table.
    let err = migrations.check().unwrap_err();
    assert!(
        matches!(&err, MigrationError::Misordered { problems, .. } if problems[0].table_migration.is_none()),
        "{err}"
    );
    // The table's migration, with a version Diesel runs after the index migration.
    scratch.migration("99990101000000_create_comments", "create table comments (id integer);");
    let err = migrations.check().unwrap_err().to_string();
    let index_migration = written[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(err.contains(&format!("`{index_migration}` creates an index on `comments`")), "{err}");
    assert!(err.contains("runs it before `99990101000000_create_comments`"), "{err}");
    // A build in write mode says so too, loudly, and writes nothing over it.
    let (result, out) = build_script(&migrations, Mode::Write);
    result.unwrap();
    assert!(out.contains("cargo:warning=the keyset migrations in "), "{out}");
    assert!(out.contains("are out of order: - `"), "{out}");
    assert_eq!(scratch.folders().len(), 3);
    // The repair it advises: delete the unapplied index migration, write it anew.
    fs::remove_dir_all(&written[0]).unwrap();
    let rewritten = migrations.write().unwrap().folders;
    assert!(version(&rewritten[0]).as_str() > "99990101000000", "{rewritten:?}");
    migrations.check().unwrap();
}

/// Diesel orders by the version without dashes, as text; so does the writer.
#[test]
fn versions_sort_after_every_migration_in_diesels_order() {
    let scratch = Scratch::new("versions");
    scratch.migration("99999999999999_create_comments", "CREATE TABLE comments (id BIGINT);");
    scratch.model(COMMENTS);
    let written = scratch.migrations(Backend::Sqlite).write().unwrap().folders;
    assert_eq!(version(&written[0]), "999999999999991");
    assert_eq!(scratch.folders().last().unwrap(), "99999999999999-1_keyset_indexes");
}

#[test]
fn the_mode_follows_keyset_migrations_then_ci() {
    let mode = |keyset: Option<&str>, ci: Option<&str>| {
        Mode::from_vars(|name| match name {
            "KEYSET_MIGRATIONS" => keyset.map(str::to_owned),
            "CI" => ci.map(str::to_owned),
            _ => None,
        })
    };
    assert_eq!(mode(None, None).unwrap(), Mode::Write);
    for ci in ["true", "1", "yes", "woodpecker"] {
        assert_eq!(mode(None, Some(ci)).unwrap(), Mode::Check, "CI={ci}");
    }
    for ci in ["false", "0", ""] {
        assert_eq!(mode(None, Some(ci)).unwrap(), Mode::Write, "CI={ci}");
    }
    assert_eq!(mode(Some("write"), Some("true")).unwrap(), Mode::Write);
    assert_eq!(mode(Some("check"), None).unwrap(), Mode::Check);
    assert_eq!(mode(Some(""), Some("true")).unwrap(), Mode::Check);
    let err = mode(Some("yes"), None).unwrap_err().to_string();
    assert!(err.contains("KEYSET_MIGRATIONS=\"yes\" is not a mode"), "{err}");
    assert!(err.contains("KEYSET_MIGRATIONS=write"), "{err}");
}

fn build_script(migrations: &Migrations, mode: Mode) -> (Result<(), MigrationError>, String) {
    let mut out = Vec::new();
    let result = migrations.build_script(mode, &mut out);
    (result, String::from_utf8(out).unwrap())
}

#[test]
fn a_build_in_check_mode_never_writes_and_fails_with_the_diff() {
    let scratch = Scratch::new("check-mode");
    scratch.model(NEWEST);
    let migrations = scratch.migrations(Backend::Postgres);
    let (result, out) = build_script(&migrations, Mode::Check);
    for variable in ["KEYSET_MIGRATIONS", "CI"] {
        assert!(out.contains(&format!("cargo:rerun-if-env-changed={variable}\n")), "{out}");
    }
    assert!(out.contains("cargo:rerun-if-changed="), "{out}");
    let err = result.unwrap_err().to_string();
    assert!(
        err.contains(r#"+ CREATE INDEX IF NOT EXISTS "posts_keyset_created_at_desc_id_desc""#),
        "{err}"
    );
    assert!(err.contains("KEYSET_MIGRATIONS=write cargo build"), "{err}");
    assert_eq!(scratch.folders(), ["2024-01-01-000000_create_tables"], "nothing written");

    // Write mode writes, and says loudly what to commit.
    let (result, out) = build_script(&migrations, Mode::Write);
    result.unwrap();
    let written = scratch.folders()[1].clone();
    assert!(out.contains("cargo:warning=keyset wrote the migration "), "{out}");
    assert!(
        out.contains(&format!("{written}/ (up.sql, down.sql): review it and commit it")),
        "{out}"
    );
    // Then check mode passes.
    build_script(&migrations, Mode::Check).0.unwrap();
}

#[test]
fn a_build_in_write_mode_says_what_waits() {
    let scratch = Scratch::new("write-mode-waits");
    scratch.model(COMMENTS);
    let (result, out) = build_script(&scratch.migrations(Backend::Mysql), Mode::Write);
    result.unwrap();
    assert!(out.contains("cargo:warning=keyset waits to write comments_keyset_posted_at_desc_id_desc: no migration in "), "{out}");
    assert!(out.contains("creates the table `comments` yet"), "{out}");
    assert_eq!(scratch.folders().len(), 1, "nothing written");
}

/// Named orders get one index each; an order and its exact reverse (every direction and NULL
/// placement flipped), or two orders on the same keys, share one, with the field order's too.
#[test]
fn one_index_per_distinct_order() {
    let scratch = Scratch::new("orders");
    scratch.model(
        r#"
        #[derive(Keyset)]
        #[diesel(table_name = posts)]
        #[keyset(order(new: created_at desc, id desc), order(old: created_at asc, id asc))]
        #[keyset(order(top: score desc, created_at desc, id desc), order(again: created_at desc, id desc))]
        #[keyset(order(due: due asc nulls last, id asc), order(undue: due desc nulls first, id desc))]
        struct Post {
            #[sort(desc)] created_at: NaiveDateTime,
            #[sort(desc)] #[tiebreaker] id: i64,
            score: i32,
            due: Option<NaiveDateTime>,
        }
    "#,
    );
    let wanted = scratch.migrations(Backend::Postgres).wanted().unwrap();
    let names: Vec<&String> = wanted.keys().collect();
    assert_eq!(
        names,
        [
            "posts_keyset_created_at_desc_id_desc",
            "posts_keyset_due_asc_nulls_last_id_asc",
            "posts_keyset_score_desc_created_at_desc_id_desc",
        ]
    );
    assert!(
        wanted["posts_keyset_due_asc_nulls_last_id_asc"]
            .contains(r#"("due" ASC NULLS LAST, "id" ASC)"#),
        "{wanted:?}"
    );
}

/// An order of a joined table's key kept with `reads_and_sorts` gets no index (none on `posts`
/// holds `authors.name`), and the writer says why, rather than writing one that serves the
/// model's columns only; the model's other orders still get theirs.
#[test]
fn joined_key_order_gets_no_index_and_is_named() {
    let scratch = Scratch::new("joined");
    scratch.model(
        r#"
        #[derive(Keyset)]
        #[diesel(table_name = posts)]
        #[keyset(order(new: created_at desc, id desc), reads_and_sorts)]
        struct Post {
            #[sort(asc)] #[diesel(select_expression = authors::name)] author_name: String,
            #[sort(asc)] #[tiebreaker] id: i64,
            created_at: NaiveDateTime,
        }
    "#,
    );
    let migrations = scratch.migrations(Backend::Sqlite).table_created_elsewhere("posts");
    let wanted = migrations.wanted().unwrap();
    assert_eq!(wanted.keys().collect::<Vec<_>>(), ["posts_keyset_created_at_desc_id_desc"]);
    let changes = migrations.changes().unwrap();
    let why = &changes.unindexed["posts: authors.name ASC, id ASC"];
    assert!(why.contains("kept with `#[keyset(reads_and_sorts)]`: no index serves"), "{why}");
    let written = migrations.write().unwrap();
    assert_eq!(written.unindexed, changes.unindexed);
    migrations.check().unwrap();
}

/// An order led by a joined table's keys gets an index on that table too, which waits, like any
/// index, for a migration that creates the table; nothing is said to be unserved.
#[test]
fn joined_key_order_gets_an_index_on_the_joined_table() {
    let scratch = Scratch::new("joined-grouped");
    scratch.model(
        r#"
        #[derive(Keyset)]
        #[diesel(table_name = posts)]
        #[keyset(prefix(author_id))]
        struct Post {
            #[sort(asc)] #[diesel(select_expression = authors::name)] author_name: String,
            #[sort(asc)] #[diesel(select_expression = authors::id)] author_key: i64,
            #[sort(desc)] #[tiebreaker] id: i64,
        }
    "#,
    );
    let migrations = scratch.migrations(Backend::Sqlite).table_created_elsewhere("posts");
    let changes = migrations.changes().unwrap();
    assert!(changes.unindexed.is_empty(), "{:?}", changes.unindexed);
    assert_eq!(changes.create.keys().collect::<Vec<_>>(), ["posts_keyset_author_id_asc_id_desc"]);
    let waiting: Vec<&String> = changes.waiting["authors"].keys().collect();
    assert_eq!(waiting, ["authors_keyset_name_asc_id_asc_unique"]);
    let migrations = migrations.table_created_elsewhere("authors");
    let wanted = migrations.wanted().unwrap();
    assert!(
        wanted["authors_keyset_name_asc_id_asc_unique"]
            .contains(r#"CREATE UNIQUE INDEX IF NOT EXISTS "authors_keyset_name_asc_id_asc_unique" ON "authors" ("name" ASC, "id" ASC);"#),
        "{wanted:?}"
    );
    migrations.write().unwrap();
    migrations.check().unwrap();
}
