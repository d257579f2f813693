//! The migration folders of one directory, in the order Diesel runs them, and the version of the
//! next one.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use super::MigrationError;

/// The folder-name ending of the migrations this writer owns: `<version>_keyset_indexes`.
pub(super) const KEYSET_SUFFIX: &str = "_keyset_indexes";

/// One migration folder, `<version>_<name>`.
#[derive(Clone, Debug)]
pub(super) struct Folder {
    pub path: PathBuf,
    pub name: String,
}

impl Folder {
    /// The key Diesel orders migrations by: the version (the name up to its first `_`) with its
    /// dashes removed, compared as text (diesel_migrations' `version_from_string`). The writer
    /// must order by the same key, or it could place a migration where Diesel would not run it.
    pub fn key(&self) -> String {
        order_key(&self.name)
    }

    /// Whether this writer wrote it.
    pub fn is_keyset(&self) -> bool {
        self.name.ends_with(KEYSET_SUFFIX)
    }

    pub fn up_sql(&self) -> Result<String, MigrationError> {
        let up = self.path.join("up.sql");
        match fs::read_to_string(&up) {
            Ok(text) => Ok(text),
            // A folder `diesel migration generate` has only just created may lack it.
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
            Err(error) => Err(MigrationError::Io { path: up, error }),
        }
    }
}

fn order_key(name: &str) -> String {
    name.split('_').next().unwrap_or_default().replace('-', "")
}

/// The migration folders in `dir`, in Diesel's order; none when `dir` does not exist yet.
pub(super) fn list(dir: &Path) -> Result<Vec<Folder>, MigrationError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(MigrationError::Io { path: dir.to_owned(), error }),
    };
    let mut folders = Vec::new();
    for entry in entries {
        let path =
            entry.map_err(|error| MigrationError::Io { path: dir.to_owned(), error })?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        // Diesel skips hidden entries too.
        if path.is_dir() && !name.starts_with('.') {
            folders.push(Folder { path, name });
        }
    }
    folders.sort_by(|a, b| a.key().cmp(&b.key()).then_with(|| a.name.cmp(&b.name)));
    Ok(folders)
}

/// The version of a new migration: `now` as Diesel CLI writes versions (`2024-05-01-120000`),
/// unless that would not sort after every existing folder in Diesel's order (two runs in one
/// second, a clock behind the latest migration, versions of another style): then the latest
/// version extended by `-1`, which sorts right after it.
pub(super) fn next_version(folders: &[Folder], now: SystemTime) -> String {
    let now = utc_version(now);
    match folders.iter().max_by_key(|folder| folder.key()) {
        Some(latest) if order_key(&now) <= latest.key() => {
            let version = latest.name.split('_').next().unwrap_or_default();
            format!("{version}-1")
        }
        _ => now,
    }
}

/// `YYYY-MM-DD-HHMMSS` in UTC.
pub(super) fn utc_version(now: SystemTime) -> String {
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
