//! [`Engine`]: the database a decoded cursor is bound on, and what each engine's types can hold.
//!
//! A token decodes to any value its key's Rust type can hold, and some of those no column of the
//! key's SQL type can: a client may edit a token so that a text key holds a NUL character, or a
//! timestamp lies in the year −5000. Bound as they are, PostgreSQL refuses the first
//! (`invalid byte sequence for encoding "UTF8": 0x00`) and the second (`timestamp out of range`),
//! and Diesel refuses to send a negative year to MySQL: each a database error, the server's fault
//! in every handler's eyes, for what is the client's. So before a page runs, its cursor is
//! checked against the engine it is bound on ([`CursorValue::check_bind`](super::CursorValue::check_bind)) and such a value is a
//! [`CursorError`] (400). A value that the engine can hold never is: every token a server issued
//! for one of its rows still reads.

use super::error::CursorError;

/// The database engine a cursor's values are bound on: what
/// [`CursorValue::check_bind`](super::CursorValue::check_bind) checks a decoded value against, before any statement runs.
///
/// You meet it only when implementing [`CursorValue`](super::CursorValue) for a type of your own that is written as
/// a text, a float or a date and time: hand the check on to the type it is written as.
///
/// ```
/// use keyset_runtime::token::{CursorValue, Engine, Reader, Writer};
/// use keyset_runtime::CursorError;
///
/// /// A slug, bound to SQL as its `String`.
/// #[derive(Debug, Clone, PartialEq)]
/// struct Slug(String);
///
/// impl CursorValue for Slug {
///     fn write(&self, out: &mut Writer) {
///         self.0.write(out);
///     }
///     fn read(input: &mut Reader<'_>) -> Result<Self, CursorError> {
///         String::read(input).map(Slug)
///     }
///     fn check_bind(&self, engine: Engine) -> Result<(), CursorError> {
///         self.0.check_bind(engine)
///     }
/// }
///
/// // PostgreSQL's text holds no NUL character; SQLite's does.
/// let forged = Slug("a\0b".to_owned());
/// assert!(forged.check_bind(Engine::Postgres).is_err());
/// assert!(forged.check_bind(Engine::Sqlite).is_ok());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Engine {
    /// SQLite.
    Sqlite,
    /// PostgreSQL.
    Postgres,
    /// MySQL and MariaDB.
    Mysql,
}

impl Engine {
    /// The engine's name, as an error message shows it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Engine::Sqlite => "SQLite",
            Engine::Postgres => "PostgreSQL",
            Engine::Mysql => "MySQL and MariaDB",
        }
    }
}

/// A value `engine` cannot hold as `what`: the client's token, refused before any query.
pub(crate) fn unbindable(engine: Engine, what: &str) -> CursorError {
    CursorError::InvalidValues(format!("{what}, which {} cannot hold", engine.name()))
}

#[cfg(any(feature = "chrono", feature = "time"))]
/// PostgreSQL's earliest `timestamp` (and `date`): 4714-11-24 BC, its Julian day 0, in seconds
/// since 1970 (`MIN_TIMESTAMP` in its source, there in microseconds since 2000).
const PG_MIN_SECONDS: i64 = -210_866_803_200;
#[cfg(any(feature = "chrono", feature = "time"))]
/// The first instant past PostgreSQL's latest `timestamp`: 294277-01-01 (`END_TIMESTAMP`).
const PG_END_SECONDS: i64 = 9_224_318_016_000;
#[cfg(any(feature = "chrono", feature = "time"))]
/// PostgreSQL's earliest `date`, Julian day 0, as days from the common era (0001-01-01 is day 1).
pub(crate) const PG_MIN_DAYS_FROM_CE: i64 = -1_721_425;

#[cfg(any(feature = "chrono", feature = "time"))]
/// MySQL's and MariaDB's earliest `DATETIME`, 0000-01-01, in seconds since 1970.
const MYSQL_MIN_SECONDS: i64 = -62_167_219_200;
#[cfg(any(feature = "chrono", feature = "time"))]
/// The first instant past their latest, 10000-01-01.
const MYSQL_END_SECONDS: i64 = 253_402_300_800;

#[cfg(any(feature = "chrono", feature = "time"))]
/// Checks an instant, as UTC seconds since 1970 and nanoseconds (at least 10⁹ in a leap
/// second), against `engine`'s `timestamp` (`datetime`).
pub(crate) fn check_instant(engine: Engine, seconds: i64, nanos: u32) -> Result<(), CursorError> {
    let range = match engine {
        // Bound as text (`%F %T%.f`), which any year writes.
        Engine::Sqlite => return Ok(()),
        Engine::Postgres => PG_MIN_SECONDS..PG_END_SECONDS,
        Engine::Mysql => MYSQL_MIN_SECONDS..MYSQL_END_SECONDS,
    };
    if !range.contains(&seconds) {
        let years = if engine == Engine::Postgres { "4714 BC to 294276 AD" } else { "0 to 9999" };
        return Err(unbindable(engine, &format!("a timestamp outside the years {years}")));
    }
    match engine {
        Engine::Mysql => no_leap_second(engine, nanos),
        _ => Ok(()),
    }
}

#[cfg(any(feature = "chrono", feature = "time"))]
/// Checks a date, as days from the common era and its year, against `engine`'s `date`.
pub(crate) fn check_date(engine: Engine, days_from_ce: i64, year: i32) -> Result<(), CursorError> {
    match engine {
        Engine::Sqlite => Ok(()),
        Engine::Postgres if days_from_ce < PG_MIN_DAYS_FROM_CE => {
            Err(unbindable(engine, "a date before 4714-11-24 BC"))
        }
        Engine::Postgres => Ok(()),
        Engine::Mysql => check_mysql_year(year, "a date"),
    }
}

#[cfg(feature = "chrono")]
/// Checks a time of day's nanoseconds (at least 10⁹ in a leap second) against `engine`'s `time`:
/// chrono's `NaiveTime` holds a leap second, the time crate's `Time` does not.
pub(crate) fn check_time(engine: Engine, nanos: u32) -> Result<(), CursorError> {
    match engine {
        Engine::Sqlite => Ok(()),
        Engine::Postgres | Engine::Mysql => no_leap_second(engine, nanos),
    }
}

#[cfg(any(feature = "chrono", feature = "time"))]
/// MySQL's and MariaDB's `DATETIME` and `DATE` hold the years 0 to 9999.
fn check_mysql_year(year: i32, what: &str) -> Result<(), CursorError> {
    match year {
        0..=9999 => Ok(()),
        _ => Err(unbindable(Engine::Mysql, &format!("{what} outside the years 0 to 9999"))),
    }
}

#[cfg(any(feature = "chrono", feature = "time"))]
/// A leap second (chrono's nanoseconds of 10⁹ and more) is a 61st second of a minute, which
/// PostgreSQL's `time` and MySQL's types refuse (no row of theirs reads as one).
fn no_leap_second(engine: Engine, nanos: u32) -> Result<(), CursorError> {
    match nanos {
        0..1_000_000_000 => Ok(()),
        _ => Err(unbindable(engine, "a leap second")),
    }
}

#[cfg(all(test, any(feature = "chrono", feature = "time")))]
mod tests {
    use super::*;

    #[test]
    fn postgres_timestamps_end_where_postgres_says() {
        let check = |seconds| check_instant(Engine::Postgres, seconds, 0);
        assert_eq!(check(PG_MIN_SECONDS), Ok(()));
        assert!(check(PG_MIN_SECONDS - 1).is_err());
        assert_eq!(check(PG_END_SECONDS - 1), Ok(()));
        assert!(check(PG_END_SECONDS).is_err());
        assert_eq!(check_instant(Engine::Sqlite, i64::MIN, 2_000_000_000), Ok(()));
        assert_eq!(check_date(Engine::Postgres, PG_MIN_DAYS_FROM_CE, -4713), Ok(()));
        assert!(check_date(Engine::Postgres, PG_MIN_DAYS_FROM_CE - 1, -4713).is_err());
    }

    #[test]
    fn mysql_holds_the_years_0_to_9999_and_no_leap_second() {
        let check = |seconds, nanos| check_instant(Engine::Mysql, seconds, nanos);
        assert_eq!(check(MYSQL_MIN_SECONDS, 0), Ok(()));
        assert_eq!(check(MYSQL_END_SECONDS - 1, 999_999_999), Ok(()));
        assert!(check(MYSQL_MIN_SECONDS - 1, 0).is_err());
        assert!(check(MYSQL_END_SECONDS, 0).is_err());
        assert!(check(0, 1_000_000_000).is_err());
        assert_eq!(check_date(Engine::Mysql, 1, 1), Ok(()));
        let error = check_date(Engine::Mysql, 0, -5000).unwrap_err();
        assert!(error.to_string().contains("MySQL and MariaDB cannot hold"), "{error}");
    }

    #[cfg(feature = "chrono")]
    #[test]
    fn times_refuse_leap_seconds_where_the_engine_does() {
        assert!(check_time(Engine::Postgres, 1_000_000_000).is_err());
        assert!(check_time(Engine::Mysql, 1_500_000_000).is_err());
        assert_eq!(check_time(Engine::Sqlite, 1_500_000_000), Ok(()));
        assert_eq!(check_time(Engine::Postgres, 999_999_999), Ok(()));
    }
}
