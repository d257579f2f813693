//! Whether a build writes migrations or only checks them, and the build-script driver.
//!
//! The rule, as insta's `INSTA_UPDATE` has it for snapshots: a build writes locally and never in
//! CI. `KEYSET_MIGRATIONS=write` or `=check` says so explicitly; unset, a build checks when the
//! `CI` variable is set (as every CI service sets it) and writes otherwise.

use std::io::Write;

use super::{MigrationError, Migrations};

/// The variable that chooses the mode: `write` or `check`.
pub(super) const VARIABLE: &str = "KEYSET_MIGRATIONS";

/// What a build script does with migrations that lag the models.
///
/// ```
/// use keyset_codegen::Mode;
///
/// // `KEYSET_MIGRATIONS` decides; unset, the `CI` variable does.
/// match Mode::from_env() {
///     Ok(Mode::Write) => println!("a build writes the migrations the models need"),
///     Ok(Mode::Check) => println!("a build fails when the migrations lag the models"),
///     Err(err) => eprintln!("{err}"),
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Write the migration the models need, and say which files to commit.
    Write,
    /// Never write: migrations that lag the models fail the build, with the diff.
    Check,
}

impl Mode {
    /// The mode `KEYSET_MIGRATIONS` and `CI` ask for.
    pub fn from_env() -> Result<Mode, MigrationError> {
        Mode::from_vars(|name| std::env::var(name).ok())
    }

    pub(super) fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Mode, MigrationError> {
        match var(VARIABLE).as_deref().map(str::trim) {
            Some("write") => Ok(Mode::Write),
            Some("check") => Ok(Mode::Check),
            None | Some("") => {
                // As insta and other tools read it: set to anything but a false value.
                let ci = var("CI").is_some_and(|ci| !matches!(ci.trim(), "" | "0" | "false"));
                Ok(if ci { Mode::Check } else { Mode::Write })
            }
            Some(value) => Err(MigrationError::Mode { value: value.to_owned() }),
        }
    }
}

impl Migrations {
    /// For a build script: tells cargo what to watch (the sources, the migrations, and the
    /// variables read), then writes or checks as [`Mode::from_env`] says. A failure ends the
    /// build script with the message on stderr, which cargo shows; but in write mode a model
    /// the derive refuses ([`MigrationError::Refused`]) is a warning, with nothing written, and
    /// the compiler reports the model.
    ///
    /// ```no_run
    /// // build.rs
    /// use keyset_codegen::{Backend, Migrations};
    ///
    /// fn main() {
    ///     Migrations::new(Backend::Postgres, "migrations").source("src").write_for_build();
    /// }
    /// ```
    pub fn write_for_build(&self) {
        let mut out = std::io::stdout().lock();
        let result = Mode::from_env().and_then(|mode| self.build_script(mode, &mut out));
        if let Err(err) = result {
            let _ = out.flush();
            eprintln!("error: keyset migrations: {err}");
            std::process::exit(1);
        }
    }

    /// The build script's work in `mode`, its instructions to cargo written to `out`.
    pub(super) fn build_script(
        &self,
        mode: Mode,
        out: &mut dyn Write,
    ) -> Result<(), MigrationError> {
        let mut say = |line: String| {
            // Cargo reads the build script's stdout; a failed write there is not ours to handle.
            let _ = writeln!(out, "{line}");
        };
        for source in &self.sources {
            say(format!("cargo:rerun-if-changed={}", source.display()));
        }
        say(format!("cargo:rerun-if-changed={}", self.dir.display()));
        say(format!("cargo:rerun-if-env-changed={VARIABLE}"));
        say("cargo:rerun-if-env-changed=CI".to_owned());
        if mode == Mode::Check {
            // A check that could not read every model cannot vouch for the migrations: it fails
            // (in CI the refused model fails the compile anyway; a stray file that does not
            // parse would otherwise turn the check off unseen).
            return self.check();
        }
        let written = match self.write() {
            // Nothing written, and the build goes on: rustc, which compiles the crate after this
            // script, reports the refused model (or the file that does not parse) at its place;
            // failing here would stop cargo before it and hide that error behind ours.
            Err(MigrationError::Refused { refusals }) => {
                for refusal in &refusals {
                    say(format!(
                        "cargo:warning=keyset wrote no migration, since it could not read every \
                         model (one written from the others would drop this one's indexes): \
                         {refusal}"
                    ));
                }
                return Ok(());
            }
            written => written?,
        };
        for folder in &written.folders {
            let folder = folder.display();
            say(format!(
                "cargo:warning=keyset wrote the migration {folder}/ (up.sql, down.sql): review it \
                 and commit it (`git add {folder}`), since builds in CI only check"
            ));
        }
        for (table, indexes) in &written.waiting {
            let names: Vec<&str> = indexes.keys().map(String::as_str).collect();
            say(format!(
                "cargo:warning=keyset waits to write {}: no migration in {} creates the table \
                 `{table}` yet. Add it (`diesel migration generate create_{table}`), or declare \
                 `.table_created_elsewhere(\"{table}\")` in build.rs",
                names.join(", "),
                self.dir.display()
            ));
        }
        for (order, why) in &written.unindexed {
            say(format!("cargo:warning=keyset writes no index for `{order}`: it {why}"));
        }
        if let Err(err) = self.check_order() {
            say(format!("cargo:warning={}", err.to_string().replace('\n', " ")));
        }
        Ok(())
    }
}
