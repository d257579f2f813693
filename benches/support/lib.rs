//! What the benches share: the benchmark tables and their models ([`schema`]), building the
//! 1,000,000-row table (and the joins bench's smaller ones) once per backend ([`seed`]), the
//! pages they time ([`pages`], [`join_pages`]), and the bookkeeping that turns criterion's
//! samples into medians, ratios and CSV files ([`measure`]).

pub mod feed_pages;
pub mod feed_seed;
pub mod join_pages;
pub mod measure;
pub mod order_async;
pub mod order_cursors;
pub mod order_pages;
pub mod order_seed;
pub mod pages;
pub mod schema;
pub mod seed;
pub mod shards;
pub mod start_pages;

use std::path::PathBuf;

/// The PostgreSQL service on this machine (trust auth); `PG_DATABASE_URL` overrides it.
pub const POSTGRES_URL: &str = "postgres://postgres@127.0.0.1:5432/test";

/// The MariaDB service on this machine (root, no password); `MYSQL_DATABASE_URL` overrides it.
pub const MYSQL_URL: &str = "mysql://root@127.0.0.1:3306/test";

/// The environment variable `var`, else `default`.
pub fn database_url(var: &str, default: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| default.to_owned())
}

/// `<cargo target dir>/keyset-bench`: the SQLite database file and the default output folder.
/// The bench binary lives in `<target>/<profile>/deps/`, so the target dir is found from it
/// (`CARGO_TARGET_DIR` when set).
pub fn work_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| {
        let exe = std::env::current_exe().expect("the bench binary's path");
        exe.ancestors().nth(3).expect("<target>/<profile>/deps/<bench>").to_path_buf()
    });
    let dir = target.join("keyset-bench");
    std::fs::create_dir_all(&dir).expect("create <target>/keyset-bench");
    dir
}

/// Where the CSV and Markdown results go: `KEYSET_BENCH_OUT` (`benches/run.sh` sets it to
/// `docs/`), else [`work_dir`].
pub fn out_dir() -> PathBuf {
    let dir = std::env::var_os("KEYSET_BENCH_OUT").map(PathBuf::from).unwrap_or_else(work_dir);
    std::fs::create_dir_all(&dir).expect("create the output folder");
    dir
}
