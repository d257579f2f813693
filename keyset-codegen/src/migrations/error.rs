//! What a new migration would do, and why the migrations could not be read, written or checked.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use super::mode::VARIABLE;

/// What a new migration would do: the indexes to drop and to create, by name, each with its
/// `CREATE` statement; and the indexes that wait for their table.
///
/// Its `Display` is a readable diff, `- CREATE ..` for an index to drop and `+ CREATE ..` for
/// one to create:
///
/// ```
/// # use keyset_codegen::Changes;
/// let mut changes = Changes::default();
/// changes.create.insert("posts_keyset_id_desc".into(), "CREATE INDEX ..;".into());
/// assert_eq!(changes.to_string(), "+ CREATE INDEX ..;\n");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Changes {
    /// Indexes no model needs any more.
    pub drop: BTreeMap<String, String>,
    /// Indexes the models need that no migration creates yet.
    pub create: BTreeMap<String, String>,
    /// Indexes the models need on tables that no migration creates yet (and that are not
    /// declared [`table_created_elsewhere`](super::Migrations::table_created_elsewhere)), by
    /// table. They are written once a migration creates the table, so that Diesel runs them
    /// after it.
    pub waiting: BTreeMap<String, BTreeMap<String, String>>,
    /// Sort orders no index can serve, in words (`posts: authors.name ASC, id ASC`), each with
    /// why: an order of a joined table's columns that the model keeps as it is,
    /// `#[keyset(reads_and_sorts)]`. Nothing is written for
    /// them; they are not changes, and [`check`](super::Migrations::check) does not fail on them.
    pub unindexed: BTreeMap<String, String>,
}

impl Changes {
    /// True when the migrations on disk hold exactly the indexes the models need.
    pub fn is_empty(&self) -> bool {
        self.drop.is_empty() && self.create.is_empty() && self.waiting.is_empty()
    }
}

impl fmt::Display for Changes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for create in self.drop.values() {
            writeln!(f, "- {create}")?;
        }
        for create in self.create.values() {
            writeln!(f, "+ {create}")?;
        }
        for (table, indexes) in &self.waiting {
            for create in indexes.values() {
                writeln!(f, "+ {create} -- waits: no migration creates the table `{table}`")?;
            }
        }
        Ok(())
    }
}

/// An index migration that Diesel runs before the migration that creates its table (or with no
/// migration creating it): on a fresh database it fails.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderProblem {
    /// The index migration's folder name.
    pub index_migration: String,
    /// The table its index is on.
    pub table: String,
    /// The folder name of the migration that creates the table, when there is one.
    pub table_migration: Option<String>,
}

impl fmt::Display for OrderProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let OrderProblem { index_migration, table, table_migration } = self;
        match table_migration {
            Some(creates) => write!(
                f,
                "`{index_migration}` creates an index on `{table}`, but Diesel runs it before \
                 `{creates}`, which creates the table, so it fails on a fresh database. If no \
                 database has applied `{index_migration}` yet, delete it and build again (keyset \
                 writes it anew after `{creates}`); otherwise rename `{creates}` to a version \
                 before it"
            ),
            None => write!(
                f,
                "`{index_migration}` creates an index on `{table}`, which no migration creates, \
                 so it fails on a fresh database. Add the table's migration before it, or, if \
                 another tool creates the table, declare it: \
                 `.table_created_elsewhere(\"{table}\")`"
            ),
        }
    }
}

/// A model in the sources that the migration writer could not read, or a source file that does
/// not parse: one of the reasons for [`MigrationError::Refused`].
///
/// ```
/// # use keyset_codegen::{Backend, MigrationError, Migrations};
/// let dir = std::env::temp_dir().join(format!("keyset-doc-refusal-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// // No `#[tiebreaker]`: the derive refuses the model, so the writer writes nothing.
/// std::fs::write(dir.join("models.rs"), r#"
///     #[derive(Keyset)]
///     struct Comment { #[sort(asc)] id: i64 }
/// "#).unwrap();
/// let migrations =
///     Migrations::new(Backend::Sqlite, dir.join("migrations")).source(dir.join("models.rs"));
/// match migrations.write() {
///     Err(MigrationError::Refused { refusals }) => {
///         assert_eq!(refusals[0].model.as_deref(), Some("Comment"));
///         assert!(refusals[0].reasons[0].contains("no field is marked `#[tiebreaker]`"));
///     }
///     other => panic!("{other:?}"),
/// }
/// assert!(!dir.join("migrations").exists(), "nothing written");
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Refusal {
    /// The source file.
    pub file: PathBuf,
    /// The struct (or enum) with `#[derive(Keyset)]` that the derive refuses; `None` when the
    /// file does not parse as Rust.
    pub model: Option<String>,
    /// Why, as the derive's errors say it (the compiler shows the same, at their places).
    pub reasons: Vec<String>,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = self.file.display();
        let reasons = self.reasons.join("; ").replace('\n', " ");
        match &self.model {
            Some(model) => write!(f, "{file}: `#[derive(Keyset)]` refuses `{model}`: {reasons}"),
            None => write!(
                f,
                "{file} does not parse as Rust: {reasons} (if the crate does not compile this \
                 file, move it out of the sources searched, `.source(..)` or `--source`)"
            ),
        }
    }
}

/// Why the migrations could not be read, written or checked. Its `Display` says what is wrong
/// and what to do.
///
/// ```no_run
/// # use keyset_codegen::{Backend, MigrationError, Migrations};
/// match Migrations::new(Backend::Postgres, "migrations").source("src").check() {
///     Ok(()) => {}
///     Err(MigrationError::Stale { changes, .. }) => eprintln!("write these:\n{changes}"),
///     Err(err) => eprintln!("{err}"),
/// }
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum MigrationError {
    /// A file or directory could not be read or written.
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What went wrong.
        error: std::io::Error,
    },
    /// The migrations on disk lag the models ([`check`](super::Migrations::check), and a build
    /// in check mode).
    Stale {
        /// The migrations directory.
        dir: PathBuf,
        /// What a new migration would do.
        changes: Changes,
    },
    /// Index migrations that Diesel runs before their table exists.
    Misordered {
        /// The migrations directory.
        dir: PathBuf,
        /// Each misplaced index migration.
        problems: Vec<OrderProblem>,
    },
    /// The writer could not read every model in the sources: a model the derive refuses, or a
    /// file that does not parse. Nothing is written or checked, since a migration written from
    /// the other models would drop the indexes of those it could not read.
    Refused {
        /// Each refused model and each file that does not parse.
        refusals: Vec<Refusal>,
    },
    /// `KEYSET_MIGRATIONS` holds a value that is neither `write` nor `check`.
    Mode {
        /// The value found.
        value: String,
    },
}

impl fmt::Display for MigrationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MigrationError::Io { path, error } => write!(f, "{}: {error}", path.display()),
            MigrationError::Stale { dir, changes } => {
                let dir = dir.display();
                write!(
                    f,
                    "the keyset migrations in {dir} are stale: the models need a new migration \
                     that does\n{changes}"
                )?;
                for table in changes.waiting.keys() {
                    writeln!(
                        f,
                        "The table `{table}` needs its own migration first (`diesel migration \
                         generate create_{table}`, with its CREATE TABLE in up.sql), or, if \
                         another tool creates it, declare it: \
                         `.table_created_elsewhere(\"{table}\")`."
                    )?;
                }
                if !changes.drop.is_empty() || !changes.create.is_empty() {
                    write!(
                        f,
                        "Write it with `{VARIABLE}=write cargo build` (or `keyset-migrations \
                         write`), review it and commit it."
                    )?;
                }
                Ok(())
            }
            MigrationError::Misordered { dir, problems } => {
                write!(f, "the keyset migrations in {} are out of order:", dir.display())?;
                for problem in problems {
                    write!(f, "\n- {problem}")?;
                }
                Ok(())
            }
            MigrationError::Refused { refusals } => {
                write!(
                    f,
                    "keyset wrote and checked no migration: it could not read every model in the \
                     sources, and a migration written from the others would drop the indexes of \
                     those it could not read. Fix these (the compiler shows where), then run \
                     again:"
                )?;
                for refusal in refusals {
                    write!(f, "\n- {refusal}")?;
                }
                Ok(())
            }
            MigrationError::Mode { value } => write!(
                f,
                "{VARIABLE}={value:?} is not a mode: write `{VARIABLE}=write` to write the \
                 migrations the models need, `{VARIABLE}=check` to fail when they are stale, or \
                 leave it unset (check when `CI` is set, else write)"
            ),
        }
    }
}

impl std::error::Error for MigrationError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MigrationError::Io { error, .. } => Some(error),
            _ => None,
        }
    }
}
