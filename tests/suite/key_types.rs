//! Sort keys of the types behind Diesel's `numeric` and `time` features (keyset-runtime's
//! features of the same names): a `BigDecimal` price and a time `PrimitiveDateTime`, each with
//! the id as tiebreaker, walk forward and back at several page sizes on every backend, every row
//! exactly once and in the oracle's order, and each value as the database gave it back (a
//! decimal's digits and scale, a timestamp's microseconds).
//!
//! SQLite has no decimal type: Diesel stores a `Numeric` there as a double, so its prices are
//! the doubles nearest to the ones inserted, and they page like any other value.

use bigdecimal::num_bigint::BigInt;
use bigdecimal::BigDecimal;
use diesel::prelude::*;
use keyset_runtime::PageQuery;
use keyset_tests::walk::{self, cursors};
use time::{Duration, OffsetDateTime, PrimitiveDateTime};

use crate::{connect, Conn};

diesel::table! {
    priced_items (id) {
        id -> BigInt,
        price -> Numeric,
    }
}

diesel::table! {
    timed_events (id) {
        id -> BigInt,
        happened_at -> Timestamp,
    }
}

/// The dearest first, ties by id.
#[derive(Queryable, Selectable, Insertable, keyset_runtime::Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = priced_items)]
struct ByPrice {
    #[sort(desc)]
    price: BigDecimal,
    #[sort(asc)]
    #[tiebreaker]
    id: i64,
}

/// The earliest first, ties by id descending.
#[derive(Queryable, Selectable, Insertable, keyset_runtime::Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = timed_events)]
struct ByTime {
    #[sort(asc)]
    happened_at: PrimitiveDateTime,
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
}

/// The two tables, as each backend declares them (temporary on the servers, as the suites'
/// other tables are).
trait KeyTypeTables {
    const DDL: &'static [&'static str];
}

impl KeyTypeTables for diesel::sqlite::Sqlite {
    const DDL: &'static [&'static str] = &[
        "CREATE TABLE priced_items (id BIGINT PRIMARY KEY NOT NULL, price NUMERIC NOT NULL)",
        "CREATE TABLE timed_events (id BIGINT PRIMARY KEY NOT NULL, happened_at TIMESTAMP NOT NULL)",
    ];
}

#[cfg(feature = "postgres")]
impl KeyTypeTables for diesel::pg::Pg {
    // `NUMERIC` without a precision keeps each value's own scale.
    const DDL: &'static [&'static str] = &[
        "CREATE TEMPORARY TABLE priced_items (id BIGINT PRIMARY KEY, price NUMERIC NOT NULL)",
        "CREATE TEMPORARY TABLE timed_events (id BIGINT PRIMARY KEY, happened_at TIMESTAMP NOT NULL)",
    ];
}

#[cfg(feature = "mysql")]
impl KeyTypeTables for diesel::mysql::Mysql {
    const DDL: &'static [&'static str] = &[
        "CREATE TEMPORARY TABLE priced_items (id BIGINT PRIMARY KEY, price DECIMAL(40, 6) NOT NULL)",
        "CREATE TEMPORARY TABLE timed_events (id BIGINT PRIMARY KEY, happened_at DATETIME(6) NOT NULL)",
    ];
}

const ROWS: i64 = 240;
const LIMITS: &[u32] = &[1, 3, 10, 239, 240, 1000];

fn connect_with_tables() -> Conn {
    let mut conn = connect();
    for statement in <<Conn as Connection>::Backend as KeyTypeTables>::DDL {
        diesel::sql_query(*statement).execute(&mut conn).expect("create the key type tables");
    }
    conn
}

/// Prices that tie in groups, negative ones, the same value at several scales (`1.5`, `1.50`),
/// and a few of 30 significant digits.
fn price(id: i64) -> BigDecimal {
    match id % 40 {
        0 => BigDecimal::new(BigInt::from(id) * BigInt::from(10).pow(26) + 7, 4),
        1 => BigDecimal::new(BigInt::from(15), 1),
        2 => BigDecimal::new(BigInt::from(150), 2),
        _ => BigDecimal::new(BigInt::from((id * 37) % 41 - 20), 2),
    }
}

/// Timestamps that tie in groups, to the microsecond, across the range the backend's `Timestamp`
/// columns hold ([`crate::TIMESTAMP_MICROS`]: from the year 1000, before 1970 too, on SQLite and
/// PostgreSQL; 1970 to 2038 on MySQL and MariaDB).
fn at(id: i64) -> PrimitiveDateTime {
    let (first, last) = crate::TIMESTAMP_MICROS;
    let micros = first + ((id * 7919) % 53) * ((last - first) / 53);
    let at = OffsetDateTime::UNIX_EPOCH + Duration::microseconds(micros);
    PrimitiveDateTime::new(at.date(), at.time())
}

/// Walks `query` forward and backward at every page size: the rows are `expected`, in its order.
fn check_walks<Q>(conn: &mut Conn, expected: &[Q::Model], query: impl Fn() -> Q)
where
    Q: PageQuery<'static, Conn, Item = <Q as keyset_runtime::Paginate>::Model>,
    Q::Model: std::fmt::Debug + PartialEq,
    <Q::Model as keyset_runtime::Keyset>::Cursor: std::fmt::Debug + PartialEq,
{
    assert_eq!(expected.len(), ROWS as usize, "the oracle returned every row");
    let expected_cursors = cursors(expected);
    for &limit in LIMITS {
        let forward = walk::forward(conn, limit, &query);
        assert_eq!(cursors(&forward), expected_cursors, "forward walk, limit {limit}");
        assert_eq!(forward, expected, "forward walk, limit {limit}");
        let backward = walk::backward(conn, limit, &query);
        assert_eq!(cursors(&backward), expected_cursors, "backward walk, limit {limit}");
        assert_eq!(backward, expected, "backward walk, limit {limit}");
    }
}

#[test]
fn decimal_keys_walk_both_ways_and_keep_their_digits() {
    let mut conn = connect_with_tables();
    let rows: Vec<ByPrice> = (1..=ROWS).map(|id| ByPrice { price: price(id), id }).collect();
    diesel::insert_into(priced_items::table).values(&rows).execute(&mut conn).unwrap();
    let expected: Vec<ByPrice> = priced_items::table
        .order((priced_items::price.desc(), priced_items::id.asc()))
        .select(ByPrice::as_select())
        .load(&mut conn)
        .unwrap();
    check_walks(&mut conn, &expected, || priced_items::table.select(ByPrice::as_select()));
    // `BigDecimal`'s `==` compares values; the walks gave back each row's digits and scale too.
    let exact = |rows: &[ByPrice]| -> Vec<_> {
        rows.iter().map(|row| (row.id, row.price.as_bigint_and_exponent())).collect()
    };
    let walked = walk::forward(&mut conn, 7, || priced_items::table.select(ByPrice::as_select()));
    assert_eq!(exact(&walked), exact(&expected));
}

#[test]
fn time_keys_walk_both_ways_to_the_microsecond() {
    let mut conn = connect_with_tables();
    let rows: Vec<ByTime> = (1..=ROWS).map(|id| ByTime { happened_at: at(id), id }).collect();
    diesel::insert_into(timed_events::table).values(&rows).execute(&mut conn).unwrap();
    let expected: Vec<ByTime> = timed_events::table
        .order((timed_events::happened_at.asc(), timed_events::id.desc()))
        .select(ByTime::as_select())
        .load(&mut conn)
        .unwrap();
    // Every backend here keeps microseconds: the rows come back as inserted.
    let mut inserted = rows;
    inserted.sort_by(|a, b| a.happened_at.cmp(&b.happened_at).then(b.id.cmp(&a.id)));
    assert_eq!(expected, inserted);
    check_walks(&mut conn, &expected, || timed_events::table.select(ByTime::as_select()));
}
