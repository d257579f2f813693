//! The migration writer, [`Migrations`]: what it writes and when is in the crate docs.

mod error;
mod folders;
mod mode;
mod sources;
mod tables;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

pub use error::{Changes, MigrationError, OrderProblem, Refusal};
pub use mode::Mode;

use crate::index::{self, Backend, Creation, Index};
use folders::{Folder, KEYSET_SUFFIX};

const HEADER: &str =
    "-- Written by keyset from the models' sort orders. Do not edit: change the models.";

/// The index migrations of one backend, kept in step with the models found in the sources.
///
/// ```
/// use keyset_codegen::{Backend, Migrations};
///
/// let dir = std::env::temp_dir().join(format!("keyset-doc-{}", std::process::id()));
/// std::fs::create_dir_all(dir.join("src")).unwrap();
/// std::fs::create_dir_all(dir.join("migrations/2024-01-01-000000_create_posts")).unwrap();
/// std::fs::write(
///     dir.join("migrations/2024-01-01-000000_create_posts/up.sql"),
///     "CREATE TABLE posts (id BIGINT PRIMARY KEY, created_at BIGINT NOT NULL);",
/// ).unwrap();
/// std::fs::write(dir.join("src/lib.rs"), r#"
///     #[derive(Keyset)]
///     #[diesel(table_name = posts)]
///     struct Post { #[sort(desc)] created_at: i64, #[sort(desc)] #[tiebreaker] id: i64 }
/// "#).unwrap();
///
/// let migrations =
///     Migrations::new(Backend::Postgres, dir.join("migrations")).source(dir.join("src"));
/// assert!(migrations.check().is_err(), "no migration creates the index yet");
/// let written = migrations.write().unwrap();
/// assert_eq!(written.folders.len(), 1);
/// migrations.check().unwrap();
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[derive(Clone, Debug)]
pub struct Migrations {
    backend: Backend,
    dir: PathBuf,
    sources: Vec<PathBuf>,
    creation: Creation,
    /// Tables created outside these migrations, lower-cased.
    elsewhere: BTreeSet<String>,
}

/// What [`Migrations::write`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Written {
    /// The migration folders written: none when the migrations were up to date, one, or (with
    /// [`Migrations::concurrently`] on PostgreSQL) one per index.
    pub folders: Vec<PathBuf>,
    /// The indexes not written because no migration creates their table yet, by table, as in
    /// [`Changes::waiting`].
    pub waiting: BTreeMap<String, BTreeMap<String, String>>,
    /// The sort orders no index can serve, as in [`Changes::unindexed`].
    pub unindexed: BTreeMap<String, String>,
}

/// What the models need: their indexes by name, and the orders no index serves, in words, with
/// why.
type Wants = (BTreeMap<String, Wanted>, BTreeMap<String, String>);

/// An index a model needs: its table and its `CREATE` statement.
struct Wanted {
    table: String,
    create: String,
}

impl Migrations {
    /// Migrations for `backend` in `dir` (Diesel CLI's layout: `dir/<version>_<name>/up.sql`).
    pub fn new(backend: Backend, dir: impl Into<PathBuf>) -> Self {
        Migrations {
            backend,
            dir: dir.into(),
            sources: Vec::new(),
            creation: Creation::Plain,
            elsewhere: BTreeSet::new(),
        }
    }

    /// Looks for models in this file, or in every `.rs` file below this directory.
    pub fn source(mut self, path: impl Into<PathBuf>) -> Self {
        self.sources.push(path.into());
        self
    }

    /// PostgreSQL: builds indexes `CONCURRENTLY` (no write lock on the table), one statement per
    /// migration, each marked to run outside a transaction (`run_in_transaction = false` in its
    /// `metadata.toml`, which `diesel migration run` and `embed_migrations!` read), because
    /// PostgreSQL refuses `CREATE INDEX CONCURRENTLY` in a transaction. Other backends ignore it.
    ///
    /// ```no_run
    /// # use keyset_codegen::{Backend, Migrations};
    /// Migrations::new(Backend::Postgres, "migrations")
    ///     .source("src")
    ///     .concurrently()
    ///     .write_for_build();
    /// ```
    pub fn concurrently(mut self) -> Self {
        self.creation = Creation::Concurrently;
        self
    }

    /// Declares a table that no migration in this directory creates (another tool, another
    /// migrations directory, a database set up by hand), so that its indexes are written
    /// without waiting for a `CREATE TABLE`.
    ///
    /// ```
    /// # use keyset_codegen::{Backend, Migrations};
    /// let migrations = Migrations::new(Backend::Postgres, "migrations")
    ///     .source("src")
    ///     .table_created_elsewhere("legacy_posts");
    /// ```
    pub fn table_created_elsewhere(mut self, table: impl Into<String>) -> Self {
        self.elsewhere.insert(table.into().to_lowercase());
        self
    }

    fn wanted_indexes(&self) -> Result<BTreeMap<String, Wanted>, MigrationError> {
        Ok(self.wants()?.0)
    }

    /// The indexes the models need, by name, and the orders no index serves, in words, with
    /// why (see [`Changes::unindexed`]).
    fn wants(&self) -> Result<Wants, MigrationError> {
        let mut wanted = BTreeMap::new();
        let mut unindexed = BTreeMap::new();
        sources::each_model(&self.sources, |model| {
            for index in Index::for_model(model) {
                let create = index.create_sql(self.backend, self.creation);
                wanted.insert(index.name(), Wanted { table: index.table.clone(), create });
            }
            unindexed.extend(Index::unserved(model));
        })?;
        Ok((wanted, unindexed))
    }

    /// The indexes the models in the sources need, by name, with their `CREATE` statements
    /// (see [`changes`](Self::changes) for an example).
    pub fn wanted(&self) -> Result<BTreeMap<String, String>, MigrationError> {
        Ok(self.wanted_indexes()?.into_iter().map(|(name, index)| (name, index.create)).collect())
    }

    /// The indexes the keyset migrations on disk create, replayed in Diesel's order (see
    /// [`changes`](Self::changes) for an example).
    pub fn existing(&self) -> Result<BTreeMap<String, String>, MigrationError> {
        let mut indexes = BTreeMap::new();
        for folder in folders::list(&self.dir)?.iter().filter(|f| f.is_keyset()) {
            for line in folder.up_sql()?.lines() {
                let Some(name) = index_name(line) else { continue };
                if line.starts_with("CREATE") {
                    indexes.insert(name, line.to_owned());
                } else if line.starts_with("DROP") {
                    indexes.remove(&name);
                }
            }
        }
        Ok(indexes)
    }

    /// The tables the other migrations create, lower-cased, each with the first folder that
    /// creates it.
    fn created_tables(folders: &[Folder]) -> Result<BTreeMap<String, &Folder>, MigrationError> {
        let mut created = BTreeMap::new();
        for folder in folders.iter().filter(|f| !f.is_keyset()) {
            for table in tables::created_tables(&folder.up_sql()?) {
                created.entry(table.to_lowercase()).or_insert(folder);
            }
        }
        Ok(created)
    }

    /// What a new migration would do, without writing it: the diff [`check`](Self::check)
    /// reports.
    ///
    /// ```no_run
    /// # use keyset_codegen::{Backend, Migrations};
    /// let changes = Migrations::new(Backend::Sqlite, "migrations").source("src").changes()?;
    /// for (name, create) in &changes.create {
    ///     println!("{name}: {create}");
    /// }
    /// # Ok::<(), keyset_codegen::MigrationError>(())
    /// ```
    pub fn changes(&self) -> Result<Changes, MigrationError> {
        let (wanted, unindexed) = self.wants()?;
        let existing = self.existing()?;
        let folders = folders::list(&self.dir)?;
        let created = Self::created_tables(&folders)?;
        let mut changes = Changes { unindexed, ..Changes::default() };
        for (name, create) in &existing {
            if !wanted.contains_key(name) {
                changes.drop.insert(name.clone(), create.clone());
            }
        }
        for (name, index) in wanted.into_iter().filter(|(name, _)| !existing.contains_key(name)) {
            let table = index.table.to_lowercase();
            if created.contains_key(&table) || self.elsewhere.contains(&table) {
                changes.create.insert(name, index.create);
            } else {
                changes.waiting.entry(index.table).or_default().insert(name, index.create);
            }
        }
        Ok(changes)
    }

    /// Fails when the migrations on disk lag the models ([`MigrationError::Stale`], with the
    /// diff), or when Diesel would run an index migration before its table exists
    /// ([`MigrationError::Misordered`]). Call it from a test, so that `cargo test` fails where a
    /// build in write mode would have written.
    ///
    /// ```
    /// # use keyset_codegen::{Backend, Migrations, MigrationError};
    /// let dir = std::env::temp_dir().join(format!("keyset-doc-check-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// std::fs::write(dir.join("models.rs"), r#"
    ///     #[derive(Keyset)]
    ///     struct Comment { #[sort(asc)] #[tiebreaker] id: i64 }
    /// "#).unwrap();
    /// let migrations =
    ///     Migrations::new(Backend::Sqlite, dir.join("migrations")).source(dir.join("models.rs"));
    /// match migrations.check() {
    ///     Err(MigrationError::Stale { changes, .. }) => {
    ///         assert!(changes.waiting.contains_key("comments"))
    ///     }
    ///     other => panic!("{other:?}"),
    /// }
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub fn check(&self) -> Result<(), MigrationError> {
        self.check_order()?;
        let changes = self.changes()?;
        if changes.is_empty() {
            Ok(())
        } else {
            Err(MigrationError::Stale { dir: self.dir.clone(), changes })
        }
    }

    /// Fails when an existing index migration runs before the migration that creates its table,
    /// or no migration creates it.
    fn check_order(&self) -> Result<(), MigrationError> {
        let folders = folders::list(&self.dir)?;
        let created = Self::created_tables(&folders)?;
        let mut problems = Vec::new();
        for folder in folders.iter().filter(|f| f.is_keyset()) {
            let mut tables = BTreeSet::new();
            for line in folder.up_sql()?.lines().filter(|line| line.starts_with("CREATE")) {
                tables.extend(line.split(" ON ").nth(1).and_then(first_quoted));
            }
            for table in tables {
                let key = table.to_lowercase();
                if self.elsewhere.contains(&key) {
                    continue;
                }
                let table_migration = match created.get(&key) {
                    Some(creates) if creates.key() < folder.key() => continue,
                    Some(creates) => Some(creates.name.clone()),
                    None => None,
                };
                problems.push(OrderProblem {
                    index_migration: folder.name.clone(),
                    table,
                    table_migration,
                });
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(MigrationError::Misordered { dir: self.dir.clone(), problems })
        }
    }

    /// Writes a new migration when the models need one, after every existing migration, for
    /// the indexes whose tables exist; the others wait ([`Written::waiting`]). Once, from a
    /// program of your own, where a build script is not wanted:
    ///
    /// ```no_run
    /// # use keyset_codegen::{Backend, Migrations};
    /// let written = Migrations::new(Backend::Mysql, "migrations").source("src").write()?;
    /// for folder in &written.folders {
    ///     println!("wrote {}: commit it", folder.display());
    /// }
    /// for table in written.waiting.keys() {
    ///     println!("waiting for the migration that creates {table}");
    /// }
    /// # Ok::<(), keyset_codegen::MigrationError>(())
    /// ```
    pub fn write(&self) -> Result<Written, MigrationError> {
        let Changes { drop, create, waiting, unindexed } = self.changes()?;
        let mut written = Written { folders: Vec::new(), waiting, unindexed };
        if drop.is_empty() && create.is_empty() {
            return Ok(written);
        }
        let by_index = self.backend == Backend::Postgres && self.creation == Creation::Concurrently;
        let mut steps: Vec<(Vec<String>, Vec<String>)> = Vec::new();
        for (name, create) in &drop {
            steps.push((vec![self.drop_sql(name, create)], vec![create.clone()]));
        }
        for (name, create) in &create {
            steps.push((vec![create.clone()], vec![self.drop_sql(name, create)]));
        }
        if !by_index {
            // One migration: drops first, then creates; undone in the reverse order.
            let up = steps.iter().flat_map(|(up, _)| up.clone()).collect();
            let down = steps.iter().rev().flat_map(|(_, down)| down.clone()).collect();
            steps = vec![(up, down)];
        }
        let version = folders::next_version(&folders::list(&self.dir)?, SystemTime::now());
        for (i, (up, down)) in steps.iter().enumerate() {
            let suffix = if by_index { format!("-{:02}", i + 1) } else { String::new() };
            let folder = self.dir.join(format!("{version}{suffix}{KEYSET_SUFFIX}"));
            fs::create_dir_all(&folder).map_err(io(&folder))?;
            write(&folder.join("up.sql"), &format!("{HEADER}\n{}\n", up.join("\n")))?;
            write(&folder.join("down.sql"), &format!("{HEADER}\n{}\n", down.join("\n")))?;
            if by_index {
                write(&folder.join("metadata.toml"), "run_in_transaction = false\n")?;
            }
            written.folders.push(folder);
        }
        Ok(written)
    }

    /// The `DROP` of an index, from the `CREATE` statement that made it (which names its table).
    fn drop_sql(&self, name: &str, create: &str) -> String {
        let table = create.split(" ON ").nth(1).and_then(first_quoted).unwrap_or_default();
        index::drop_statement(self.backend, self.creation, name, &table)
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> MigrationError + '_ {
    move |error| MigrationError::Io { path: path.to_owned(), error }
}

fn write(path: &Path, text: &str) -> Result<(), MigrationError> {
    fs::write(path, text).map_err(io(path))
}

/// The index a statement this writer wrote creates or drops: the first quoted identifier after
/// `INDEX`.
fn index_name(line: &str) -> Option<String> {
    first_quoted(&line[line.find("INDEX ")? + 6..])
}

/// The first `"quoted"` or `` `quoted` `` identifier in `text`, unquoted.
fn first_quoted(text: &str) -> Option<String> {
    let start = text.find(['"', '`'])?;
    let quote = text[start..].chars().next()?;
    let rest = &text[start + 1..];
    Some(rest[..rest.find(quote)?].to_owned())
}

#[cfg(test)]
mod tests;
