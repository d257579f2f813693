//! `keyset-migrations`: writes or checks the index migrations once, for teams that keep build
//! scripts out of it. The same writer as `Migrations::write_for_build`, driven by arguments.
//!
//! ```text
//! keyset-migrations write --backend postgres [--dir migrations] [--source src]..
//!                         [--concurrently] [--table-created-elsewhere TABLE]..
//! keyset-migrations check --backend postgres ..
//! ```

use std::process::ExitCode;

use keyset_codegen::{Backend, Migrations};

const USAGE: &str = "usage: keyset-migrations <write|check> --backend <sqlite|postgres|mysql> \
     [--dir DIR (default migrations)] [--source PATH (default src; repeatable)] \
     [--concurrently] [--table-created-elsewhere TABLE (repeatable)]";

/// What the command line asks for.
#[derive(Debug)]
struct Command {
    write: bool,
    migrations: Migrations,
}

fn parse(args: impl IntoIterator<Item = String>) -> Result<Command, String> {
    let mut args = args.into_iter();
    let write = match args.next().as_deref() {
        Some("write") => true,
        Some("check") => false,
        Some(other) => return Err(format!("unknown command `{other}`: write `write` or `check`")),
        None => return Err("missing command: write `write` or `check`".to_owned()),
    };
    let (mut backend, mut dir, mut sources, mut concurrently, mut elsewhere) =
        (None, None, Vec::new(), false, Vec::new());
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("`{flag}` needs a value"));
        match flag.as_str() {
            "--backend" => backend = Some(value()?.parse::<Backend>()?),
            "--dir" => dir = Some(value()?),
            "--source" => sources.push(value()?),
            "--table-created-elsewhere" => elsewhere.push(value()?),
            "--concurrently" => concurrently = true,
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    let backend = backend.ok_or("missing `--backend sqlite|postgres|mysql`")?;
    if sources.is_empty() {
        sources.push("src".to_owned());
    }
    let mut migrations = Migrations::new(backend, dir.unwrap_or_else(|| "migrations".to_owned()));
    for source in sources {
        migrations = migrations.source(source);
    }
    for table in elsewhere {
        migrations = migrations.table_created_elsewhere(table);
    }
    if concurrently {
        migrations = migrations.concurrently();
    }
    Ok(Command { write, migrations })
}

fn main() -> ExitCode {
    let command = match parse(std::env::args().skip(1)) {
        Ok(command) => command,
        Err(err) => {
            eprintln!("error: {err}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let result = if command.write {
        command.migrations.write().map(|written| {
            for folder in &written.folders {
                println!("wrote {}: review it and commit it", folder.display());
            }
            for (table, indexes) in &written.waiting {
                let names: Vec<&str> = indexes.keys().map(String::as_str).collect();
                println!(
                    "waiting: {} (no migration creates the table `{table}` yet; add it, or pass \
                     --table-created-elsewhere {table})",
                    names.join(", ")
                );
            }
            for (order, why) in &written.unindexed {
                println!("no index for `{order}`: it {why}");
            }
            if written.folders.is_empty() && written.waiting.is_empty() {
                println!("the migrations are up to date");
            }
        })
    } else {
        command.migrations.check().map(|()| println!("the migrations are up to date"))
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn parses_every_argument() {
        let command = parse(args(
            "write --backend mariadb --dir db/migrations --source src/models.rs --source src/api \
             --table-created-elsewhere legacy --concurrently",
        ))
        .unwrap();
        assert!(command.write);
        let shown = format!("{:?}", command.migrations);
        for part in ["Mysql", "db/migrations", "src/models.rs", "src/api", "legacy", "Concurrently"]
        {
            assert!(shown.contains(part), "{part} in {shown}");
        }
        let command = parse(args("check --backend pg")).unwrap();
        assert!(!command.write);
        assert!(format!("{:?}", command.migrations).contains("\"src\""));
    }

    #[test]
    fn mistakes_say_what_to_write() {
        for (line, message) in [
            ("", "missing command: write `write` or `check`"),
            ("apply --backend pg", "unknown command `apply`: write `write` or `check`"),
            ("write", "missing `--backend sqlite|postgres|mysql`"),
            (
                "write --backend oracle",
                "unknown backend `oracle`: write `sqlite`, `postgres` or `mysql`",
            ),
            ("write --backend pg --dir", "`--dir` needs a value"),
            ("write --backend pg --force", "unknown argument `--force`"),
        ] {
            assert_eq!(parse(args(line)).unwrap_err(), message, "{line}");
        }
    }
}
