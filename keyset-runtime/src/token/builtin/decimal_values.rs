//! `bigdecimal::BigDecimal`, Diesel's `Numeric` (feature `numeric`): exact at every precision,
//! its scale kept (`1.50` reads back as `1.50`, not `1.5`).
//!
//! The bytes: the scale (zigzag varint), then a varint of the unscaled integer's magnitude
//! length in bytes shifted left once, its low bit set for a negative value, then the magnitude,
//! little-endian. `19.99` is 4 bytes. One spelling per value: a magnitude that ends in a zero
//! byte, and a negative zero, are refused.

use bigdecimal::num_bigint::{BigInt, Sign};
use bigdecimal::BigDecimal;

use super::{invalid, unbindable, CursorError, CursorValue, Engine, Reader, Writer};

/// The largest scale read, either way: PostgreSQL's largest (`numeric` keeps at most 16383
/// digits after the point), far beyond MySQL's and MariaDB's (30 and 38). A crafted token cannot
/// make the server bind a value whose conversion costs more than a database's largest does.
pub(crate) const MAX_SCALE: i64 = 16_383;

const DECIMAL: &str =
    "a decimal number, e.g. `19.99` (at most 16383 places from the point either way)";

impl CursorValue for BigDecimal {
    fn write(&self, out: &mut Writer) {
        let (digits, scale) = self.as_bigint_and_scale();
        let (sign, magnitude) = digits.to_bytes_le();
        // num-bigint writes zero as one zero byte; here it is no bytes.
        let magnitude = if sign == Sign::NoSign { &[][..] } else { &magnitude[..] };
        out.signed(scale);
        out.varint(((magnitude.len() as u64) << 1) | u64::from(sign == Sign::Minus));
        out.bytes(magnitude);
    }
    fn read(input: &mut Reader<'_>) -> Result<Self, CursorError> {
        let scale = input.signed()?;
        if !(-MAX_SCALE..=MAX_SCALE).contains(&scale) {
            return Err(invalid(format!(
                "a decimal's scale is at most {MAX_SCALE} either way, found {scale}"
            )));
        }
        let head = input.varint()?;
        let negative = head & 1 == 1;
        // Checked against the bytes left before anything is allocated.
        let len = usize::try_from(head >> 1).map_err(|_| CursorError::Truncated)?;
        let magnitude = input.take(len)?;
        let sign = match (magnitude.last(), negative) {
            (None, false) => Sign::NoSign,
            (None, true) => return Err(invalid("a decimal zero is never negative")),
            (Some(0), _) => return Err(invalid("a decimal's digits end in a zero byte")),
            (Some(_), false) => Sign::Plus,
            (Some(_), true) => Sign::Minus,
        };
        Ok(BigDecimal::new(BigInt::from_bytes_le(sign, magnitude), scale))
    }
    /// What `FromStr` takes (`19.99`, `-1.5e3`), its scale kept, refused where the scale lies
    /// past `MAX_SCALE` so that the value reads back.
    fn from_text(text: &str) -> Result<Self, &'static str> {
        match text.parse::<BigDecimal>() {
            Ok(value) if (-MAX_SCALE..=MAX_SCALE).contains(&value.as_bigint_and_scale().1) => {
                Ok(value)
            }
            _ => Err(DECIMAL),
        }
    }
    /// Diesel binds a decimal to SQLite as the `f64` nearest to it, and fails where there is
    /// none.
    fn check_bind(&self, engine: Engine) -> Result<(), CursorError> {
        match engine {
            Engine::Sqlite if bigdecimal::ToPrimitive::to_f64(self).is_none() => {
                Err(unbindable(engine, "a decimal beyond the range of a double"))
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::*;
    use crate::token::builtin::tests::round_trip;

    fn decimal(text: &str) -> BigDecimal {
        BigDecimal::from_str(text).unwrap()
    }

    /// The digits and the scale, both: `BigDecimal`'s `==` compares values (`1.5 == 1.50`).
    fn exactly(value: &BigDecimal) -> (BigInt, i64) {
        value.as_bigint_and_exponent()
    }

    fn read(bytes: &[u8]) -> Result<BigDecimal, CursorError> {
        let mut input = Reader::new(bytes);
        let value = BigDecimal::read(&mut input)?;
        assert!(input.rest().is_empty(), "{bytes:?} left bytes unread");
        Ok(value)
    }

    #[test]
    fn decimals_round_trip_with_their_scale() {
        for text in [
            "0",
            "0.00",
            "19.99",
            "-19.99",
            "1.50",
            "-0.000000000000000000000000000001",
            "123456789012345678901234567890123456789012345678901234567890.123456789",
            "1E+300",
            "-7e-16383",
            "1e16383",
        ] {
            let value = decimal(text);
            let bytes = round_trip(value.clone());
            assert_eq!(exactly(&read(&bytes).unwrap()), exactly(&value), "{text}");
        }
        assert_eq!(round_trip(decimal("19.99")), [4, 4, 0xcf, 0x07]);
        assert_eq!(round_trip(decimal("0")), [0, 0]);
        assert_eq!(round_trip(decimal("-1")), [0, 3, 1]);
    }

    /// What `FromStr` takes, its scale kept, within the scale a token holds.
    #[test]
    fn decimals_read_their_text() {
        use crate::token::builtin::text::tests::refuses;
        for (text, digits, scale) in
            [("19.99", 1999, 2), ("-1.5e3", -15, -2), ("+0.00", 0, 2), ("7", 7, 0), (".5", 5, 1)]
        {
            let value = BigDecimal::from_text(text).unwrap();
            assert_eq!(exactly(&value), (BigInt::from(digits), scale), "{text}");
            assert_eq!(exactly(&read(&round_trip(value)).unwrap()), (BigInt::from(digits), scale));
        }
        for text in ["1e16383", "1e-16383", "-12.5e-16382"] {
            round_trip(BigDecimal::from_text(text).unwrap());
        }
        for text in [
            "1e16384",
            "1e-16384",
            "0.0e-16384",
            "1e99999999999999999999999999999999999999999",
            "",
            "NaN",
            "inf",
            "1,5",
            "1e",
            "-",
            ".",
            " 1",
            "1.2.3",
            "é.5",
            "1.é",
        ] {
            refuses::<BigDecimal>(text, DECIMAL);
        }
    }

    #[test]
    fn malformed_decimals_are_errors() {
        let invalid = |bytes: &[u8]| matches!(read(bytes), Err(CursorError::InvalidValues(_)));
        // A negative zero, a trailing zero byte, negative or not.
        assert!(invalid(&[0, 1]));
        assert!(invalid(&[0, 2, 0]));
        assert!(invalid(&[0, 5, 1, 0]));
        // Scales past the largest, each way (zigzag 32_768 is 16_384, 32_767 is -16_384).
        assert!(invalid(&[0x80, 0x80, 0x02, 0]));
        assert!(invalid(&[0xff, 0xff, 0x01, 0]));
        assert!(invalid(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0]));
        // Lengths past the end, one of them as long as a varint gets: nothing is allocated.
        assert_eq!(read(&[0, 4, 1]), Err(CursorError::Truncated));
        assert_eq!(
            read(&[0, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]),
            Err(CursorError::Truncated)
        );
        assert_eq!(read(&[0]), Err(CursorError::Truncated));
        assert_eq!(read(&[]), Err(CursorError::Truncated));
    }
}
