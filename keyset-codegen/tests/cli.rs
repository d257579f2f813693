//! The `keyset-migrations` binary on a scratch project: `check` exits 1 with the diff while the
//! migrations lag the models, `write` writes and names the folder, then `check` passes; a model
//! the derive refuses makes both exit 1 and write nothing.

use std::fs;
use std::path::PathBuf;
use std::process::{Command, Output};

fn run(root: &PathBuf, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_keyset-migrations"))
        .args(args)
        .args(["--backend", "mysql", "--dir", "migrations", "--source", "models.rs"])
        .current_dir(root)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn check_fails_until_write_has_written() {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("keyset-cli-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    fs::create_dir_all(root.join("migrations/2024-01-01-000000_create_posts")).unwrap();
    fs::write(
        root.join("migrations/2024-01-01-000000_create_posts/up.sql"),
        "CREATE TABLE `posts` (id BIGINT);",
    )
    .unwrap();
    fs::write(
        root.join("models.rs"),
        "#[derive(Keyset)] #[diesel(table_name = posts)]
         struct Post { #[sort(desc)] #[tiebreaker] id: i64 }",
    )
    .unwrap();

    let check = run(&root, &["check"]);
    assert_eq!(check.status.code(), Some(1), "{}", text(&check.stderr));
    assert!(text(&check.stderr)
        .contains("+ CREATE INDEX `posts_keyset_id_desc` ON `posts` (`id` DESC);"));

    let write = run(&root, &["write"]);
    assert!(write.status.success(), "{}", text(&write.stderr));
    assert!(
        text(&write.stdout).contains("_keyset_indexes: review it and commit it"),
        "{}",
        text(&write.stdout)
    );

    let check = run(&root, &["check"]);
    assert!(check.status.success(), "{}", text(&check.stderr));
    assert_eq!(text(&check.stdout), "the migrations are up to date\n");

    // No tiebreaker: the derive refuses the model. Neither command writes a migration (which
    // would drop its index); both fail and say why.
    fs::write(
        root.join("models.rs"),
        "#[derive(Keyset)] #[diesel(table_name = posts)]
         struct Post { #[sort(desc)] id: i64 }",
    )
    .unwrap();
    let folders = || fs::read_dir(root.join("migrations")).unwrap().count();
    for command in ["write", "check"] {
        let refused = run(&root, &[command]);
        let err = text(&refused.stderr);
        assert_eq!(refused.status.code(), Some(1), "{command}: {err}");
        assert!(err.contains("keyset wrote and checked no migration"), "{command}: {err}");
        assert!(err.contains("models.rs: `#[derive(Keyset)]` refuses `Post`: "), "{err}");
        assert!(err.contains("no field is marked `#[tiebreaker]`"), "{command}: {err}");
        assert_eq!(text(&refused.stdout), "", "{command}");
        assert_eq!(folders(), 2, "{command} wrote nothing");
    }

    let usage = run(&root, &["apply"]);
    assert_eq!(usage.status.code(), Some(2));
    assert!(text(&usage.stderr).contains("usage: keyset-migrations <write|check>"));
    fs::remove_dir_all(&root).unwrap();
}
