//! The built-in types' text forms
//! ([`CursorValue::from_text`](crate::token::CursorValue::from_text)): what a client writes in a
//! query string for a page that starts at a value (`?from=2024-03-01`). The impls in `builtin.rs`
//! and its other submodules call these; chrono's and the time crate's types share one reading of
//! a date and time ([`date_time`]), so both take the same text.

use std::str::FromStr;

/// An integer type: its text is what `str::parse` takes (an optional `+` or `-`, then ASCII
/// digits), and [`TAKES`](Self::TAKES) says its range.
pub(super) trait Whole: FromStr {
    const TAKES: &'static str;
}

macro_rules! whole_numbers {
    ($($ty:ty => $($range:literal)*),* $(,)?) => {$(
        impl Whole for $ty {
            const TAKES: &'static str = concat!("a whole number", $($range,)* ", e.g. `42`");
        }
    )*};
}

whole_numbers! {
    u8 => " from 0 to 255",
    u16 => " from 0 to 65535",
    u32 => " from 0 to 4294967295",
    u64 => " from 0 to 18446744073709551615",
    u128 => " from 0 to 340282366920938463463374607431768211455",
    usize => " of 0 or more",
    i8 => " from -128 to 127",
    i16 => " from -32768 to 32767",
    i32 => " from -2147483648 to 2147483647",
    i64 => " from -9223372036854775808 to 9223372036854775807",
    i128 => " from -170141183460469231731687303715884105728"
        " to 170141183460469231731687303715884105727",
    isize =>,
}

/// An integer, as `str::parse` reads it.
pub(super) fn whole<T: Whole>(text: &str) -> Result<T, &'static str> {
    text.parse().map_err(|_| T::TAKES)
}

pub(super) const FLOAT: &str = "a finite number, e.g. `1.5` or `-2e10`";

/// A float, as `str::parse` reads it, but finite: a page does not start at a NaN or an infinity
/// (nor at a number too large for the type, which parses as one).
pub(super) fn float<T: FromStr + Copy + Into<f64>>(text: &str) -> Result<T, &'static str> {
    match text.parse::<T>() {
        Ok(value) if value.into().is_finite() => Ok(value),
        _ => Err(FLOAT),
    }
}

pub(super) const BOOL: &str = "`true` or `false`";
#[cfg(feature = "uuid")]
pub(super) const UUID: &str = "a UUID, e.g. `67e55044-10b1-426f-9247-bb680e5fe0c8`";
#[cfg(test)]
pub(super) mod tests {
    use std::fmt::Debug;

    use super::*;
    use crate::token::builtin::tests::round_trip;
    use crate::token::value::NO_TEXT_FORM;
    use crate::token::CursorValue;

    /// `text` reads as `expected`, and what it reads writes and reads back.
    pub(in crate::token::builtin) fn reads<T: CursorValue + PartialEq + Debug>(
        text: &str,
        expected: T,
    ) {
        let value = T::from_text(text);
        assert_eq!(value.as_ref(), Ok(&expected), "{text:?}");
        round_trip(value.unwrap());
    }

    /// `text` is refused with `message`.
    pub(in crate::token::builtin) fn refuses<T: CursorValue + Debug>(text: &str, message: &str) {
        assert_eq!(T::from_text(text).err(), Some(message), "{text:?}");
    }

    #[test]
    fn integers_read_what_parse_takes_in_their_range() {
        reads("42", 42u8);
        reads("+42", 42i64);
        reads("-7", -7i16);
        reads("0", 0usize);
        reads("-9223372036854775808", i64::MIN);
        reads("340282366920938463463374607431768211455", u128::MAX);
        reads(&isize::MIN.to_string(), isize::MIN);
        let u8_takes = "a whole number from 0 to 255, e.g. `42`";
        for text in ["256", "-1", "", " 42", "42 ", "4.2", "1e2", "0x10", "٤٢", "forty-two"] {
            refuses::<u8>(text, u8_takes);
        }
        refuses::<usize>("-1", "a whole number of 0 or more, e.g. `42`");
        refuses::<isize>("1.5", "a whole number, e.g. `42`");
    }

    /// Each type's limits read, one past them does not, and its message names them.
    #[test]
    fn integer_messages_name_their_range() {
        fn limits<T: Whole + CursorValue + PartialEq + Debug + ToString>(min: T, max: T) {
            let (min, max) = (min.to_string(), max.to_string());
            assert!(T::TAKES.contains(&format!(" from {min} to {max},")), "{}", T::TAKES);
            assert!(T::from_text(&min).is_ok() && T::from_text(&max).is_ok());
            let below = if min == "0" { "-1".to_owned() } else { format!("{min}0") };
            refuses::<T>(&below, T::TAKES);
            refuses::<T>(&format!("{max}0"), T::TAKES);
        }
        limits(u8::MIN, u8::MAX);
        limits(u16::MIN, u16::MAX);
        limits(u32::MIN, u32::MAX);
        limits(u64::MIN, u64::MAX);
        limits(u128::MIN, u128::MAX);
        limits(i8::MIN, i8::MAX);
        limits(i16::MIN, i16::MAX);
        limits(i32::MIN, i32::MAX);
        limits(i64::MIN, i64::MAX);
        limits(i128::MIN, i128::MAX);
    }

    #[test]
    fn floats_are_finite() {
        reads("1.5", 1.5f64);
        reads("-2e10", -2e10f64);
        reads("0.1", 0.1f32);
        assert!(f64::from_text("-0").unwrap().is_sign_negative());
        for text in ["NaN", "nan", "inf", "-infinity", "1e309", "", " 1", "1,5", "one"] {
            refuses::<f64>(text, FLOAT);
        }
        // Finite as an f64, too large for an f32.
        refuses::<f32>("1e39", FLOAT);
    }

    #[test]
    fn bools_strings_options_and_the_rest() {
        reads("true", true);
        reads("false", false);
        for text in ["True", "1", "yes", ""] {
            refuses::<bool>(text, BOOL);
        }
        for text in ["héllo wörld", "", " as given ", "NaN"] {
            reads(text, text.to_owned());
        }
        reads("42", Some(42i64));
        reads("", Some(String::new()));
        refuses::<Option<i64>>("", <i64 as Whole>::TAKES);
        refuses::<Vec<u8>>("00ff", NO_TEXT_FORM);
        refuses::<Option<Vec<u8>>>("00ff", NO_TEXT_FORM);
        refuses::<(i64, i64)>("1,2", NO_TEXT_FORM);
        refuses::<(i64,)>("1", NO_TEXT_FORM);
    }

    #[cfg(feature = "uuid")]
    #[test]
    fn uuids_read_their_forms() {
        let id = uuid::Uuid::from_u128(0x67e5_5044_10b1_426f_9247_bb68_0e5f_e0c8);
        for text in [
            "67e55044-10b1-426f-9247-bb680e5fe0c8",
            "67E55044-10B1-426F-9247-BB680E5FE0C8",
            "67e5504410b1426f9247bb680e5fe0c8",
            "{67e55044-10b1-426f-9247-bb680e5fe0c8}",
            "urn:uuid:67e55044-10b1-426f-9247-bb680e5fe0c8",
        ] {
            reads(text, id);
        }
        for text in
            ["", "67e55044-10b1-426f-9247-bb680e5fe0c", "67e55044-10b1-426f-9247-bb680e5fe0cz"]
        {
            refuses::<uuid::Uuid>(text, UUID);
        }
    }
}
