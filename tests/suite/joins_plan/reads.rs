//! How a join's plan reads its tables, per engine, for `joins_plan.rs`: SQLite's `EXPLAIN QUERY
//! PLAN` steps, PostgreSQL's text plan and MariaDB's JSON plan, each read as the tables in join
//! order with the index each goes through and whether it seeks there.

use keyset_runtime::migration::Backend;

use crate::suite::orders_plan::backend;

/// How a plan reads one table: through which index (`PRIMARY KEY` for the table's primary key,
/// empty for none), and whether it seeks in it (a `SEARCH`, an `Index Cond`, a `range`/`eq_ref`
/// access) or reads it in order from an end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Read {
    pub(super) table: String,
    pub(super) index: String,
    pub(super) seeks: bool,
}

pub(super) fn read(table: &str, index: &str, seeks: bool) -> Read {
    let index = match index {
        "sqlite_autoindex_authors_1" | "authors_pkey" | "PRIMARY" => "PRIMARY KEY",
        "sqlite_autoindex_posts_1" | "posts_pkey" => "PRIMARY KEY",
        index => index,
    };
    Read { table: table.to_owned(), index: index.to_owned(), seeks }
}

/// The tables a plan reads, in join order (the driving table first).
pub(super) fn reads(plan: &[String]) -> Vec<Read> {
    match backend() {
        Backend::Sqlite => plan.iter().filter_map(|step| sqlite_read(step)).collect(),
        Backend::Postgres => postgres_reads(plan),
        _ => {
            let json: serde_json::Value = serde_json::from_str(&plan.join("\n")).unwrap();
            let mut found = Vec::new();
            mysql_reads(&json, &mut found);
            found
        }
    }
}

/// `SEARCH posts USING INDEX i (created_at=? AND id<?)`, `SCAN posts USING COVERING INDEX i`,
/// `SCAN posts`.
fn sqlite_read(step: &str) -> Option<Read> {
    let (seeks, rest) = match step.split_once(' ')? {
        ("SEARCH", rest) => (true, rest),
        ("SCAN", rest) => (false, rest),
        _ => return None,
    };
    let (table, how) = rest.split_once(' ').unwrap_or((rest, ""));
    let index = how.split_once("INDEX ").map_or("", |(_, index)| index.split(' ').next().unwrap());
    let index = if how.contains("PRIMARY KEY") { "PRIMARY" } else { index };
    Some(read(table, index, seeks))
}

/// `Index Scan using i on posts` (or `Backward`, `Index Only Scan`, `Seq Scan on posts`),
/// seeking when an `Index Cond` follows before the next node. (`postgres_index_seek` takes any
/// `Index Cond` for the seek, the authors' lookup's too: which table seeks is read here.)
fn postgres_reads(plan: &[String]) -> Vec<Read> {
    let mut found: Vec<Read> = Vec::new();
    for line in plan {
        let line = line.trim_start().trim_start_matches("->").trim_start();
        // `Index Scan using i on t`, `Index Scan Backward using i on t`, `Index Only Scan ..`.
        if let Some((_, rest)) = line.split_once(" using ").filter(|_| line.contains("Scan")) {
            let (index, rest) = rest.split_once(" on ").unwrap();
            found.push(read(rest.split(' ').next().unwrap(), index, false));
        } else if let Some(rest) = line.strip_prefix("Seq Scan on ") {
            found.push(read(rest.split(' ').next().unwrap(), "", false));
        } else if line.starts_with("Index Cond:") {
            found.last_mut().unwrap().seeks = true;
        }
    }
    found
}

/// Every `"table"` object of MariaDB's JSON plan, in the order the plan nests them.
fn mysql_reads(node: &serde_json::Value, found: &mut Vec<Read>) {
    match node {
        serde_json::Value::Object(fields) => {
            if let (Some(table), Some(access)) =
                (fields.get("table_name"), fields.get("access_type"))
            {
                let access = access.as_str().unwrap();
                let index = fields.get("key").and_then(|key| key.as_str()).unwrap_or("");
                let seeks = ["range", "eq_ref", "ref", "const"].contains(&access);
                found.push(read(table.as_str().unwrap(), index, seeks));
            }
            fields.values().for_each(|value| mysql_reads(value, found));
        }
        serde_json::Value::Array(values) => {
            values.iter().for_each(|value| mysql_reads(value, found))
        }
        _ => {}
    }
}
