//! A statement Diesel's instrumentation showed, run again: its SQL split at the placeholders
//! (`?` on SQLite and MariaDB, `$1` on PostgreSQL) and its binds read back from their `Debug`
//! forms, so that `plan.rs` can explain exactly what a page ran, with the values it ran with.

use std::marker::PhantomData;

use chrono::NaiveDateTime;
use diesel::expression::TypedExpressionType;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::{BigInt, SqlType, Timestamp};
use diesel::{QueryResult, RunQueryDsl};

use crate::suite::orders_plan::DB;
use crate::Conn;

/// A bound value of a recorded statement, as Diesel's instrumentation shows it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Bind {
    Int(i64),
    Time(NaiveDateTime),
    /// An array (PostgreSQL's set of values).
    Ints(Vec<i64>),
}

/// A statement as the instrumentation showed it, split to be run again: its SQL around the
/// placeholders (one more piece than binds), and the binds in order.
#[derive(Debug, Clone)]
pub(crate) struct Recorded {
    pub(crate) sql: Vec<String>,
    pub(crate) binds: Vec<Bind>,
}

impl Recorded {
    /// `SELECT .. = ? ..` or `.. = $1 ..`, then ` -- binds: [1, 2023-11-14T22:13:32.000012, ..]`.
    pub(crate) fn parse(shown: &str) -> Recorded {
        let (text, binds) = shown.split_once(" -- binds: ").expect("a statement with its binds");
        let mut sql = vec![String::new()];
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '?' => sql.push(String::new()),
                '$' if chars.peek().is_some_and(char::is_ascii_digit) => {
                    while chars.peek().is_some_and(char::is_ascii_digit) {
                        chars.next();
                    }
                    sql.push(String::new());
                }
                c => sql.last_mut().unwrap().push(c),
            }
        }
        let inner = binds.trim().strip_prefix('[').and_then(|b| b.strip_suffix(']')).unwrap();
        let binds: Vec<Bind> = split_top(inner).into_iter().map(bind).collect();
        assert_eq!(sql.len(), binds.len() + 1, "a placeholder per bind: {shown}");
        Recorded { sql, binds }
    }
}

/// A recorded statement run again behind `prefix` (`EXPLAIN ..`), with its binds, read as rows
/// of `ST`.
pub(crate) struct Again<'a, ST> {
    prefix: &'static str,
    recorded: &'a Recorded,
    row: PhantomData<ST>,
}

impl<'a, ST> Again<'a, ST> {
    pub(crate) fn new(prefix: &'static str, recorded: &'a Recorded) -> Self {
        Again { prefix, recorded, row: PhantomData }
    }
}

impl<ST> QueryFragment<DB> for Again<'_, ST> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        // A statement led by a MariaDB executable comment (`/*M! SET STATEMENT .. FOR */`) is
        // run again under the settings it names: the comment, then the prefix.
        let lead = self.recorded.sql.first().and_then(|sql| {
            let end = sql.strip_prefix("/*M!").and(sql.find("*/ "))?;
            Some(&sql[..end + 3])
        });
        out.push_sql(lead.unwrap_or(""));
        out.push_sql(self.prefix);
        for (index, sql) in self.recorded.sql.iter().enumerate() {
            let sql = match (index, lead) {
                (0, Some(lead)) => &sql[lead.len()..],
                _ => sql,
            };
            out.push_sql(sql);
            match self.recorded.binds.get(index) {
                Some(Bind::Int(value)) => out.push_bind_param::<BigInt, _>(value)?,
                Some(Bind::Time(at)) => out.push_bind_param::<Timestamp, _>(at)?,
                Some(Bind::Ints(values)) => crate::feed_plan::push_array(out.reborrow(), values)?,
                None => {}
            }
        }
        Ok(())
    }
}

impl<ST: SqlType + TypedExpressionType> Query for Again<'_, ST> {
    type SqlType = ST;
}

impl<ST> QueryId for Again<'_, ST> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<ST> RunQueryDsl<Conn> for Again<'_, ST> {}

/// The comma-separated items of a list, not splitting nested lists.
fn split_top(list: &str) -> Vec<&str> {
    let (mut items, mut depth, mut start) = (Vec::new(), 0, 0);
    for (at, c) in list.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                items.push(list[start..at].trim());
                start = at + 1;
            }
            _ => {}
        }
    }
    if !list[start..].trim().is_empty() {
        items.push(list[start..].trim());
    }
    items
}

fn bind(shown: &str) -> Bind {
    if let Some(list) = shown.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
        return Bind::Ints(split_top(list).into_iter().map(|v| v.parse().unwrap()).collect());
    }
    match NaiveDateTime::parse_from_str(shown, "%Y-%m-%dT%H:%M:%S%.f") {
        Ok(at) => Bind::Time(at),
        Err(_) => Bind::Int(shown.parse().unwrap_or_else(|_| panic!("a bind: {shown}"))),
    }
}

/// The parser reads what the instrumentation shows, on every backend's placeholders.
#[test]
fn a_recorded_statement_parses_into_its_sql_and_binds() {
    let recorded = Recorded::parse(
        "SELECT a FROM t WHERE x = $1 AND y < $2 AND z IN (?, +?) LIMIT $10 -- binds: [[1, -2], 2023-11-14T22:13:32.000012, 7, 2024-01-01T00:00:00, 5]",
    );
    assert_eq!(
        recorded.sql,
        ["SELECT a FROM t WHERE x = ", " AND y < ", " AND z IN (", ", +", ") LIMIT ", ""]
    );
    let at = |s: &str| NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S%.f").unwrap();
    assert_eq!(
        recorded.binds,
        [
            Bind::Ints(vec![1, -2]),
            Bind::Time(at("2023-11-14 22:13:32.000012")),
            Bind::Int(7),
            Bind::Time(at("2024-01-01 00:00:00")),
            Bind::Int(5),
        ]
    );
}
