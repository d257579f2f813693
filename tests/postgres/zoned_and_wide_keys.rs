//! What only PostgreSQL holds of the key types behind the `time` and `numeric` features: a
//! `Timestamptz` sort key read as time's `OffsetDateTime`, and a decimal with more digits than a
//! token holds (MySQL's `DECIMAL` stops at 65 digits, SQLite's `Numeric` is a double).

use bigdecimal::num_bigint::BigInt;
use bigdecimal::BigDecimal;
use diesel::prelude::*;
use keyset_runtime::{Error, Keyset, PageRequest, Paginate};
use keyset_tests::walk::{self, cursors};
use time::macros::{datetime, offset};
use time::{Duration, OffsetDateTime, UtcOffset};

use crate::{connect, Conn};

diesel::table! {
    zoned_events (id) {
        id -> BigInt,
        happened_at -> Timestamptz,
    }
}

diesel::table! {
    decimal_prices (id) {
        id -> BigInt,
        price -> Numeric,
    }
}

/// The latest first, ties by id.
#[derive(Queryable, Selectable, Insertable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = zoned_events)]
struct ByZonedTime {
    #[sort(desc)]
    happened_at: OffsetDateTime,
    #[sort(asc)]
    #[tiebreaker]
    id: i64,
}

#[derive(Queryable, Selectable, Insertable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = decimal_prices)]
struct ByDecimal {
    #[sort(asc)]
    price: BigDecimal,
    #[sort(asc)]
    #[tiebreaker]
    id: i64,
}

fn connect_with(ddl: &str) -> Conn {
    let mut conn = connect();
    diesel::sql_query(ddl).execute(&mut conn).expect("create the table");
    conn
}

/// Instants written at offsets east and west of UTC: PostgreSQL gives each back at UTC, the same
/// instant, and the walks order and return them exactly so.
#[test]
fn offset_date_time_keys_walk_both_ways() {
    let mut conn = connect_with(
        "CREATE TEMPORARY TABLE zoned_events (id BIGINT PRIMARY KEY, happened_at TIMESTAMPTZ NOT NULL)",
    );
    let offsets = [offset!(UTC), offset!(+5:30), offset!(-8), offset!(+14)];
    let rows: Vec<ByZonedTime> = (1..=150)
        .map(|id: i64| {
            let at = datetime!(1999-12-31 23:00:00.000001 UTC)
                + Duration::microseconds((id * 31 % 37) * 3_600_000_123);
            let offset: UtcOffset = offsets[id as usize % offsets.len()];
            ByZonedTime { happened_at: at.to_offset(offset), id }
        })
        .collect();
    diesel::insert_into(zoned_events::table).values(&rows).execute(&mut conn).unwrap();
    let expected: Vec<ByZonedTime> = zoned_events::table
        .order((zoned_events::happened_at.desc(), zoned_events::id.asc()))
        .select(ByZonedTime::as_select())
        .load(&mut conn)
        .unwrap();
    assert_eq!(expected.len(), rows.len());
    assert!(expected.iter().all(|row| row.happened_at.offset() == UtcOffset::UTC));
    let query = || zoned_events::table.select(ByZonedTime::as_select());
    for limit in [1, 4, 149, 150, 500] {
        let forward = walk::forward(&mut conn, limit, query);
        assert_eq!(cursors(&forward), cursors(&expected), "forward walk, limit {limit}");
        let backward = walk::backward(&mut conn, limit, query);
        assert_eq!(cursors(&backward), cursors(&expected), "backward walk, limit {limit}");
    }
}

/// A price of 2 000 digits fits PostgreSQL's `NUMERIC` but no token of 1024 characters: the page
/// that would issue a token for it is the server's error, naming the key, never a token the
/// listing would refuse; a page that needs no token for it loads.
#[test]
fn a_decimal_too_long_for_a_token_is_the_servers_error() {
    let mut conn = connect_with(
        "CREATE TEMPORARY TABLE decimal_prices (id BIGINT PRIMARY KEY, price NUMERIC NOT NULL)",
    );
    let huge = BigDecimal::new(BigInt::from(10).pow(2_000) - 1, 2);
    let rows = [
        ByDecimal { price: BigDecimal::from(1), id: 1 },
        ByDecimal { price: huge.clone(), id: 2 },
        ByDecimal { price: huge.clone(), id: 3 },
    ];
    diesel::insert_into(decimal_prices::table).values(&rows[..]).execute(&mut conn).unwrap();
    let load = |conn: &mut Conn, request| {
        decimal_prices::table
            .select(ByDecimal::as_select())
            .paginate(&request)
            .unwrap()
            .load_page(conn)
    };
    // The page of all three rows has no next page: it needs no token for the huge prices.
    let whole = load(&mut conn, PageRequest::first(3)).unwrap();
    assert_eq!(whole.items[1].price.as_bigint_and_exponent(), huge.as_bigint_and_exponent());
    // A page ending on the first huge price must carry it in its next_cursor.
    let error = load(&mut conn, PageRequest::first(2)).expect_err("no token holds the price");
    assert!(!error.is_client_error(), "the client sent nothing wrong: {error}");
    match &error {
        Error::KeysTooLong { model, key, max, .. } => {
            assert_eq!(
                (*model, *key, *max),
                (ByDecimal::SORT_ORDER, "price", ByDecimal::MAX_TOKEN_LEN)
            );
        }
        other => panic!("expected KeysTooLong, got {other:?}"),
    }
}
