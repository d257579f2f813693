//! Per-backend choice of the seek predicate's SQL shape.

use diesel::backend::Backend;

/// How a backend wants the seek predicate written. Implemented for each backend feature enabled.
pub trait SeekDialect: Backend {
    /// Whether a row-value comparison `(a, b) < (?, ?)` is an exact index seek here, and so the
    /// best shape when every key has the same direction. Where it is not (or not portable), the
    /// OR expansion with a leading bound is used.
    const ROW_VALUES: bool;
}

/// SQLite seeks with both shapes, but with a rowid (`INTEGER PRIMARY KEY`) tiebreaker the row-value
/// seek uses only the leading column, scanning the whole tie group; the OR expansion with a
/// leading bound seeks on every column.
#[cfg(feature = "sqlite")]
impl SeekDialect for diesel::sqlite::Sqlite {
    const ROW_VALUES: bool = false;
}

/// PostgreSQL turns a row value into an exact `Index Cond` on every column: nothing is filtered
/// after the seek. (For mixed directions no row value exists, and the OR expansion with a leading
/// bound is used.)
#[cfg(feature = "postgres")]
impl SeekDialect for diesel::pg::Pg {
    const ROW_VALUES: bool = true;
}

/// MySQL and MariaDB cannot range-scan a row-value comparison (`(a, b) < (?, ?)` reads every row
/// before the cursor); the OR expansion becomes an exact multi-column range.
#[cfg(feature = "mysql")]
impl SeekDialect for diesel::mysql::Mysql {
    const ROW_VALUES: bool = false;
}
