//! A cached statement gone stale under a schema change, and the one retry it gets.
//!
//! Diesel keeps each connection's prepared statements for the connection's life. When a
//! migration changes the type of a column a page selects (`ALTER TABLE posts ALTER COLUMN title
//! TYPE varchar(300)`), PostgreSQL refuses every later execution of a statement prepared before:
//! `cached plan must not change result type`, on every connection of a pool, until each is
//! closed (a health check's `SELECT 1` passes on them). So a page that fails this way makes its
//! connection forget its prepared statements and runs the statement again, once, freshly
//! prepared: a migration costs no failed page. Should the retry fail too (inside a transaction
//! the first failure aborted, say), the page fails with the first error, and the connection has
//! still forgotten the stale statements, so its next page succeeds.
//!
//! MariaDB re-prepares such statements itself (`ER_NEED_REPREPARE`, retried by the server),
//! and SQLite too (`SQLITE_SCHEMA`); the MariaDB message is matched all the same, should a
//! server hand it on. Diesel reports neither engine's error code, so the message is matched: a
//! server whose `lc_messages` is not English is not retried (its connections recover when the
//! pool recycles them).

use diesel::result::Error;

/// The messages of a statement whose cached plan went stale: PostgreSQL's, and MariaDB's.
const STALE: [&str; 2] =
    ["cached plan must not change result type", "Prepared statement needs to be re-prepared"];

/// Whether `error` is a cached statement gone stale, which a fresh statement would not meet.
pub(crate) fn is_stale_plan(error: &Error) -> bool {
    match error {
        Error::DatabaseError(_, info) => STALE.iter().any(|stale| info.message().contains(stale)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use diesel::result::{DatabaseErrorKind, Error};

    use super::is_stale_plan;

    #[test]
    fn only_a_stale_plan_is_retried() {
        let error = |message: &str| {
            Error::DatabaseError(DatabaseErrorKind::Unknown, Box::new(message.to_owned()))
        };
        assert!(is_stale_plan(&error("cached plan must not change result type")));
        assert!(is_stale_plan(&error("Prepared statement needs to be re-prepared")));
        assert!(!is_stale_plan(&error("canceling statement due to statement timeout")));
        assert!(!is_stale_plan(&Error::NotFound));
    }
}
