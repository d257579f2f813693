//! The time crate's dates and times (feature `time`), in the same bytes as chrono's
//! (`value.rs`'s table): a token issued before a model moved from chrono to time, or back, still
//! reads. Their text is read as chrono's is (`text.rs`).

use time::{Date, Month, OffsetDateTime, PrimitiveDateTime, Time, UtcOffset};

use super::text::{self, Clock, Written, Ymd};
use super::{invalid, CursorError, CursorValue, Engine, Reader, Writer};
use crate::token::bind::{check_date, check_instant};

/// The Julian day of 0001-01-01 minus one: chrono counts a date's days from the common era
/// (0001-01-01 is day 1), the time crate by Julian day.
const JULIAN_DAY_OF_CE: i32 = 1_721_425;

/// An instant, written as UTC seconds since 1970 and nanoseconds.
fn write_instant(at: OffsetDateTime, out: &mut Writer) {
    out.signed(at.unix_timestamp());
    out.varint(at.nanosecond().into());
}

fn read_instant(input: &mut Reader<'_>) -> Result<OffsetDateTime, CursorError> {
    let (seconds, nanos) = (input.signed()?, input.varint()?);
    u32::try_from(nanos)
        .ok()
        .and_then(|nanos| {
            OffsetDateTime::from_unix_timestamp(seconds).ok()?.replace_nanosecond(nanos).ok()
        })
        .ok_or_else(|| invalid("a timestamp out of range"))
}

/// A date written as text, when it is one.
fn date_of((year, month, day): Ymd) -> Option<Date> {
    Date::from_calendar_date(year, Month::try_from(month).ok()?, day).ok()
}

fn time_of(clock: Clock) -> Option<Time> {
    Time::from_hms_nano(clock.hour, clock.minute, clock.second, clock.nano).ok()
}

/// The date and time written as text, without its offset.
fn local(written: Written) -> Option<PrimitiveDateTime> {
    Some(PrimitiveDateTime::new(date_of(written.date)?, time_of(written.clock)?))
}

/// The date and time written as text, in UTC when an offset is written: through the UNIX
/// timestamp, which refuses a UTC date past the crate's range of years (as `write` would need).
fn utc(written: Written) -> Option<PrimitiveDateTime> {
    let local = local(written)?;
    let Some(offset) = written.offset else {
        return Some(local);
    };
    let seconds = local.assume_utc().unix_timestamp() - i64::from(offset);
    let at = OffsetDateTime::from_unix_timestamp(seconds).ok()?;
    let at = at.replace_nanosecond(local.nanosecond()).ok()?;
    Some(PrimitiveDateTime::new(at.date(), at.time()))
}

/// Diesel's `Timestamp` (and SQLite's and MySQL's date-times): the date and time as if in UTC.
impl CursorValue for PrimitiveDateTime {
    fn write(&self, out: &mut Writer) {
        write_instant(self.assume_utc(), out);
    }
    fn read(input: &mut Reader<'_>) -> Result<Self, CursorError> {
        read_instant(input).map(|at| PrimitiveDateTime::new(at.date(), at.time()))
    }
    fn check_bind(&self, engine: Engine) -> Result<(), CursorError> {
        self.assume_utc().check_bind(engine)
    }
    /// As chrono's `NaiveDateTime`: with an offset, the UTC date and time; without, as written.
    fn from_text(text: &str) -> Result<Self, &'static str> {
        text::date_time(text).and_then(utc).ok_or(text::DATE_TIME)
    }
}

/// Diesel's `Timestamptz`: the instant, then the offset it is shown at, so the value reads back
/// exactly as written (PostgreSQL gives it back at UTC, an offset of one byte).
impl CursorValue for OffsetDateTime {
    fn write(&self, out: &mut Writer) {
        write_instant(*self, out);
        out.signed(self.offset().whole_seconds().into());
    }
    /// Read as the local date and time it shows, so every value the crate holds reads back,
    /// also one whose UTC instant lies past the crate's range of years.
    fn read(input: &mut Reader<'_>) -> Result<Self, CursorError> {
        let (seconds, nanos, offset) = (input.signed()?, input.varint()?, input.signed()?);
        let offset = i32::try_from(offset)
            .ok()
            .and_then(|offset| UtcOffset::from_whole_seconds(offset).ok())
            .ok_or_else(|| invalid("a UTC offset out of range"))?;
        seconds
            .checked_add(offset.whole_seconds().into())
            .zip(u32::try_from(nanos).ok())
            .and_then(|(local, nanos)| {
                OffsetDateTime::from_unix_timestamp(local).ok()?.replace_nanosecond(nanos).ok()
            })
            .map(|local| PrimitiveDateTime::new(local.date(), local.time()).assume_offset(offset))
            .ok_or_else(|| invalid("a timestamp out of range"))
    }
    /// Bound as its UTC instant (the time crate has no leap seconds).
    fn check_bind(&self, engine: Engine) -> Result<(), CursorError> {
        check_instant(engine, self.unix_timestamp(), self.nanosecond())
    }
    /// At the offset written, or at UTC without one.
    fn from_text(text: &str) -> Result<Self, &'static str> {
        text::date_time(text)
            .and_then(|written| {
                let offset = UtcOffset::from_whole_seconds(written.offset.unwrap_or(0)).ok()?;
                Some(local(written)?.assume_offset(offset))
            })
            .ok_or(text::DATE_TIME)
    }
}

impl CursorValue for Date {
    fn write(&self, out: &mut Writer) {
        out.signed((self.to_julian_day() - JULIAN_DAY_OF_CE).into());
    }
    fn read(input: &mut Reader<'_>) -> Result<Self, CursorError> {
        i32::try_from(input.signed()?)
            .ok()
            .and_then(|days| days.checked_add(JULIAN_DAY_OF_CE))
            .and_then(|julian_day| Date::from_julian_day(julian_day).ok())
            .ok_or_else(|| invalid("a date out of range"))
    }
    fn check_bind(&self, engine: Engine) -> Result<(), CursorError> {
        check_date(engine, (self.to_julian_day() - JULIAN_DAY_OF_CE).into(), self.year())
    }
    fn from_text(text: &str) -> Result<Self, &'static str> {
        text::date(text).and_then(date_of).ok_or(text::DATE)
    }
}

impl CursorValue for Time {
    fn write(&self, out: &mut Writer) {
        let (hours, minutes, seconds, nanos) = self.as_hms_nano();
        out.varint(u64::from(hours) * 3600 + u64::from(minutes) * 60 + u64::from(seconds));
        out.varint(nanos.into());
    }
    fn read(input: &mut Reader<'_>) -> Result<Self, CursorError> {
        let (seconds, nanos) = (input.varint()?, input.varint()?);
        let time = match (u32::try_from(seconds), u32::try_from(nanos)) {
            (Ok(seconds @ 0..86_400), Ok(nanos)) => Time::from_hms_nano(
                (seconds / 3600) as u8,
                (seconds / 60 % 60) as u8,
                (seconds % 60) as u8,
                nanos,
            )
            .ok(),
            _ => None,
        };
        time.ok_or_else(|| invalid("a time of day out of range"))
    }
    fn from_text(text: &str) -> Result<Self, &'static str> {
        text::clock(text).and_then(time_of).ok_or(text::TIME)
    }
}

#[cfg(test)]
mod tests {
    use time::macros::{datetime, offset, time};
    use time::Month;

    use super::*;
    use crate::token::builtin::tests::round_trip;

    /// Exact equality: `OffsetDateTime`'s `==` compares instants only, so its offset is compared
    /// on its own.
    #[test]
    fn time_values_round_trip_exactly() {
        let at = datetime!(2023-11-14 22:13:20.123456789);
        assert_eq!(round_trip(at).len(), 5 + 4);
        let local = at.assume_offset(offset!(-5));
        let back = read_back(local);
        assert_eq!((back, back.offset()), (local, offset!(-5)));
        round_trip(at.assume_utc());
        round_trip(PrimitiveDateTime::MIN);
        round_trip(PrimitiveDateTime::MAX);
        round_trip(PrimitiveDateTime::MIN.assume_offset(offset!(+23:59:59)));
        round_trip(PrimitiveDateTime::MAX.assume_offset(offset!(-23:59:59)));
        round_trip(leap_day_of_year_minus_40());
        round_trip(Date::MIN);
        round_trip(Date::MAX);
        round_trip(time!(23:59:59.999_999_999));
        round_trip(Time::MIDNIGHT);
    }

    /// February 29th of the year -40 (41 BC, proleptic Gregorian), as chrono's test writes it.
    fn leap_day_of_year_minus_40() -> Date {
        Date::from_calendar_date(-40, Month::February, 29).unwrap()
    }

    fn read_back(value: OffsetDateTime) -> OffsetDateTime {
        let mut out = Writer::default();
        value.write(&mut out);
        OffsetDateTime::read(&mut Reader::new(&out.into_bytes())).unwrap()
    }

    /// The same bytes as chrono's types, so tokens survive a move between the two crates.
    #[cfg(feature = "chrono")]
    #[test]
    fn time_values_are_written_as_chrono_writes_them() {
        fn bytes(value: impl CursorValue) -> Vec<u8> {
            let mut out = Writer::default();
            value.write(&mut out);
            out.into_bytes()
        }
        let chrono_at = chrono::DateTime::from_timestamp(-1_700_000_000, 7).unwrap();
        let at = OffsetDateTime::from_unix_timestamp(-1_700_000_000).unwrap();
        let at = at.replace_nanosecond(7).unwrap();
        assert_eq!(
            bytes(PrimitiveDateTime::new(at.date(), at.time())),
            bytes(chrono_at.naive_utc())
        );
        let east = chrono::FixedOffset::east_opt(3600).unwrap();
        assert_eq!(bytes(at.to_offset(offset!(+1))), bytes(chrono_at.with_timezone(&east)));
        let chrono_date = chrono::NaiveDate::from_ymd_opt(-40, 2, 29).unwrap();
        assert_eq!(bytes(leap_day_of_year_minus_40()), bytes(chrono_date));
        let chrono_time = chrono::NaiveTime::from_hms_nano_opt(13, 5, 9, 42).unwrap();
        assert_eq!(bytes(time!(13:05:09.000_000_042)), bytes(chrono_time));
    }

    /// The same forms as chrono's types, read to the same values.
    #[test]
    fn time_values_read_their_text() {
        use crate::token::builtin::text::tests::{reads, refuses, NOT_DATE_TIMES};
        use crate::token::builtin::text::{DATE, DATE_TIME, TIME};

        reads("2024-03-01", datetime!(2024-03-01 0:00));
        reads("2024-03-01T10:00:00+02:00", datetime!(2024-03-01 8:00));
        reads("2024-03-01T00:30:00+01:00", datetime!(2024-02-29 23:30));
        reads("2024-03-01 10:00:00 02:00", datetime!(2024-03-01 8:00));
        reads("2024-03-01T09:30:15.123456789", datetime!(2024-03-01 9:30:15.123456789));
        reads("0000-01-01T00:00:00+01:00", datetime!(-0001-12-31 23:00));
        // In UTC, a year past the crate's last.
        refuses::<PrimitiveDateTime>("9999-12-31T23:00:00-05:00", DATE_TIME);
        let kept = OffsetDateTime::from_text("2024-03-01T10:00:00.5-09:30").unwrap();
        let expected = datetime!(2024-03-01 10:00:00.5 -09:30);
        assert_eq!((kept, kept.offset()), (expected, expected.offset()));
        reads("2024-03-01T10:00:00.5-09:30", expected);
        let utc = OffsetDateTime::from_text("2024-03-01T09:30").unwrap();
        assert_eq!((utc, utc.offset()), (datetime!(2024-03-01 9:30 UTC), offset!(UTC)));
        reads("9999-12-31T23:00:00-05:00", datetime!(9999-12-31 23:00 -5));
        let not_days =
            ["2024-02-30", "2023-02-29T00:00", "2024-03-01T24:00", "2024-03-01T23:59:60"];
        for &text in NOT_DATE_TIMES.iter().chain(&not_days) {
            refuses::<PrimitiveDateTime>(text, DATE_TIME);
            refuses::<OffsetDateTime>(text, DATE_TIME);
        }
        reads("2024-02-29", datetime!(2024-02-29 0:00).date());
        reads("0000-01-01", Date::from_calendar_date(0, Month::January, 1).unwrap());
        for text in ["2023-02-29", "2024-03-01T00:00", "2024-3-1", "2024-00-01", ""] {
            refuses::<Date>(text, DATE);
        }
        reads("09:30", time!(9:30));
        reads("23:59:59.999999999", time!(23:59:59.999_999_999));
        for text in ["24:00", "9:30", "09:60", "23:59:60", "09:30:00Z", "2024-03-01T09:30", ""] {
            refuses::<Time>(text, TIME);
        }
    }

    /// chrono's types and these read a text alike: to the same bytes, or both refuse it.
    #[cfg(feature = "chrono")]
    #[test]
    fn time_values_read_text_as_chrono_does() {
        fn bytes<T: CursorValue>(text: &str) -> Option<Vec<u8>> {
            let mut out = Writer::default();
            T::from_text(text).ok()?.write(&mut out);
            Some(out.into_bytes())
        }
        let texts = ["2024-03-01", "2024-03-01T00:30:00.000001+01:00", "2024-03-01 09:30 02:00"];
        let more = ["2024-02-29T23:59:59.999999999Z", "0000-01-01T00:00:00-23:59", "2023-02-29"];
        let naive = crate::token::builtin::text::tests::NOT_DATE_TIMES;
        for &text in texts.iter().chain(&more).chain(naive) {
            let same = |a: Option<Vec<u8>>, b: Option<Vec<u8>>| assert_eq!(a, b, "{text:?}");
            same(bytes::<PrimitiveDateTime>(text), bytes::<chrono::NaiveDateTime>(text));
            same(
                bytes::<OffsetDateTime>(text),
                bytes::<chrono::DateTime<chrono::FixedOffset>>(text),
            );
        }
        for text in ["2024-02-29", "2023-02-29", "0000-01-01", "2024-13-01"] {
            assert_eq!(bytes::<Date>(text), bytes::<chrono::NaiveDate>(text), "{text:?}");
        }
        for text in ["00:00", "09:30:15.25", "23:59:59.999999999", "24:00"] {
            assert_eq!(bytes::<Time>(text), bytes::<chrono::NaiveTime>(text), "{text:?}");
        }
    }

    /// Whether `bytes` are refused as a `T` with [`CursorError::InvalidValues`].
    fn invalid<T: CursorValue>(bytes: &[u8]) -> bool {
        matches!(T::read(&mut Reader::new(bytes)), Err(CursorError::InvalidValues(_)))
    }

    fn signed(values: &[i64]) -> Writer {
        let mut out = Writer::default();
        values.iter().for_each(|&value| out.signed(value));
        out
    }

    #[test]
    fn out_of_range_time_values_are_errors() {
        let too_late = signed(&[i64::MAX, 0]).into_bytes();
        assert!(invalid::<PrimitiveDateTime>(&too_late));
        let mut nanos = signed(&[0]);
        nanos.varint(1_000_000_000);
        assert!(invalid::<PrimitiveDateTime>(&nanos.into_bytes()));
        // An offset past the crate's largest (25:59:59).
        assert!(invalid::<OffsetDateTime>(&signed(&[0, 0, 26 * 3600]).into_bytes()));
        // The latest date and time, shown one hour east: a year past the crate's range.
        let mut past_range = Writer::default();
        PrimitiveDateTime::MAX.write(&mut past_range);
        past_range.signed(3600);
        assert!(invalid::<OffsetDateTime>(&past_range.into_bytes()));
        assert!(invalid::<Date>(&signed(&[i64::from(i32::MAX)]).into_bytes()));
        assert!(invalid::<Date>(&signed(&[i64::MIN]).into_bytes()));
        let mut midnight_again = Writer::default();
        midnight_again.varint(86_400);
        midnight_again.varint(0);
        assert!(invalid::<Time>(&midnight_again.into_bytes()));
        let mut too_many_nanos = Writer::default();
        too_many_nanos.varint(0);
        too_many_nanos.varint(1_000_000_000);
        assert!(invalid::<Time>(&too_many_nanos.into_bytes()));
        assert_eq!(Time::read(&mut Reader::new(&[0])), Err(CursorError::Truncated));
    }
}
