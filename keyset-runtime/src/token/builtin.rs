//! The built-in [`CursorValue`] impls (formats in `value.rs`'s table): integers, floats, `bool`,
//! strings, bytes, options and tuples; `uuid::Uuid` (feature `uuid`); chrono's dates and times
//! (feature `chrono`, in `builtin/chrono_values.rs`), the time crate's (feature `time`, in
//! `builtin/time_values.rs`); `bigdecimal::BigDecimal` (feature `numeric`, in
//! `builtin/decimal_values.rs`). Their text forms read through `builtin/text.rs`.

use super::bind::{unbindable, Engine};
use super::error::CursorError;
use super::value::{invalid, CursorValue, Reader, Writer};

mod text;

macro_rules! varint_values {
    ($($ty:ty => $write:ident, $read:ident);* $(;)?) => {$(
        impl CursorValue for $ty {
            const EXACT_EQ: bool = true;
            fn write(&self, out: &mut Writer) {
                out.$write((*self).into());
            }
            fn read(input: &mut Reader<'_>) -> Result<Self, CursorError> {
                let value = input.$read()?;
                <$ty>::try_from(value)
                    .map_err(|_| invalid(format!("{value} is out of range for {}", stringify!($ty))))
            }
            fn from_text(text: &str) -> Result<Self, &'static str> {
                text::whole(text)
            }
        }
    )*};
}

varint_values! {
    u16 => varint, varint;
    u32 => varint, varint;
    u64 => varint, varint;
    i16 => signed, signed;
    i32 => signed, signed;
    i64 => signed, signed;
}

macro_rules! fixed_values {
    ($($ty:ty),*) => {$(
        impl CursorValue for $ty {
            const EXACT_EQ: bool = true;
            fn write(&self, out: &mut Writer) {
                out.bytes(&self.to_le_bytes());
            }
            fn read(input: &mut Reader<'_>) -> Result<Self, CursorError> {
                input.array().map(<$ty>::from_le_bytes)
            }
            fn from_text(text: &str) -> Result<Self, &'static str> {
                text::whole(text)
            }
        }
    )*};
}

fixed_values!(u8, i8, u128, i128);

macro_rules! float_values {
    ($($ty:ty),*) => {$(
        impl CursorValue for $ty {
            const EXACT_EQ: bool = true;
            fn write(&self, out: &mut Writer) {
                out.bytes(&self.to_le_bytes());
            }
            fn read(input: &mut Reader<'_>) -> Result<Self, CursorError> {
                input.array().map(<$ty>::from_le_bytes)
            }
            fn from_text(text: &str) -> Result<Self, &'static str> {
                text::float(text)
            }
            /// SQLite binds a NaN as NULL, and MySQL's and MariaDB's floats hold neither NaN
            /// nor an infinity; PostgreSQL's hold both.
            fn check_bind(&self, engine: Engine) -> Result<(), CursorError> {
                match engine {
                    Engine::Sqlite if self.is_nan() => Err(unbindable(engine, "a NaN")),
                    Engine::Mysql if !self.is_finite() => {
                        Err(unbindable(engine, "a NaN or an infinity"))
                    }
                    _ => Ok(()),
                }
            }
        }
    )*};
}

float_values!(f32, f64);

impl CursorValue for usize {
    const EXACT_EQ: bool = true;
    fn write(&self, out: &mut Writer) {
        (*self as u64).write(out);
    }
    fn read(input: &mut Reader<'_>) -> Result<Self, CursorError> {
        let value = input.varint()?;
        usize::try_from(value).map_err(|_| invalid(format!("{value} is out of range for usize")))
    }
    fn from_text(text: &str) -> Result<Self, &'static str> {
        text::whole(text)
    }
}

impl CursorValue for isize {
    const EXACT_EQ: bool = true;
    fn write(&self, out: &mut Writer) {
        out.signed(*self as i64);
    }
    fn read(input: &mut Reader<'_>) -> Result<Self, CursorError> {
        let value = input.signed()?;
        isize::try_from(value).map_err(|_| invalid(format!("{value} is out of range for isize")))
    }
    fn from_text(text: &str) -> Result<Self, &'static str> {
        text::whole(text)
    }
}

impl CursorValue for bool {
    const EXACT_EQ: bool = true;
    fn write(&self, out: &mut Writer) {
        out.byte(u8::from(*self));
    }
    fn read(input: &mut Reader<'_>) -> Result<Self, CursorError> {
        match input.byte()? {
            0 => Ok(false),
            1 => Ok(true),
            other => Err(invalid(format!("a bool is 0 or 1, found {other}"))),
        }
    }
    fn from_text(text: &str) -> Result<Self, &'static str> {
        text.parse().map_err(|_| text::BOOL)
    }
}

/// No text form (the default): bytes have many spellings (hex, base64, ...), and a client
/// would have to guess one.
impl CursorValue for Vec<u8> {
    fn write(&self, out: &mut Writer) {
        out.varint(self.len() as u64);
        out.bytes(self);
    }
    fn read(input: &mut Reader<'_>) -> Result<Self, CursorError> {
        let len = input.len()?;
        input.take(len).map(<[u8]>::to_vec)
    }
}

impl CursorValue for String {
    fn write(&self, out: &mut Writer) {
        out.varint(self.len() as u64);
        out.bytes(self.as_bytes());
    }
    fn read(input: &mut Reader<'_>) -> Result<Self, CursorError> {
        let len = input.len()?;
        match std::str::from_utf8(input.take(len)?) {
            Ok(text) => Ok(text.to_owned()),
            Err(_) => Err(invalid("a string is not UTF-8")),
        }
    }
    fn from_text(text: &str) -> Result<Self, &'static str> {
        Ok(text.to_owned())
    }
    /// PostgreSQL's text holds no NUL character (SQLite's and MySQL's do).
    fn check_bind(&self, engine: Engine) -> Result<(), CursorError> {
        match engine {
            Engine::Postgres if self.contains('\0') => {
                Err(unbindable(engine, "a string holding a NUL character"))
            }
            _ => Ok(()),
        }
    }
}

impl<T: CursorValue> CursorValue for Option<T> {
    // NULL equals nothing, so `None` shares no row with another value.
    const EXACT_EQ: bool = T::EXACT_EQ;
    fn write(&self, out: &mut Writer) {
        match self {
            None => out.byte(0),
            Some(value) => {
                out.byte(1);
                value.write(out);
            }
        }
    }
    fn read(input: &mut Reader<'_>) -> Result<Self, CursorError> {
        match input.byte()? {
            0 => Ok(None),
            1 => T::read(input).map(Some),
            other => Err(invalid(format!("an option's tag is 0 or 1, found {other}"))),
        }
    }
    fn from_text(text: &str) -> Result<Self, &'static str> {
        T::from_text(text).map(Some)
    }
    fn check_bind(&self, engine: Engine) -> Result<(), CursorError> {
        self.as_ref().map_or(Ok(()), |value| value.check_bind(engine))
    }
}

/// Tuples, for hand-built cursors and tests: the elements in order. No text form (the default).
macro_rules! tuple_values {
    ($(($($name:ident),+))*) => {$(
        impl<$($name: CursorValue),+> CursorValue for ($($name,)+) {
            #[allow(non_snake_case)]
            fn write(&self, out: &mut Writer) {
                let ($($name,)+) = self;
                $($name.write(out);)+
            }
            fn read(input: &mut Reader<'_>) -> Result<Self, CursorError> {
                Ok(($($name::read(input)?,)+))
            }
            #[allow(non_snake_case)]
            fn check_bind(&self, engine: Engine) -> Result<(), CursorError> {
                let ($($name,)+) = self;
                $($name.check_bind(engine)?;)+
                Ok(())
            }
        }
    )*};
}

tuple_values! { (A) (A, B) (A, B, C) (A, B, C, D) (A, B, C, D, E) (A, B, C, D, E, F) }

#[cfg(feature = "chrono")]
mod chrono_values;

#[cfg(feature = "time")]
mod time_values;

#[cfg(feature = "numeric")]
mod decimal_values;

#[cfg(feature = "uuid")]
impl CursorValue for uuid::Uuid {
    const EXACT_EQ: bool = true;
    fn write(&self, out: &mut Writer) {
        out.bytes(self.as_bytes());
    }
    fn read(input: &mut Reader<'_>) -> Result<Self, CursorError> {
        input.array().map(uuid::Uuid::from_bytes)
    }
    fn from_text(text: &str) -> Result<Self, &'static str> {
        uuid::Uuid::try_parse(text).map_err(|_| text::UUID)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn round_trip<T: CursorValue + PartialEq + std::fmt::Debug>(value: T) -> Vec<u8> {
        let mut out = Writer::default();
        value.write(&mut out);
        let bytes = out.into_bytes();
        let mut input = Reader::new(&bytes);
        assert_eq!(T::read(&mut input).as_ref(), Ok(&value), "{bytes:?}");
        assert!(input.rest().is_empty(), "{value:?} left bytes unread");
        bytes
    }

    #[test]
    fn integers_round_trip_at_their_limits() {
        for value in [0, 1, -1, 63, -64, 64, i64::MIN, i64::MAX] {
            round_trip(value);
        }
        for value in [0, 127, 128, u64::MAX] {
            round_trip(value);
        }
        round_trip((i32::MIN, i16::MAX, u8::MAX, i8::MIN, u128::MAX, i128::MIN));
        round_trip((usize::MAX, isize::MIN, u16::MAX, u32::MAX));
        assert_eq!(round_trip(-1i64), [1]);
        assert_eq!(round_trip(300u32), [0xac, 0x02]);
    }

    #[test]
    fn floats_keep_their_bits() {
        round_trip(f64::MIN_POSITIVE);
        let bytes = round_trip(-0.0f64);
        let back = f64::read(&mut Reader::new(&bytes)).unwrap();
        assert!(back.is_sign_negative());
    }

    #[test]
    fn strings_bytes_and_options_round_trip() {
        assert_eq!(round_trip(String::from("héllo")), b"\x06h\xc3\xa9llo");
        round_trip(vec![0u8, 255]);
        round_trip(Some(Some(String::new())));
        round_trip(None::<i64>);
    }

    #[test]
    fn bad_bytes_are_errors() {
        let read = |bytes: &[u8]| <(String,)>::read(&mut Reader::new(bytes));
        assert_eq!(read(&[5, b'a']), Err(CursorError::Truncated));
        assert!(matches!(read(&[1, 0xff]), Err(CursorError::InvalidValues(_))));
        assert!(matches!(bool::read(&mut Reader::new(&[2])), Err(CursorError::InvalidValues(_))));
        let overlong = [0xff; 11];
        assert!(matches!(
            u64::read(&mut Reader::new(&overlong)),
            Err(CursorError::InvalidValues(_))
        ));
        let too_big = i32::read(&mut Reader::new(&[0xfe, 0xff, 0xff, 0xff, 0x7f]));
        assert!(matches!(too_big, Err(CursorError::InvalidValues(_))));
        assert_eq!(u64::read(&mut Reader::new(&[0x80, 0x80])), Err(CursorError::Truncated));
        assert_eq!(i64::read(&mut Reader::new(&[])), Err(CursorError::Truncated));
    }

    /// A length prefix claiming more than the token holds allocates nothing.
    #[test]
    fn a_huge_length_prefix_is_truncated_not_allocated() {
        let mut out = Writer::default();
        out.varint(u64::MAX >> 1);
        let bytes = out.into_bytes();
        assert_eq!(Vec::<u8>::read(&mut Reader::new(&bytes)), Err(CursorError::Truncated));
    }

    #[cfg(feature = "chrono")]
    #[test]
    fn chrono_values_round_trip_exactly() {
        use chrono::{DateTime, FixedOffset, NaiveDate, NaiveTime};
        let at = DateTime::from_timestamp(1_700_000_000, 123_456_789).unwrap();
        assert_eq!(round_trip(at.naive_utc()).len(), 5 + 4);
        round_trip(at);
        round_trip(at.with_timezone(&FixedOffset::west_opt(5 * 3600).unwrap()));
        round_trip(DateTime::<chrono::Utc>::MIN_UTC);
        round_trip(DateTime::<chrono::Utc>::MAX_UTC.naive_utc());
        round_trip(NaiveDate::from_ymd_opt(-40, 2, 29).unwrap());
        round_trip(NaiveTime::from_hms_nano_opt(23, 59, 59, 1_999_999_999).unwrap());
        let mut out = Writer::default();
        out.signed(i64::MAX);
        out.varint(0);
        let bytes = out.into_bytes();
        assert!(matches!(
            chrono::NaiveDateTime::read(&mut Reader::new(&bytes)),
            Err(CursorError::InvalidValues(_))
        ));
    }
}
