//! The writer on temporary directories: what it writes, that it writes nothing when nothing
//! changed, that a changed order gives a new migration (never an edit), and the check mode.

use std::fs;
use std::path::{Path, PathBuf};

use super::*;

/// A fresh directory under the target dir, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("keyset-migrations-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("src")).unwrap();
        Scratch(dir)
    }

    fn model(&self, source: &str) {
        fs::write(self.0.join("src/models.rs"), source).unwrap();
    }

    fn migrations(&self, backend: Backend) -> Migrations {
        Migrations::new(backend, self.0.join("migrations")).source(self.0.join("src"))
    }

    fn folders(&self) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(self.0.join("migrations"))
            .map(|entries| entries.map(|e| folder_name(&e.unwrap().path())).collect())
            .unwrap_or_default();
        names.sort();
        names
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
    #[derive(Keyset)]
    struct Invalid { #[sort(asc)] no_tiebreaker: i64 }
"#;

#[test]
fn writes_one_migration_then_nothing() {
    let scratch = Scratch::new("once");
    scratch.model(NEWEST);
    let written = scratch.migrations(Backend::Sqlite).write().unwrap();
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
    assert!(scratch.migrations(Backend::Sqlite).write().unwrap().is_empty());
    scratch.migrations(Backend::Sqlite).check().unwrap();
    assert_eq!(scratch.folders().len(), 1);
}

#[test]
fn a_changed_order_adds_a_migration_and_check_reports_it() {
    let scratch = Scratch::new("changed");
    scratch.model(NEWEST);
    let first = scratch.migrations(Backend::Mysql).write().unwrap();
    let first_up = read(&first[0].join("up.sql"));

    scratch
        .model(&NEWEST.replace("#[sort(desc)] #[tiebreaker] id", "#[sort(asc)] #[tiebreaker] id"));
    let err = scratch.migrations(Backend::Mysql).check().unwrap_err().to_string();
    assert!(err.contains("- CREATE INDEX `posts_keyset_created_at_desc_id_desc`"), "{err}");
    assert!(err.contains("+ CREATE INDEX `posts_keyset_created_at_desc_id_asc`"), "{err}");

    let second = scratch.migrations(Backend::Mysql).write().unwrap();
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
    let written = scratch.migrations(Backend::Postgres).concurrently().write().unwrap();
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
    let at = |secs| utc_version(UNIX_EPOCH + Duration::from_secs(secs));
    assert_eq!(at(0), "1970-01-01-000000");
    assert_eq!(at(951_782_400), "2000-02-29-000000");
    assert_eq!(at(1_700_000_000), "2023-11-14-221320");
}
