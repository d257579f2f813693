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

#[cfg(any(feature = "chrono", feature = "time"))]
pub(super) use dates::{clock, date, date_time, Clock, Written, Ymd, DATE, DATE_TIME, TIME};

/// Dates and times as written, checked for their shape only: the crate that builds one checks
/// the day of the month and the time of day. chrono's types and the time crate's read these.
#[cfg(any(feature = "chrono", feature = "time"))]
mod dates {
    pub(in super::super) const DATE_TIME: &str =
        "a date and time (RFC 3339, e.g. `2024-03-01T09:30:00Z`) or a date (`2024-03-01`)";
    pub(in super::super) const DATE: &str = "a date, e.g. `2024-03-01`";
    pub(in super::super) const TIME: &str = "a time of day, e.g. `09:30` or `09:30:15.250`";

    /// A date: its year, month and day.
    pub(in super::super) type Ymd = (i32, u8, u8);

    #[derive(Debug, Clone, Copy, PartialEq)]
    pub(in super::super) struct Written {
        pub(in super::super) date: Ymd,
        pub(in super::super) clock: Clock,
        /// The offset in seconds east of UTC, when one is written.
        pub(in super::super) offset: Option<i32>,
    }

    /// A time of day: seconds and their fraction may be left out (zero).
    #[derive(Debug, Clone, Copy, PartialEq, Default)]
    pub(in super::super) struct Clock {
        pub(in super::super) hour: u8,
        pub(in super::super) minute: u8,
        pub(in super::super) second: u8,
        pub(in super::super) nano: u32,
    }

    /// Reads `YYYY-MM-DD` (midnight, no offset), or that followed by `T` (or `t` or a space)
    /// and a time of day ([`clock`]'s form), then optionally an offset: `Z` (or `z`) or
    /// `±HH:MM`. RFC 3339 is the last form with its seconds. A space for the offset's sign is
    /// read as `+`: a query string's decoding turns an unescaped `+` into a space.
    pub(in super::super) fn date_time(text: &str) -> Option<Written> {
        let (date, rest) = date_prefix(text.as_bytes())?;
        let mut written = Written { date, clock: Clock::default(), offset: None };
        let rest = match rest {
            [] => return Some(written),
            [b'T' | b't' | b' ', rest @ ..] => rest,
            _ => return None,
        };
        let (clock, rest) = clock_prefix(rest)?;
        written.clock = clock;
        written.offset = match rest {
            [] => None,
            [b'Z' | b'z'] => Some(0),
            [sign @ (b'+' | b'-' | b' '), rest @ ..] => {
                let (hours, rest) = number::<2>(rest)?;
                let (minutes, rest) = number::<2>(rest.strip_prefix(b":")?)?;
                if !rest.is_empty() || hours > 23 || minutes > 59 {
                    return None;
                }
                let seconds = (hours * 3600 + minutes * 60) as i32;
                Some(if *sign == b'-' { -seconds } else { seconds })
            }
            _ => return None,
        };
        Some(written)
    }

    /// Reads `YYYY-MM-DD`: the year, month and day.
    pub(in super::super) fn date(text: &str) -> Option<Ymd> {
        all(date_prefix(text.as_bytes()))
    }

    /// Reads `HH:MM`, `HH:MM:SS` or `HH:MM:SS.f` (one to nine digits of a second).
    pub(in super::super) fn clock(text: &str) -> Option<Clock> {
        all(clock_prefix(text.as_bytes()))
    }

    /// The value read, when nothing follows it.
    fn all<T>(read: Option<(T, &[u8])>) -> Option<T> {
        read.and_then(|(value, rest)| rest.is_empty().then_some(value))
    }

    fn date_prefix(bytes: &[u8]) -> Option<(Ymd, &[u8])> {
        let (year, rest) = number::<4>(bytes)?;
        let (month, rest) = number::<2>(rest.strip_prefix(b"-")?)?;
        let (day, rest) = number::<2>(rest.strip_prefix(b"-")?)?;
        Some(((year as i32, month as u8, day as u8), rest))
    }

    fn clock_prefix(bytes: &[u8]) -> Option<(Clock, &[u8])> {
        let (hour, rest) = number::<2>(bytes)?;
        let (minute, mut rest) = number::<2>(rest.strip_prefix(b":")?)?;
        let mut clock = Clock { hour: hour as u8, minute: minute as u8, ..Clock::default() };
        if let Some(seconds) = rest.strip_prefix(b":") {
            let (second, after) = number::<2>(seconds)?;
            clock.second = second as u8;
            rest = after;
            if let Some(fraction) = rest.strip_prefix(b".") {
                let len = fraction.iter().take_while(|byte| byte.is_ascii_digit()).count();
                if !(1..=9).contains(&len) {
                    return None;
                }
                let digits = fraction[..len].iter().fold(0, |n, b| n * 10 + u32::from(b - b'0'));
                clock.nano = digits * 10u32.pow(9 - len as u32);
                rest = &fraction[len..];
            }
        }
        Some((clock, rest))
    }

    /// `N` ASCII digits (at most 4, so the number fits), and the bytes after them.
    fn number<const N: usize>(bytes: &[u8]) -> Option<(u32, &[u8])> {
        let (digits, rest) = bytes.split_first_chunk::<N>()?;
        let value = digits.iter().try_fold(0, |n, byte| {
            byte.is_ascii_digit().then(|| n * 10 + u32::from(byte - b'0'))
        })?;
        Some((value, rest))
    }
}

#[cfg(test)]
pub(super) mod tests {
    use std::fmt::Debug;

    use super::*;
    use crate::token::value::NO_TEXT_FORM;
    use crate::token::{CursorValue, Reader, Writer};

    /// Writes `value` and reads it back: the same value, every byte read.
    fn round_trip<T: CursorValue + PartialEq + Debug>(value: T) {
        let mut out = Writer::default();
        value.write(&mut out);
        let bytes = out.into_bytes();
        let mut input = Reader::new(&bytes);
        assert_eq!(T::read(&mut input).as_ref(), Ok(&value), "{bytes:?}");
        assert!(input.rest().is_empty(), "{value:?} left bytes unread");
    }

    /// `text` reads as `expected`, and what it reads writes and reads back.
    pub(in super::super) fn reads<T: CursorValue + PartialEq + Debug>(text: &str, expected: T) {
        let value = T::from_text(text);
        assert_eq!(value.as_ref(), Ok(&expected), "{text:?}");
        round_trip(value.unwrap());
    }

    /// `text` is refused with `message`.
    pub(in super::super) fn refuses<T: CursorValue + Debug>(text: &str, message: &str) {
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

    /// Not a date and time, nor a date: the wrong shape, or a right one with more around it.
    #[cfg(any(feature = "chrono", feature = "time"))]
    #[rustfmt::skip]
    pub(in super::super) const NOT_DATE_TIMES: &[&str] = &[
        "", "garbage", "NaN", "2024-3-1", "24-03-01", "+2024-03-01", " 2024-03-01", "2024-03-01 ",
        "2024/03/01", "２０２４-03-01", "2024-03-01T", "2024-03-01Z", "2024-03-01T9:30",
        "2024-03-01T09", "2024-03-01T09:30:15.", "2024-03-01T09:30:15.1234567891",
        "2024-03-01T09:30:15+02", "2024-03-01T09:30:15+0200", "2024-03-01T09:30:15+24:00",
        "2024-03-01T09:30:15+02:60", "2024-03-01T09:30:15+02:00 ", "2024-03-01T09:30:15ZZ",
        "2024-03-01T09:30é", "1709285400",
    ];

    #[cfg(any(feature = "chrono", feature = "time"))]
    #[test]
    fn dates_and_times_are_read_by_their_shape() {
        let hms = |hour, minute, second, nano| Clock { hour, minute, second, nano };
        let written = |clock, offset| Written { date: (2024, 3, 1), clock, offset };
        assert_eq!(date_time("2024-03-01"), Some(written(Clock::default(), None)));
        assert_eq!(date_time("2024-03-01T09:30"), Some(written(hms(9, 30, 0, 0), None)));
        assert_eq!(
            date_time("2024-03-01t09:30:15.25Z"),
            Some(written(hms(9, 30, 15, 250_000_000), Some(0)))
        );
        assert_eq!(
            date_time("2024-03-01 09:30:15.000000001-05:30"),
            Some(written(hms(9, 30, 15, 1), Some(-(5 * 3600 + 30 * 60))))
        );
        // A `+` a query string's decoding made a space.
        assert_eq!(
            date_time("2024-03-01T09:30:15 02:00"),
            Some(written(hms(9, 30, 15, 0), Some(2 * 3600)))
        );
        for text in NOT_DATE_TIMES {
            assert_eq!(date_time(text), None, "{text:?}");
        }
        assert_eq!(date("0000-12-31"), Some((0, 12, 31)));
        assert_eq!(date("2024-03-01T00:00"), None);
        assert_eq!(clock("23:59:59.999999999"), Some(hms(23, 59, 59, 999_999_999)));
        assert_eq!(clock("09:30Z"), None);
    }
}
