//! Writes Diesel migrations for the indexes the crate's `Keyset` models need, from a build script.
//!
//! It finds the models by parsing the crate's sources with the derive's own parser and rules, so
//! the migrations hold exactly the indexes the derive puts on the models
//! (`Keyset::INDEXES`). Each run compares the indexes the models need with those the existing
//! keyset migrations create (replayed in version order) and, when they differ, writes one new
//! migration that drops the indexes no longer needed and creates the new ones: a migration
//! already written is never edited, since it may have been applied. When nothing changed it
//! writes nothing, so the build does not loop.
//!
//! ```no_run
//! // build.rs
//! use keyset_codegen::index::Backend;
//! use keyset_codegen::migrations::Migrations;
//!
//! fn main() {
//!     Migrations::new(Backend::Postgres, "migrations").source("src").write_for_build();
//! }
//! ```
//!
//! [`Migrations::check`] is the same comparison without writing, for CI and tests: it fails with
//! the statements a new migration would hold.

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::ctxt::Ctxt;
use crate::index::{self, Backend, Creation, Index};
use crate::model::Model;

/// The folder-name marker of the migrations this writer owns: `<version>_keyset_indexes`.
const MARKER: &str = "_keyset_";
const HEADER: &str =
    "-- Written by keyset from the models' sort orders. Do not edit: change the models.";

/// The migrations of one backend, kept in step with the models found in the sources.
#[derive(Clone, Debug)]
pub struct Migrations {
    backend: Backend,
    dir: PathBuf,
    sources: Vec<PathBuf>,
    creation: Creation,
}

/// What a new migration would do: the indexes to drop and to create, by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    pub drop: BTreeMap<String, String>,
    pub create: BTreeMap<String, String>,
}

impl Changes {
    pub fn is_empty(&self) -> bool {
        self.drop.is_empty() && self.create.is_empty()
    }
}

impl fmt::Display for Changes {
    /// A readable diff: `- DROP ..` and `+ CREATE ..` lines.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for create in self.drop.values() {
            writeln!(f, "- {create}")?;
        }
        for create in self.create.values() {
            writeln!(f, "+ {create}")?;
        }
        Ok(())
    }
}

/// Why the migrations could not be read, written or checked.
#[derive(Debug)]
pub enum MigrationError {
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// [`Migrations::check`]: the migrations on disk lag the models.
    Stale {
        dir: PathBuf,
        changes: Changes,
    },
}

impl fmt::Display for MigrationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MigrationError::Io { path, error } => write!(f, "{}: {error}", path.display()),
            MigrationError::Stale { dir, changes } => write!(
                f,
                "the keyset migrations in {} are stale: the models need a new migration that does\n{changes}\
                 build the crate (its build script writes it) and commit the new migration",
                dir.display()
            ),
        }
    }
}

impl std::error::Error for MigrationError {}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> MigrationError + '_ {
    move |error| MigrationError::Io { path: path.to_owned(), error }
}

impl Migrations {
    /// Migrations for `backend` in `dir` (Diesel CLI's layout: `dir/<version>_<name>/up.sql`).
    pub fn new(backend: Backend, dir: impl Into<PathBuf>) -> Self {
        Migrations { backend, dir: dir.into(), sources: Vec::new(), creation: Creation::Plain }
    }

    /// Looks for models in this file, or in every `.rs` file below this directory.
    pub fn source(mut self, path: impl Into<PathBuf>) -> Self {
        self.sources.push(path.into());
        self
    }

    /// PostgreSQL: builds indexes `CONCURRENTLY` (no write lock on the table), one statement per
    /// migration, each marked to run outside a transaction. Other backends ignore it.
    pub fn concurrently(mut self) -> Self {
        self.creation = Creation::Concurrently;
        self
    }

    /// The indexes the models in the sources need, by name, with their `CREATE` statements.
    pub fn wanted(&self) -> Result<BTreeMap<String, String>, MigrationError> {
        let mut wanted = BTreeMap::new();
        for file in self.source_files()? {
            let text = fs::read_to_string(&file).map_err(io(&file))?;
            // A file that does not parse is the compiler's to report.
            let Ok(parsed) = syn::parse_file(&text) else { continue };
            for input in derive_inputs(parsed.items) {
                let mut cx = Ctxt::new();
                let Some(model) = Model::from_ast(&mut cx, &input) else { continue };
                crate::valid::check(&mut cx, &model);
                // An invalid model is the derive's to report; it gets no index.
                if cx.finish().is_err() {
                    continue;
                }
                for index in Index::for_model(&model) {
                    wanted.insert(index.name(), index.create_sql(self.backend, self.creation));
                }
            }
        }
        Ok(wanted)
    }

    /// The indexes the keyset migrations on disk create, replayed in version order.
    pub fn existing(&self) -> Result<BTreeMap<String, String>, MigrationError> {
        let mut indexes = BTreeMap::new();
        for folder in self.keyset_folders()? {
            let up = folder.join("up.sql");
            for line in fs::read_to_string(&up).map_err(io(&up))?.lines() {
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

    /// What a new migration would do.
    pub fn changes(&self) -> Result<Changes, MigrationError> {
        let wanted = self.wanted()?;
        let existing = self.existing()?;
        Ok(Changes {
            drop: existing
                .iter()
                .filter(|(name, _)| !wanted.contains_key(*name))
                .map(clone)
                .collect(),
            create: wanted
                .iter()
                .filter(|(name, _)| !existing.contains_key(*name))
                .map(clone)
                .collect(),
        })
    }

    /// Fails with the changes when the migrations on disk lag the models.
    pub fn check(&self) -> Result<(), MigrationError> {
        let changes = self.changes()?;
        if changes.is_empty() {
            Ok(())
        } else {
            Err(MigrationError::Stale { dir: self.dir.clone(), changes })
        }
    }

    /// Writes a new migration when the models need one; returns the folders written.
    pub fn write(&self) -> Result<Vec<PathBuf>, MigrationError> {
        let changes = self.changes()?;
        if changes.is_empty() {
            return Ok(Vec::new());
        }
        let by_index = self.backend == Backend::Postgres && self.creation == Creation::Concurrently;
        let mut steps: Vec<(Vec<String>, Vec<String>)> = Vec::new();
        for (name, create) in &changes.drop {
            steps.push((vec![self.drop_sql(name, create)], vec![create.clone()]));
        }
        for (name, create) in &changes.create {
            steps.push((vec![create.clone()], vec![self.drop_sql(name, create)]));
        }
        if !by_index {
            // One migration: drops first, then creates; undone in the reverse order.
            let up = steps.iter().flat_map(|(up, _)| up.clone()).collect();
            let down = steps.iter().rev().flat_map(|(_, down)| down.clone()).collect();
            steps = vec![(up, down)];
        }
        let version = self.next_version()?;
        let mut written = Vec::new();
        for (i, (up, down)) in steps.iter().enumerate() {
            let suffix = if by_index { format!("-{:02}", i + 1) } else { String::new() };
            let folder = self.dir.join(format!("{version}{suffix}{MARKER}indexes"));
            fs::create_dir_all(&folder).map_err(io(&folder))?;
            write(&folder.join("up.sql"), &format!("{HEADER}\n{}\n", up.join("\n")))?;
            write(&folder.join("down.sql"), &format!("{HEADER}\n{}\n", down.join("\n")))?;
            if by_index {
                write(&folder.join("metadata.toml"), "run_in_transaction = false\n")?;
            }
            written.push(folder);
        }
        Ok(written)
    }

    /// For a build script: tells cargo what to watch, writes what is needed, and fails the build
    /// with a readable message when it cannot.
    pub fn write_for_build(&self) {
        for source in &self.sources {
            println!("cargo:rerun-if-changed={}", source.display());
        }
        println!("cargo:rerun-if-changed={}", self.dir.display());
        match self.write() {
            Ok(written) => {
                for folder in written {
                    println!("cargo:warning=keyset wrote the migration {}", folder.display());
                }
            }
            Err(err) => panic!("keyset migrations: {err}"),
        }
    }

    /// The `DROP` of an index, from the `CREATE` statement that made it (which names its table).
    fn drop_sql(&self, name: &str, create: &str) -> String {
        let table = create.split(" ON ").nth(1).and_then(first_quoted).unwrap_or_default();
        index::drop_statement(self.backend, self.creation, name, &table)
    }

    fn source_files(&self) -> Result<Vec<PathBuf>, MigrationError> {
        let mut files = Vec::new();
        for source in &self.sources {
            collect_rust_files(source, &mut files)?;
        }
        files.sort();
        Ok(files)
    }

    fn keyset_folders(&self) -> Result<Vec<PathBuf>, MigrationError> {
        let mut folders: Vec<PathBuf> = match fs::read_dir(&self.dir) {
            Ok(entries) => entries
                .filter_map(|entry| entry.ok().map(|entry| entry.path()))
                .filter(|path| path.is_dir() && folder_name(path).contains(MARKER))
                .collect(),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(err) => return Err(MigrationError::Io { path: self.dir.clone(), error: err }),
        };
        folders.sort_by_key(|path| version(path));
        Ok(folders)
    }

    /// Now, as Diesel CLI writes versions (`2024-05-01-120000`), but after every existing one.
    fn next_version(&self) -> Result<String, MigrationError> {
        let mut next = utc_version(SystemTime::now());
        let latest = match fs::read_dir(&self.dir) {
            Ok(entries) => {
                entries.filter_map(|entry| entry.ok()).map(|entry| version(&entry.path())).max()
            }
            Err(_) => None,
        };
        if let Some(latest) = latest.filter(|latest| next <= *latest) {
            // Two runs in one second, or a clock behind the latest migration: extend the latest.
            next = format!("{latest}-1");
        }
        Ok(next)
    }
}

fn clone((name, create): (&String, &String)) -> (String, String) {
    (name.clone(), create.clone())
}

fn write(path: &Path, text: &str) -> Result<(), MigrationError> {
    fs::write(path, text).map_err(io(path))
}

/// A migration folder's version: its name up to the first `_`, as Diesel reads it.
fn version(path: &Path) -> String {
    folder_name(path).split('_').next().unwrap_or_default().to_owned()
}

fn folder_name(path: &Path) -> String {
    path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default()
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

fn collect_rust_files(path: &Path, out: &mut Vec<PathBuf>) -> Result<(), MigrationError> {
    if path.is_file() {
        out.push(path.to_owned());
        return Ok(());
    }
    for entry in fs::read_dir(path).map_err(io(path))? {
        let path = entry.map_err(io(path))?.path();
        if path.is_dir() {
            collect_rust_files(&path, out)?;
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// Every struct with `#[derive(.., Keyset, ..)]`, also inside inline modules.
fn derive_inputs(items: Vec<syn::Item>) -> Vec<syn::DeriveInput> {
    let mut found = Vec::new();
    for item in items {
        match item {
            syn::Item::Struct(item) if derives_keyset(&item.attrs) => found.push(item.into()),
            syn::Item::Mod(module) => {
                if let Some((_, items)) = module.content {
                    found.extend(derive_inputs(items));
                }
            }
            _ => {}
        }
    }
    found
}

fn derives_keyset(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().filter(|attr| attr.path().is_ident("derive")).any(|attr| {
        attr.parse_args_with(
            syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
        )
        .is_ok_and(|paths| {
            paths.iter().any(|path| path.segments.last().is_some_and(|s| s.ident == "Keyset"))
        })
    })
}

/// `YYYY-MM-DD-HHMMSS` in UTC.
fn utc_version(now: SystemTime) -> String {
    let secs = now.duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let (days, rest) = ((secs / 86_400) as i64, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}-{:02}{:02}{:02}",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests;
