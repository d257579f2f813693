//! Property tests of the token forms of the `numeric` and `time` features' types: every
//! `BigDecimal` within the scale limit and every time date-time round-trips exactly (digits and
//! scale; instant and offset), and arbitrary bytes where such a value is expected are refused
//! with a typed [`CursorError`] or decode to a value that round-trips, never a panic.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use bigdecimal::num_bigint::{BigInt, Sign};
use bigdecimal::BigDecimal;
use keyset_runtime::__testing::token::{self, VERSION};
use keyset_runtime::{CursorError, Direction};
use proptest::prelude::*;
use proptest::test_runner::Config;
use time::{OffsetDateTime, PrimitiveDateTime, UtcOffset};

/// A listing of ours, as far as the token header goes.
const FINGERPRINT: u32 = token::fingerprint("key_type_tokens");

/// The largest scale a decimal in a token may have, either way.
const MAX_SCALE: i64 = 16_383;

fn config() -> Config {
    let mut config = Config::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = 2_000;
    }
    config.failure_persistence = None;
    config
}

fn decimal() -> impl Strategy<Value = BigDecimal> {
    let sign = prop_oneof![Just(Sign::Plus), Just(Sign::Minus)];
    (sign, prop::collection::vec(any::<u8>(), 0..48), -MAX_SCALE..=MAX_SCALE).prop_map(
        |(sign, magnitude, scale)| BigDecimal::new(BigInt::from_bytes_le(sign, &magnitude), scale),
    )
}

fn date_time() -> impl Strategy<Value = PrimitiveDateTime> {
    let (min, max) = (PrimitiveDateTime::MIN.assume_utc(), PrimitiveDateTime::MAX.assume_utc());
    (min.unix_timestamp_nanos()..=max.unix_timestamp_nanos()).prop_map(|nanos| {
        let at = OffsetDateTime::from_unix_timestamp_nanos(nanos).expect("in range");
        PrimitiveDateTime::new(at.date(), at.time())
    })
}

fn offset() -> impl Strategy<Value = UtcOffset> {
    (-93_599i32..=93_599).prop_map(|seconds| UtcOffset::from_whole_seconds(seconds).unwrap())
}

fn round_trip<C: keyset_runtime::token::CursorValue>(cursor: &C) -> C {
    let text = token::encode(FINGERPRINT, Direction::After, cursor).expect("fits in a token");
    token::decode(FINGERPRINT, Direction::After, &text).expect("a token we issued reads")
}

/// A token of ours whose values are `values`.
fn token_of(values: &[u8]) -> String {
    let mut bytes = vec![VERSION];
    bytes.extend_from_slice(&FINGERPRINT.to_le_bytes());
    bytes.push(0);
    bytes.extend_from_slice(values);
    URL_SAFE_NO_PAD.encode(bytes)
}

proptest! {
    #![proptest_config(config())]

    /// `BigDecimal`'s `==` compares values; the digits and the scale are compared here.
    #[test]
    fn decimals_round_trip_with_digits_and_scale(value in decimal(), id in any::<i64>()) {
        let (back, back_id) = round_trip(&(value.clone(), id));
        prop_assert_eq!(back.as_bigint_and_exponent(), value.as_bigint_and_exponent());
        prop_assert_eq!(back_id, id);
    }

    /// `OffsetDateTime`'s `==` compares instants; the offset is compared on its own.
    #[test]
    fn date_times_round_trip_to_the_nanosecond_with_their_offset(
        at in date_time(),
        offset in offset(),
    ) {
        prop_assert_eq!(round_trip(&(at,)).0, at);
        let local = at.assume_offset(offset);
        let back = round_trip(&(local,)).0;
        prop_assert_eq!((back, back.offset()), (local, offset));
        prop_assert_eq!(round_trip(&(at.date(), at.time())), (at.date(), at.time()));
    }

    #[test]
    fn arbitrary_values_are_refused_or_round_trip(values in prop::collection::vec(any::<u8>(), 0..120)) {
        let text = token_of(&values);
        match token::decode::<(BigDecimal, OffsetDateTime)>(FINGERPRINT, Direction::After, &text) {
            Ok(cursor) => {
                let back = round_trip(&cursor);
                prop_assert_eq!(back.0.as_bigint_and_exponent(), cursor.0.as_bigint_and_exponent());
                prop_assert_eq!((back.1, back.1.offset()), (cursor.1, cursor.1.offset()));
            }
            Err(error) => prop_assert!(matches!(
                error,
                CursorError::Truncated | CursorError::InvalidValues(_)
            ), "{error:?}"),
        }
        let _ = token::decode::<(PrimitiveDateTime, time::Date, time::Time)>(FINGERPRINT, Direction::After, &text);
    }
}
