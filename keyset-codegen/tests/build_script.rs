//! A real build script, run by a real `cargo build` of a scratch crate: what a user's build does
//! in each mode. Locally the build writes and names the files to commit; in CI (`CI` set) or with
//! `KEYSET_MIGRATIONS=check` it never writes, and stale migrations fail it with the diff; a
//! change of either variable reruns the build script. A model the derive refuses writes nothing:
//! a warning locally, a failure in CI.
//!
//! The scratch crate has a target directory of its own (a cargo inside `cargo test` must not wait
//! for the outer one's lock); it is kept between runs, so only the first run compiles syn.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

struct Crate {
    root: PathBuf,
    target: PathBuf,
}

impl Crate {
    fn new() -> Crate {
        let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
        let root = tmp.join(format!("keyset-build-script-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(root.join("src")).unwrap();
        fs::create_dir_all(root.join("models")).unwrap();
        let codegen = env!("CARGO_MANIFEST_DIR").replace('\\', "/");
        fs::write(
            root.join("Cargo.toml"),
            format!(
                "[package]\nname = \"scratch\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
                 publish = false\n\n[build-dependencies]\nkeyset-codegen = {{ path = \"{codegen}\" }}\n\n\
                 [workspace]\n"
            ),
        )
        .unwrap();
        // The workspace's lock file: the same versions as the outer build, all in cargo's cache.
        fs::copy(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock"),
            root.join("Cargo.lock"),
        )
        .unwrap();
        fs::write(
            root.join("src/lib.rs"),
            "//! The models live in models/, read by build.rs only.\n",
        )
        .unwrap();
        fs::write(
            root.join("build.rs"),
            r#"fn main() {
                for backend in keyset_codegen::Backend::ALL {
                    keyset_codegen::Migrations::new(backend, format!("migrations/{}", backend.name()))
                        .source("models")
                        .write_for_build();
                }
            }"#,
        )
        .unwrap();
        for backend in ["sqlite", "postgres", "mysql"] {
            let folder = root.join(format!("migrations/{backend}/2024-01-01-000000_create_posts"));
            fs::create_dir_all(&folder).unwrap();
            fs::write(folder.join("up.sql"), "CREATE TABLE posts (id BIGINT, created_at BIGINT);")
                .unwrap();
            fs::write(folder.join("down.sql"), "DROP TABLE posts;").unwrap();
        }
        Crate { root, target: tmp.join("keyset-build-script-target") }
    }

    fn model(&self, direction: &str) {
        fs::write(
            self.root.join("models/post.rs"),
            format!(
                "#[derive(Keyset)] #[diesel(table_name = posts)]
                 struct Post {{ #[sort({direction})] created_at: i64, #[sort(desc)] #[tiebreaker] id: i64 }}"
            ),
        )
        .unwrap();
    }

    /// `cargo build -v` with exactly these of the two variables set.
    fn build(&self, vars: &[(&str, &str)]) -> Output {
        let mut cargo = Command::new(env!("CARGO"));
        cargo
            .args(["build", "-v", "--offline"])
            .current_dir(&self.root)
            .env("CARGO_TARGET_DIR", &self.target)
            .env_remove("CI")
            .env_remove("KEYSET_MIGRATIONS");
        for (name, value) in vars {
            cargo.env(name, value);
        }
        cargo.output().unwrap()
    }

    /// The keyset migrations of one backend.
    fn keyset_folders(&self, backend: &str) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(self.root.join("migrations").join(backend))
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with("_keyset_indexes"))
            .collect();
        names.sort();
        names
    }
}

impl Drop for Crate {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Whether this build ran the scratch crate's build script (cargo -v prints the command).
fn ran_build_script(output: &Output) -> bool {
    stderr(output)
        .lines()
        .any(|line| line.contains("Running") && line.contains("build-script-build"))
}

#[test]
fn a_build_writes_locally_never_in_ci_and_reruns_when_the_mode_changes() {
    let scratch = Crate::new();
    scratch.model("desc");

    // CI: nothing written, the build fails with the diff and says how to write.
    let ci = scratch.build(&[("CI", "true")]);
    let err = stderr(&ci);
    assert!(!ci.status.success(), "{err}");
    assert!(err.contains("are stale"), "{err}");
    assert!(
        err.contains(r#"+ CREATE INDEX IF NOT EXISTS "posts_keyset_created_at_desc_id_desc""#),
        "{err}"
    );
    assert!(err.contains("KEYSET_MIGRATIONS=write cargo build"), "{err}");
    assert_eq!(scratch.keyset_folders("sqlite"), Vec::<String>::new(), "CI never writes");

    // Locally: written, one folder per backend, and the build says which files to commit.
    let local = scratch.build(&[]);
    let out = stderr(&local);
    assert!(local.status.success(), "{out}");
    for backend in ["sqlite", "postgres", "mysql"] {
        let folders = scratch.keyset_folders(backend);
        assert_eq!(folders.len(), 1, "{backend}: {folders:?}");
        let written = format!(
            "migrations/{backend}/{}/ (up.sql, down.sql): review it and commit it",
            folders[0]
        );
        assert!(out.contains(&written), "{written} in {out}");
    }

    // The next build sees the folders just written (and writes nothing); after it, nothing
    // changed, so the build script does not run again.
    assert!(scratch.build(&[]).status.success());
    let again = scratch.build(&[]);
    assert!(again.status.success() && !ran_build_script(&again), "{}", stderr(&again));
    assert_eq!(scratch.keyset_folders("sqlite").len(), 1);
    // A change of mode alone reruns it: up to date, so CI passes.
    let ci = scratch.build(&[("CI", "true")]);
    assert!(ci.status.success() && ran_build_script(&ci), "{}", stderr(&ci));

    // The model changes: CI fails with the diff; `KEYSET_MIGRATIONS=write` writes, even in CI.
    scratch.model("asc");
    let ci = scratch.build(&[("CI", "1")]);
    let err = stderr(&ci);
    assert!(!ci.status.success(), "{err}");
    assert!(
        err.contains(r#"- CREATE INDEX IF NOT EXISTS "posts_keyset_created_at_desc_id_desc""#),
        "{err}"
    );
    assert!(
        err.contains(r#"+ CREATE INDEX IF NOT EXISTS "posts_keyset_created_at_asc_id_desc""#),
        "{err}"
    );
    assert_eq!(scratch.keyset_folders("sqlite").len(), 1);
    let check = scratch.build(&[("KEYSET_MIGRATIONS", "check")]);
    assert!(!check.status.success(), "KEYSET_MIGRATIONS=check fails locally too");
    let write = scratch.build(&[("CI", "true"), ("KEYSET_MIGRATIONS", "write")]);
    assert!(write.status.success(), "{}", stderr(&write));
    assert_eq!(scratch.keyset_folders("sqlite").len(), 2);
    // A model the derive refuses (here read by build.rs only, so the crate still compiles):
    // locally a warning, and nothing written, where a drop of its index was written before.
    fs::write(
        scratch.root.join("models/post.rs"),
        "#[derive(Keyset)] #[diesel(table_name = posts)] struct Post { #[sort(desc)] id: i64 }",
    )
    .unwrap();
    let local = scratch.build(&[]);
    let out = stderr(&local);
    assert!(local.status.success(), "{out}");
    assert!(out.contains("warning: scratch@0.0.0: keyset wrote no migration"), "{out}");
    assert!(out.contains("`#[derive(Keyset)]` refuses `Post`: the sort order is not"), "{out}");
    assert_eq!(scratch.keyset_folders("sqlite").len(), 2);
    let ci = scratch.build(&[("CI", "true")]);
    assert!(!ci.status.success(), "{}", stderr(&ci));
    assert!(stderr(&ci).contains("keyset wrote and checked no migration"), "{}", stderr(&ci));

    let bad = scratch.build(&[("KEYSET_MIGRATIONS", "always")]);
    assert!(
        stderr(&bad).contains("KEYSET_MIGRATIONS=\"always\" is not a mode"),
        "{}",
        stderr(&bad)
    );
}
