//! Reports which server suites this build of the tests runs, and fails when a built suite's
//! server cannot be reached (CI must never pass by skipping a backend).
//!
//! `cargo test --workspace` builds the SQLite suite only: the server suites link client libraries
//! a fresh machine lacks. `.ci/run` installs them and runs
//! `cargo test -p keyset-tests --features postgres,mysql`.

fn main() {
    let mut unreachable = Vec::new();
    for (suite, built, var, default) in [
        ("postgres", cfg!(feature = "postgres"), "PG_DATABASE_URL", keyset_tests::POSTGRES_URL),
        ("mysql", cfg!(feature = "mysql"), "MYSQL_DATABASE_URL", keyset_tests::MYSQL_URL),
    ] {
        let url = keyset_tests::database_url(var, default);
        if !built {
            println!(
                "the {suite} suite is not in this build: run it with \
                 `cargo test -p keyset-tests --features {suite} --test {suite}` ({var}, default {default})"
            );
        } else if let Err(err) = reachable(suite, &url) {
            println!("the {suite} suite cannot reach {url}: {err}");
            unreachable.push(suite);
        } else {
            println!("the {suite} suite is in this build and {url} answers");
        }
    }
    if !unreachable.is_empty() {
        std::process::exit(1);
    }
}

#[allow(unused_variables)]
fn reachable(suite: &str, url: &str) -> Result<(), String> {
    match suite {
        #[cfg(feature = "postgres")]
        "postgres" => <diesel::PgConnection as diesel::Connection>::establish(url)
            .map(drop)
            .map_err(|e| e.to_string()),
        #[cfg(feature = "mysql")]
        "mysql" => <diesel::MysqlConnection as diesel::Connection>::establish(url)
            .map(drop)
            .map_err(|e| e.to_string()),
        _ => Ok(()),
    }
}
