//! Every token the decoder accepts binds: cursor values drawn from each key type's whole domain
//! (NUL in text, NaN and the infinities, timestamps and dates from chrono's and the time crate's
//! first year to their last, leap seconds, decimals of any scale) are written into tokens and
//! paged with, both ways, on each backend. The only outcomes are a page or a client error (400),
//! never a database error: what the engine cannot hold is refused before any query
//! (`CursorValue::check_bind`). And what the engine can hold is never refused: a value the table
//! stored and gave back pages.

use bigdecimal::num_bigint::{BigInt, Sign};
use bigdecimal::BigDecimal;
use chrono::{DateTime, Datelike as _, NaiveDate, NaiveDateTime, NaiveTime, Utc};
use diesel::prelude::*;
use keyset_runtime::__testing::token;
use keyset_runtime::{Direction, Keyset, PageRequest, Paginate};
use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};

use super::props::config;
use crate::{connect, Conn};

diesel::table! {
    bound_keys (id) {
        id -> BigInt,
        txt -> Text,
        dbl -> Double,
        flt -> Float,
        ts -> Timestamp,
        dt -> Date,
        tm -> Time,
        num -> Numeric,
    }
}

/// The table as each backend declares it: the widest column of each type it has.
trait BoundKeysTable {
    const DDL: &'static str;
}

impl BoundKeysTable for diesel::sqlite::Sqlite {
    const DDL: &'static str = "CREATE TABLE bound_keys (id BIGINT PRIMARY KEY NOT NULL, \
        txt TEXT NOT NULL, dbl DOUBLE NOT NULL, flt REAL NOT NULL, ts TIMESTAMP NOT NULL, \
        dt DATE NOT NULL, tm TIME NOT NULL, num NUMERIC NOT NULL)";
}

#[cfg(feature = "postgres")]
impl BoundKeysTable for diesel::pg::Pg {
    const DDL: &'static str = "CREATE TEMPORARY TABLE bound_keys (id BIGINT PRIMARY KEY, \
        txt TEXT NOT NULL, dbl FLOAT8 NOT NULL, flt FLOAT4 NOT NULL, ts TIMESTAMP NOT NULL, \
        dt DATE NOT NULL, tm TIME(6) NOT NULL, num NUMERIC NOT NULL)";
}

#[cfg(feature = "mysql")]
impl BoundKeysTable for diesel::mysql::Mysql {
    const DDL: &'static str = "CREATE TEMPORARY TABLE bound_keys (id BIGINT PRIMARY KEY, \
        txt TEXT NOT NULL, dbl DOUBLE NOT NULL, flt FLOAT NOT NULL, ts DATETIME(6) NOT NULL, \
        dt DATE NOT NULL, tm TIME(6) NOT NULL, num DECIMAL(65, 30) NOT NULL)";
}

/// A row of ordinary values, which a key's test replaces one of.
#[derive(Insertable, Clone)]
#[diesel(table_name = bound_keys)]
struct Row {
    id: i64,
    txt: String,
    dbl: f64,
    flt: f32,
    ts: NaiveDateTime,
    dt: NaiveDate,
    tm: NaiveTime,
    num: BigDecimal,
}

fn row(id: i64) -> Row {
    let at = DateTime::from_timestamp(1_700_000_000 + id * 3_600, 0).unwrap().naive_utc();
    Row {
        id,
        txt: format!("row {id}"),
        dbl: id as f64 / 4.0,
        flt: id as f32 / 2.0,
        ts: at,
        dt: at.date(),
        tm: at.time(),
        num: BigDecimal::new(BigInt::from(id * 125), 2),
    }
}

const ROWS: i64 = 12;
/// The id of the row a test stores a generated value in, to see whether the engine holds it.
const PROBE: i64 = 1_000;

fn connect_with_table() -> Conn {
    let mut conn = connect();
    let ddl = <<Conn as Connection>::Backend as BoundKeysTable>::DDL;
    diesel::sql_query(ddl).execute(&mut conn).expect("create bound_keys");
    let rows: Vec<Row> = (1..=ROWS).map(row).collect();
    diesel::insert_into(bound_keys::table).values(&rows).execute(&mut conn).expect("seed");
    conn
}

/// One model per key: `$model` sorts by `$field` (of type `$ty`), ties by id.
macro_rules! key_models {
    ($($model:ident { $field:ident: $ty:ty, $set:expr })*) => {$(
        #[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
        #[diesel(table_name = bound_keys)]
        struct $model {
            #[sort(asc)]
            $field: $ty,
            #[sort(desc)]
            #[tiebreaker]
            id: i64,
        }

        impl Probe for $model {
            type Value = $ty;
            fn of(value: $ty) -> Self {
                $model { $field: value, id: PROBE }
            }
            fn store(conn: &mut Conn, value: &$ty) -> QueryResult<Option<$ty>> {
                let set: fn(Row, $ty) -> Row = $set;
                diesel::insert_into(bound_keys::table)
                    .values(set(row(PROBE), value.clone()))
                    .execute(conn)?;
                let stored = bound_keys::table
                    .find(PROBE)
                    .select(bound_keys::$field)
                    .first::<$ty>(conn)
                    .optional();
                diesel::delete(bound_keys::table.find(PROBE)).execute(conn)?;
                stored
            }
            fn page(conn: &mut Conn, request: &PageRequest) -> Result<usize, keyset_runtime::Error> {
                let query = bound_keys::table.select($model::as_select());
                Ok(query.paginate(request)?.load_page(conn)?.items.len())
            }
        }
    )*};
}

/// What a key's test needs of its model.
trait Probe: Keyset + Sized {
    type Value: std::fmt::Debug;
    /// A row holding `value`, as a token would point at it.
    fn of(value: Self::Value) -> Self;
    /// Stores `value` in a row and reads it back; an error where the engine refuses it.
    fn store(conn: &mut Conn, value: &Self::Value) -> QueryResult<Option<Self::Value>>;
    /// The rows of the page `request` asks for.
    fn page(conn: &mut Conn, request: &PageRequest) -> Result<usize, keyset_runtime::Error>;
}

key_models! {
    ByText { txt: String, |row, txt| Row { txt, ..row } }
    ByDouble { dbl: f64, |row, dbl| Row { dbl, ..row } }
    ByFloat { flt: f32, |row, flt| Row { flt, ..row } }
    ByStamp { ts: NaiveDateTime, |row, ts| Row { ts, ..row } }
    ByDay { dt: NaiveDate, |row, dt| Row { dt, ..row } }
    ByClock { tm: NaiveTime, |row, tm| Row { tm, ..row } }
    ByAmount { num: BigDecimal, |row, num| Row { num, ..row } }
}

/// Pages after and before a token pointing at `value`: a page or a client error, never the
/// server's; and a page wherever the engine stored `value` and gave it back unchanged.
fn pages_or_refuses<M>(conn: &mut Conn, value: M::Value) -> Result<(), TestCaseError>
where
    M: Probe,
    M::Value: PartialEq + Clone,
{
    let cursor = M::of(value.clone()).cursor();
    let stored = M::store(conn, &value).ok().flatten();
    let holds = stored.as_ref() == Some(&value);
    for direction in [Direction::After, Direction::Before] {
        let token = token::encode(M::FINGERPRINT, direction, &cursor)
            .map_err(|error| TestCaseError::fail(format!("{error:?}")))?;
        let request = match direction {
            Direction::After => PageRequest::after(token, 5),
            Direction::Before => PageRequest::before(token, 5),
        };
        match M::page(conn, &request) {
            Ok(_) => {}
            Err(error) if error.is_client_error() && !holds => {}
            Err(error) => {
                return Err(TestCaseError::fail(format!(
                    "{direction:?} {value:?} (stored as {stored:?}): {error}"
                )))
            }
        }
    }
    Ok(())
}

fn run<M>(strategy: impl Strategy<Value = M::Value>)
where
    M: Probe,
    M::Value: PartialEq + Clone,
{
    let conn = std::cell::RefCell::new(connect_with_table());
    let mut runner = TestRunner::new(config());
    let result =
        runner.run(&strategy, |value| pages_or_refuses::<M>(&mut conn.borrow_mut(), value));
    if let Err(error) = result {
        panic!("{error}");
    }
}

/// Any of `special`, or a value of `any`.
fn or_special<T: Clone + std::fmt::Debug + 'static>(
    special: Vec<T>,
    any: impl Strategy<Value = T> + 'static,
) -> BoxedStrategy<T> {
    prop_oneof![1 => proptest::sample::select(special), 3 => any].boxed()
}

#[test]
fn text_keys_page_or_refuse() {
    let specials = vec!["\0".to_owned(), "a\0b".to_owned(), String::new(), "é😀".to_owned()];
    run::<ByText>(or_special(specials, prop_oneof![any::<String>(), "[a\0é]{0,6}"]));
}

#[test]
fn float_keys_page_or_refuse() {
    let specials = vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, f64::MAX, f64::MIN];
    run::<ByDouble>(or_special(specials, any::<u64>().prop_map(f64::from_bits)));
    let specials = vec![f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0, f32::MAX];
    run::<ByFloat>(or_special(specials, any::<u32>().prop_map(f32::from_bits)));
}

/// Instants from chrono's first second to its last, weighted towards the engines' bounds, with
/// leap seconds where chrono has them.
fn instants() -> impl Strategy<Value = NaiveDateTime> {
    let (first, last) =
        (DateTime::<Utc>::MIN_UTC.timestamp(), DateTime::<Utc>::MAX_UTC.timestamp());
    let near = |bound: i64| bound - 100_000..bound + 100_000;
    let seconds = prop_oneof![
        first..=last,
        near(-210_866_803_200),
        near(-62_167_219_200),
        near(253_402_300_800),
        near(0),
    ];
    (seconds, prop_oneof![3 => 0..1_000_000_000u32, 1 => 1_000_000_000..2_000_000_000u32])
        .prop_filter_map("a leap second lies at a minute's end", move |(seconds, nanos)| {
            Some(DateTime::from_timestamp(seconds.clamp(first, last), nanos)?.naive_utc())
        })
}

#[test]
fn timestamp_keys_page_or_refuse() {
    let specials = vec![NaiveDateTime::MIN, NaiveDateTime::MAX, DateTime::UNIX_EPOCH.naive_utc()];
    run::<ByStamp>(or_special(specials, instants()));
}

#[test]
fn date_keys_page_or_refuse() {
    let days = NaiveDate::MIN.num_days_from_ce()..=NaiveDate::MAX.num_days_from_ce();
    let dates = prop_oneof![days, -1_721_500..-1_721_300, -400..400, 3_651_900..3_652_200]
        .prop_filter_map("a day chrono has", NaiveDate::from_num_days_from_ce_opt);
    run::<ByDay>(or_special(vec![NaiveDate::MIN, NaiveDate::MAX], dates));
}

#[test]
fn time_keys_page_or_refuse() {
    let times =
        (0..86_400u32, prop_oneof![3 => 0..1_000_000_000u32, 1 => 1_000_000_000..2_000_000_000u32])
            .prop_filter_map("a leap second lies at a minute's end", |(seconds, nanos)| {
                NaiveTime::from_num_seconds_from_midnight_opt(seconds, nanos)
            });
    run::<ByClock>(times);
}

#[test]
fn decimal_keys_page_or_refuse() {
    let magnitude = prop_oneof![
        4 => proptest::collection::vec(any::<u8>(), 0..40),
        1 => proptest::collection::vec(any::<u8>(), 200..700),
    ];
    let scale = prop_oneof![-40i64..40, -16_383i64..=16_383];
    let decimals = (any::<bool>(), magnitude, scale).prop_map(|(negative, magnitude, scale)| {
        let sign = if negative { Sign::Minus } else { Sign::Plus };
        BigDecimal::new(BigInt::from_bytes_le(sign, &magnitude), scale)
    });
    run::<ByAmount>(decimals);
}

/// The async path refuses what the sync one does, before any query: on the suite's own tables,
/// a text key holding a NUL and timestamps past every engine's years, after and before.
#[test]
fn the_async_path_pages_or_refuses_alike() {
    use keyset_tests::models::{ByUniqueTitle, ByUniqueTitleCursor, Newest, NewestCursor};
    use keyset_tests::schema::posts;

    use super::asynchronous::{runtime, seeded_async};

    let stamp = |seconds| DateTime::from_timestamp(seconds, 0).unwrap().naive_utc();
    let titles = ["a\0b", "\0", "post 1"].map(|title| ByUniqueTitleCursor { title: title.into() });
    let stamps = [i64::from(i32::MIN) * 200, -62_167_219_201, 253_402_300_800, 0]
        .map(|seconds| NewestCursor { created_at: stamp(seconds), id: 1 });
    runtime().block_on(async {
        let mut conn = seeded_async(20).await;
        let mut outcomes = Vec::new();
        for direction in [Direction::After, Direction::Before] {
            let request = |token: String| match direction {
                Direction::After => PageRequest::after(token, 5),
                Direction::Before => PageRequest::before(token, 5),
            };
            for cursor in &titles {
                let token = token::encode(ByUniqueTitle::FINGERPRINT, direction, cursor).unwrap();
                let page =
                    posts::table.select(ByUniqueTitle::as_select()).paginate(&request(token));
                outcomes.push((
                    format!("{cursor:?}"),
                    page.unwrap().load_page_async(&mut conn).await.map(drop),
                ));
            }
            for cursor in &stamps {
                let token = token::encode(Newest::FINGERPRINT, direction, cursor).unwrap();
                let page = posts::table.select(Newest::as_select()).paginate(&request(token));
                outcomes.push((
                    format!("{cursor:?}"),
                    page.unwrap().load_page_async(&mut conn).await.map(drop),
                ));
            }
        }
        for (cursor, outcome) in &outcomes {
            if let Err(error) = outcome {
                assert!(error.is_client_error(), "{cursor}: {error}");
            }
        }
        // The ordinary values page on every engine.
        assert!(outcomes
            .iter()
            .filter(|(cursor, _)| cursor.contains("post 1"))
            .all(|(_, o)| o.is_ok()));
    });
}
