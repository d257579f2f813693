//! The indexes a model's sort order needs, and their DDL on each backend. Shared by the derive
//! (which puts the DDL on the model as constants) and the build-time migration writer, so the
//! two can never disagree.
//!
//! Keyset pagination is only constant-cost with an index whose columns and directions match the
//! ORDER BY (or its exact reverse). The index holds the sort keys in order, each with its
//! direction, and the NULL placement of nullable keys where the engine's indexes declare one
//! (PostgreSQL); a tiebreaker vouched for with `#[tiebreaker(unique)]` also gets a unique index,
//! which makes the claim true.
//!
//! A listing filtered by equality on another column (`author_id = 7`) reads, with the order's
//! index alone, every row of the order and discards those of other values. Each
//! `#[keyset(prefix(..))]` adds, for each order, the index led by its columns (ascending: an
//! equality is served in either direction), then the order's keys: a filtered page seeks it, and
//! a page among a set of values seeks it once per value.

use crate::attr::{Direction, Nulls};
use crate::model::{Model, SortKey};

/// A backend that migrations are written for: each has its own migrations directory, since the
/// DDL differs (quoting, `NULLS LAST`, `IF NOT EXISTS`, `DROP INDEX .. ON`).
///
/// ```
/// use keyset_codegen::Backend;
///
/// assert_eq!("postgres".parse::<Backend>().unwrap(), Backend::Postgres);
/// assert_eq!("mariadb".parse::<Backend>().unwrap(), Backend::Mysql);
/// for backend in Backend::ALL {
///     println!("migrations/{}", backend.name());
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Backend {
    /// SQLite.
    Sqlite,
    /// PostgreSQL.
    Postgres,
    /// MySQL and MariaDB.
    Mysql,
}

impl std::str::FromStr for Backend {
    type Err = String;

    /// `sqlite`, `postgres` (or `postgresql`, `pg`), `mysql` (or `mariadb`), in any case.
    fn from_str(name: &str) -> Result<Backend, String> {
        match name.to_ascii_lowercase().as_str() {
            "sqlite" => Ok(Backend::Sqlite),
            "postgres" | "postgresql" | "pg" => Ok(Backend::Postgres),
            "mysql" | "mariadb" => Ok(Backend::Mysql),
            _ => Err(format!("unknown backend `{name}`: write `sqlite`, `postgres` or `mysql`")),
        }
    }
}

impl Backend {
    /// Every backend, for a build script that writes migrations for each.
    pub const ALL: [Backend; 3] = [Backend::Sqlite, Backend::Postgres, Backend::Mysql];

    /// The longest identifier the engine accepts (SQLite has no limit; keep names portable).
    fn max_identifier(self) -> usize {
        match self {
            Backend::Postgres => 63,
            Backend::Mysql | Backend::Sqlite => 64,
        }
    }

    /// The backend's lower-case name, as used for migration folders.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
            Backend::Mysql => "mysql",
        }
    }
}

/// One column of an index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct IndexColumn {
    pub name: String,
    pub direction: Direction,
    pub nulls: Option<Nulls>,
}

/// An index a model needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Index {
    pub table: String,
    pub columns: Vec<IndexColumn>,
    pub unique: bool,
}

/// How an index is created: in a transaction like any DDL, or (PostgreSQL) `CONCURRENTLY`,
/// which does not lock the table against writes but must run outside a transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum Creation {
    #[default]
    Plain,
    Concurrently,
}

impl Index {
    /// The indexes `model` needs: one per distinct sort order (the field order's and each named
    /// one's; an order and its exact reverse share one, which the engine reads backwards), one
    /// per order and declared equality prefix, two for an order led by a joined table's keys
    /// (one on each table), and a unique one for a `#[tiebreaker(unique)]` column.
    pub(crate) fn for_model(model: &Model) -> Vec<Index> {
        let table = model.table_name();
        let mut indexes: Vec<Index> = Vec::new();
        // An order with a key of a joined table has no index on the model's table (see
        // `unserved`): none is written rather than one that serves a prefix and sorts the rest.
        for keys in model.indexed_orders() {
            let index = Index { table: table.clone(), columns: key_columns(keys), unique: false };
            if !indexes.iter().any(|known| known.serves(&index, 0)) {
                indexes.push(index);
            }
        }
        // After the orders' own: an order led by `author_id` already serves `prefix(author_id)`
        // for an order of its other keys.
        for prefix in &model.prefixes {
            // An order that sorts by a prefix column gets no index of that prefix: an index
            // holds a column once (`valid` refuses a column every order sorts by).
            let free = |keys: &&[SortKey]| !keys.iter().any(|key| prefix.contains(&key.column));
            for keys in model.indexed_orders().filter(free) {
                let equal = prefix.iter().map(|ident| IndexColumn {
                    name: column(ident),
                    direction: Direction::Asc,
                    nulls: None,
                });
                let columns = equal.chain(key_columns(keys)).collect();
                let index = Index { table: table.clone(), columns, unique: false };
                if !indexes.iter().any(|known| known.serves(&index, prefix.len())) {
                    indexes.push(index);
                }
            }
        }
        // An order led by a joined table's keys, which end with its primary key (the types check
        // it): that table's index of them, unique as they end with its primary key (SQLite then
        // knows each entry is one row, and reads each one's rows in the order of the model's index
        // instead of sorting them); and per prefix, the model's index of the prefix and the
        // order's own keys, which each joined row's rows are read by.
        for (joined, own) in model.joined_orders() {
            let joined_table = joined[0].joined.as_ref().and_then(|path| path.segments.last());
            if let (Some(joined_table), true) = (joined_table, joined.len() > 1) {
                let table = column(&joined_table.ident);
                let index = Index { table, columns: key_columns(joined), unique: true };
                if !indexes.iter().any(|known| known.serves(&index, 0)) {
                    indexes.push(index);
                }
            }
            for prefix in &model.prefixes {
                if own.iter().any(|key| prefix.contains(&key.column)) {
                    continue;
                }
                let equal = prefix.iter().map(|ident| IndexColumn {
                    name: column(ident),
                    direction: Direction::Asc,
                    nulls: None,
                });
                let columns = equal.chain(key_columns(own)).collect();
                let index = Index { table: table.clone(), columns, unique: false };
                if !indexes.iter().any(|known| known.serves(&index, prefix.len())) {
                    indexes.push(index);
                }
            }
        }
        let every_key = model.keys.iter().chain(model.orders.iter().flat_map(|o| &o.keys));
        for key in every_key.filter(|key| key.tiebreaker.as_ref().is_some_and(|t| t.unique)) {
            let unique = Index {
                table: table.clone(),
                columns: vec![IndexColumn {
                    name: column(&key.column),
                    direction: Direction::Asc,
                    nulls: None,
                }],
                unique: true,
            };
            // Sorted by the unique column alone: its unique index is the sort index.
            indexes.retain(|index| {
                index.columns.len() > 1 || index.columns[0].name != unique.columns[0].name
            });
            if !indexes.contains(&unique) {
                indexes.push(unique);
            }
        }
        indexes
    }

    /// The orders of `model` that no index can serve, in words (`posts: authors.name ASC, id
    /// ASC`), each with why: they sort by a column of another table and the struct keeps them
    /// as they are (`reads_and_sorts`), so every page reads the rows the join matches past the
    /// cursor and sorts them.
    pub(crate) fn unserved(model: &Model) -> Vec<(String, String)> {
        // The derive refuses every other order of joined keys: those left are served.
        if model.reads_and_sorts.is_none() {
            return Vec::new();
        }
        let orders =
            std::iter::once(&model.keys[..]).chain(model.orders.iter().map(|o| &o.keys[..]));
        let mut unserved = Vec::new();
        for keys in orders {
            let Some(joined) = keys.iter().find(|key| key.joined.is_some()) else { continue };
            let keys: Vec<&SortKey> = keys.iter().collect();
            let why = format!(
                "sorts by `{}`, a column of another table, and is kept with \
                 `#[keyset(reads_and_sorts)]`: no index serves this order, so each page reads \
                 the rows the join matches past the cursor and sorts them",
                joined.column_name(),
            );
            unserved.push((model.signature(&keys, false), why));
        }
        unserved
    }

    /// Whether this index serves `other`'s order, whose first `equal` columns are an equality
    /// prefix: the same columns, with the same directions and NULL placements, or all of them
    /// reversed (read backwards); of the equality prefix only the columns matter, in any order
    /// and direction, since each is one value.
    fn serves(&self, other: &Index, equal: usize) -> bool {
        let flipped = |column: &IndexColumn| IndexColumn {
            name: column.name.clone(),
            direction: match column.direction {
                Direction::Asc => Direction::Desc,
                Direction::Desc => Direction::Asc,
            },
            nulls: column.nulls.map(|nulls| match nulls {
                Nulls::First => Nulls::Last,
                Nulls::Last => Nulls::First,
            }),
        };
        if self.table != other.table
            || self.unique != other.unique
            || self.columns.len() != other.columns.len()
        {
            return false;
        }
        let (prefix, keys) = self.columns.split_at(equal);
        let (other_prefix, other_keys) = other.columns.split_at(equal);
        let mut names: Vec<&str> = prefix.iter().map(|column| column.name.as_str()).collect();
        let mut other_names: Vec<&str> = other_prefix.iter().map(|c| c.name.as_str()).collect();
        names.sort_unstable();
        other_names.sort_unstable();
        names == other_names
            && (keys == other_keys || keys.iter().map(flipped).eq(other_keys.iter().cloned()))
    }

    /// A deterministic, readable name within every engine's identifier limit:
    /// `posts_keyset_created_at_desc_id_desc`, or a prefix of it with a hash when too long.
    pub(crate) fn name(&self) -> String {
        let mut name = format!("{}_keyset", self.table);
        // A one-column unique index (a `#[tiebreaker(unique)]`) is named by its column alone; a
        // longer one (a joined table's keys) by its columns' directions, then `_unique`.
        let single_unique = self.unique && self.columns.len() == 1;
        for column in &self.columns {
            name.push('_');
            name.push_str(&column.name);
            if single_unique {
                name.push_str("_unique");
                continue;
            }
            name.push_str(match column.direction {
                Direction::Asc => "_asc",
                Direction::Desc => "_desc",
            });
            match column.nulls {
                Some(Nulls::First) => name.push_str("_nulls_first"),
                Some(Nulls::Last) => name.push_str("_nulls_last"),
                None => {}
            }
        }
        if self.unique && !single_unique {
            name.push_str("_unique");
        }
        let limit = Backend::ALL.iter().map(|b| b.max_identifier()).min().unwrap_or(63);
        if name.len() <= limit {
            return name;
        }
        let hash = format!("_{:08x}", fnv1a(&name) as u32);
        let mut cut = limit - hash.len();
        while !name.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}{hash}", &name[..cut])
    }

    /// `CREATE INDEX ..` for `backend`.
    pub(crate) fn create_sql(&self, backend: Backend, creation: Creation) -> String {
        let columns: Vec<String> = self
            .columns
            .iter()
            .map(|column| {
                let mut sql =
                    format!("{} {}", quote(backend, &column.name), column.direction.sql());
                // Only PostgreSQL indexes declare a NULL placement; SQLite rejects the clause and
                // MySQL/MariaDB have no such syntax (their indexes sort NULLs first ascending).
                if backend == Backend::Postgres {
                    match column.nulls {
                        Some(Nulls::First) => sql.push_str(" NULLS FIRST"),
                        Some(Nulls::Last) => sql.push_str(" NULLS LAST"),
                        None => {}
                    }
                }
                sql
            })
            .collect();
        let unique = if self.unique { "UNIQUE " } else { "" };
        let concurrently = if backend == Backend::Postgres && creation == Creation::Concurrently {
            "CONCURRENTLY "
        } else {
            ""
        };
        // MySQL has no `IF NOT EXISTS` for indexes (MariaDB does); the migration runs once anyway.
        let if_not_exists = if backend == Backend::Mysql { "" } else { "IF NOT EXISTS " };
        format!(
            "CREATE {unique}INDEX {concurrently}{if_not_exists}{} ON {} ({});",
            quote(backend, &self.name()),
            quote(backend, &self.table),
            columns.join(", ")
        )
    }

    /// `DROP INDEX ..` for `backend`.
    pub(crate) fn drop_sql(&self, backend: Backend, creation: Creation) -> String {
        drop_statement(backend, creation, &self.name(), &self.table)
    }
}

/// An index's columns for the order of `keys`: each key's column, direction and NULL placement.
fn key_columns(keys: &[SortKey]) -> Vec<IndexColumn> {
    let column = |key: &SortKey| IndexColumn {
        name: column(&key.column),
        direction: key.direction(),
        nulls: key.nulls(),
    };
    keys.iter().map(column).collect()
}

/// A column's name in SQL: the identifier without a raw identifier's `r#`.
fn column(ident: &syn::Ident) -> String {
    ident.to_string().trim_start_matches("r#").to_owned()
}

/// `DROP INDEX name` (MySQL: `.. ON table`, which it requires).
pub(crate) fn drop_statement(
    backend: Backend,
    creation: Creation,
    name: &str,
    table: &str,
) -> String {
    let name = quote(backend, name);
    match backend {
        Backend::Mysql => format!("DROP INDEX {name} ON {};", quote(backend, table)),
        Backend::Postgres if creation == Creation::Concurrently => {
            format!("DROP INDEX CONCURRENTLY IF EXISTS {name};")
        }
        _ => format!("DROP INDEX IF EXISTS {name};"),
    }
}

/// An identifier quoted for `backend`.
pub(crate) fn quote(backend: Backend, identifier: &str) -> String {
    match backend {
        Backend::Mysql => format!("`{}`", identifier.replace('`', "``")),
        Backend::Postgres | Backend::Sqlite => format!("\"{}\"", identifier.replace('"', "\"\"")),
    }
}

fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
