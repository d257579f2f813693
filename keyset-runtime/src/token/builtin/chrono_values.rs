//! chrono's dates and times (feature `chrono`): their bytes (`value.rs`'s table), the checks
//! that they bind, and their text (`?from=2024-03-01`), read through `text.rs`'s shapes as the
//! time crate's are.

use chrono::{
    DateTime, Datelike, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Timelike, Utc,
};

use super::text::{clock, date, date_time, Clock, Written, Ymd, DATE, DATE_TIME, TIME};
use super::{invalid, CursorError, CursorValue, Engine, Reader, Writer};
use crate::token::bind::{check_date, check_instant, check_time};

impl CursorValue for DateTime<Utc> {
    fn write(&self, out: &mut Writer) {
        out.signed(self.timestamp());
        out.varint(self.timestamp_subsec_nanos().into());
    }
    fn read(input: &mut Reader<'_>) -> Result<Self, CursorError> {
        let (seconds, nanos) = (input.signed()?, input.varint()?);
        u32::try_from(nanos)
            .ok()
            .and_then(|nanos| DateTime::from_timestamp(seconds, nanos))
            .ok_or_else(|| invalid("a timestamp out of range"))
    }
    fn check_bind(&self, engine: Engine) -> Result<(), CursorError> {
        check_instant(engine, self.timestamp(), self.timestamp_subsec_nanos())
    }
    fn from_text(text: &str) -> Result<Self, &'static str> {
        naive_date_time(text).map(|at| at.and_utc())
    }
}

impl CursorValue for NaiveDateTime {
    fn write(&self, out: &mut Writer) {
        self.and_utc().write(out);
    }
    fn read(input: &mut Reader<'_>) -> Result<Self, CursorError> {
        DateTime::<Utc>::read(input).map(|at| at.naive_utc())
    }
    fn check_bind(&self, engine: Engine) -> Result<(), CursorError> {
        self.and_utc().check_bind(engine)
    }
    fn from_text(text: &str) -> Result<Self, &'static str> {
        naive_date_time(text)
    }
}

impl CursorValue for DateTime<FixedOffset> {
    fn write(&self, out: &mut Writer) {
        self.to_utc().write(out);
        out.signed(self.offset().local_minus_utc().into());
    }
    fn read(input: &mut Reader<'_>) -> Result<Self, CursorError> {
        let at = DateTime::<Utc>::read(input)?;
        i32::try_from(input.signed()?)
            .ok()
            .and_then(FixedOffset::east_opt)
            .map(|offset| at.with_timezone(&offset))
            .ok_or_else(|| invalid("a UTC offset out of range"))
    }
    /// Bound as its UTC instant.
    fn check_bind(&self, engine: Engine) -> Result<(), CursorError> {
        self.to_utc().check_bind(engine)
    }
    fn from_text(text: &str) -> Result<Self, &'static str> {
        fixed(text)
    }
}

impl CursorValue for NaiveDate {
    fn write(&self, out: &mut Writer) {
        out.signed(self.num_days_from_ce().into());
    }
    fn read(input: &mut Reader<'_>) -> Result<Self, CursorError> {
        i32::try_from(input.signed()?)
            .ok()
            .and_then(NaiveDate::from_num_days_from_ce_opt)
            .ok_or_else(|| invalid("a date out of range"))
    }
    fn check_bind(&self, engine: Engine) -> Result<(), CursorError> {
        check_date(engine, self.num_days_from_ce().into(), self.year())
    }
    fn from_text(text: &str) -> Result<Self, &'static str> {
        naive_date(text)
    }
}

impl CursorValue for NaiveTime {
    fn write(&self, out: &mut Writer) {
        out.varint(self.num_seconds_from_midnight().into());
        out.varint(self.nanosecond().into());
    }
    fn read(input: &mut Reader<'_>) -> Result<Self, CursorError> {
        let (seconds, nanos) = (input.varint()?, input.varint()?);
        u32::try_from(seconds)
            .ok()
            .zip(u32::try_from(nanos).ok())
            .and_then(|(seconds, nanos)| {
                NaiveTime::from_num_seconds_from_midnight_opt(seconds, nanos)
            })
            .ok_or_else(|| invalid("a time of day out of range"))
    }
    fn check_bind(&self, engine: Engine) -> Result<(), CursorError> {
        check_time(engine, self.nanosecond())
    }
    fn from_text(text: &str) -> Result<Self, &'static str> {
        naive_time(text)
    }
}

fn time_of(clock: Clock) -> Option<NaiveTime> {
    let Clock { hour, minute, second, nano } = clock;
    NaiveTime::from_hms_nano_opt(hour.into(), minute.into(), second.into(), nano)
}

fn date_of((year, month, day): Ymd) -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(year, month.into(), day.into())
}

fn local(written: Written) -> Option<NaiveDateTime> {
    Some(date_of(written.date)?.and_time(time_of(written.clock)?))
}

/// With an offset, the UTC date and time; without one, as written.
fn naive_date_time(text: &str) -> Result<NaiveDateTime, &'static str> {
    date_time(text)
        .and_then(|written| match written.offset {
            None => local(written),
            Some(offset) => FixedOffset::east_opt(offset)?
                .from_local_datetime(&local(written)?)
                .single()
                .map(|at| at.naive_utc()),
        })
        .ok_or(DATE_TIME)
}

/// At the offset written, or at `+00:00` without one.
fn fixed(text: &str) -> Result<DateTime<FixedOffset>, &'static str> {
    date_time(text)
        .and_then(|written| {
            let offset = FixedOffset::east_opt(written.offset.unwrap_or(0))?;
            offset.from_local_datetime(&local(written)?).single()
        })
        .ok_or(DATE_TIME)
}

fn naive_date(text: &str) -> Result<NaiveDate, &'static str> {
    date(text).and_then(date_of).ok_or(DATE)
}

fn naive_time(text: &str) -> Result<NaiveTime, &'static str> {
    clock(text).and_then(time_of).ok_or(TIME)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::builtin::text::tests::{reads, refuses, NOT_DATE_TIMES};

    #[test]
    fn chrono_values_read_their_text() {
        use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, Utc};
        let at = |(year, month, day), (hour, minute, second), nano| {
            NaiveDate::from_ymd_opt(year, month, day)
                .unwrap()
                .and_hms_nano_opt(hour, minute, second, nano)
                .unwrap()
        };
        reads("2024-03-01", at((2024, 3, 1), (0, 0, 0), 0));
        reads("2024-03-01T10:00:00+02:00", at((2024, 3, 1), (8, 0, 0), 0));
        reads("2024-03-01T00:30:00+01:00", at((2024, 2, 29), (23, 30, 0), 0));
        reads("2024-03-01T10:00:00-05:30", at((2024, 3, 1), (15, 30, 0), 0));
        reads("2024-03-01 10:00:00 02:00", at((2024, 3, 1), (8, 0, 0), 0));
        reads("2024-03-01T09:30", at((2024, 3, 1), (9, 30, 0), 0));
        reads("2024-03-01T09:30:15.123456789", at((2024, 3, 1), (9, 30, 15), 123_456_789));
        reads("2024-03-01T09:30:15.5z", at((2024, 3, 1), (9, 30, 15), 500_000_000));
        reads("2024-03-01T09:30:00", at((2024, 3, 1), (9, 30, 0), 0).and_utc());
        reads("2024-03-01T09:30:00-01:00", at((2024, 3, 1), (10, 30, 0), 0).and_utc());
        let not_days =
            ["2024-02-30", "2023-02-29T00:00", "2024-03-01T24:00", "2024-03-01T23:59:60"];
        for &text in NOT_DATE_TIMES.iter().chain(&not_days) {
            refuses::<NaiveDateTime>(text, DATE_TIME);
            refuses::<DateTime<Utc>>(text, DATE_TIME);
            refuses::<DateTime<FixedOffset>>(text, DATE_TIME);
        }

        // Kept at its offset, as chrono's own RFC 3339 reading keeps it.
        for text in [
            "2024-03-01T10:00:00+02:00",
            "2024-03-01T10:00:00.000001-09:30",
            "0000-01-01T00:00:00Z",
        ] {
            let value = DateTime::<FixedOffset>::from_text(text).unwrap();
            let expected = DateTime::parse_from_rfc3339(text).unwrap();
            assert_eq!((value, value.offset()), (expected, expected.offset()), "{text}");
            reads(text, expected);
        }
        let naive = DateTime::<FixedOffset>::from_text("2024-03-01T10:00").unwrap();
        assert_eq!(naive.offset(), &FixedOffset::east_opt(0).unwrap());
        assert_eq!(naive.naive_utc(), at((2024, 3, 1), (10, 0, 0), 0));

        reads("2024-02-29", NaiveDate::from_ymd_opt(2024, 2, 29).unwrap());
        for text in ["2023-02-29", "2024-03-01T00:00", "2024-3-1", ""] {
            refuses::<NaiveDate>(text, DATE);
        }
        reads("09:30", NaiveTime::from_hms_opt(9, 30, 0).unwrap());
        reads("23:59:59.999999999", NaiveTime::from_hms_nano_opt(23, 59, 59, 999_999_999).unwrap());
        for text in ["24:00", "9:30", "09:60", "23:59:60", "09:30:00Z", "2024-03-01T09:30", ""] {
            refuses::<NaiveTime>(text, TIME);
        }
    }
}
