//! How a cursor's key values are written into a token: [`CursorValue`], a small binary codec
//! implemented for the types Diesel sorts by.
//!
//! Why not serde: a token holds a handful of scalars, and serde's data model would route a
//! timestamp through chrono's ISO-8601 text form (formatting and parsing it was half the cost of
//! a token); `#[derive(Serialize, Deserialize)]` on every cursor was also most of the derive's
//! compile time. Here a timestamp is two integers, an integer a varint, and the generated cursor
//! impl is one call per field.
//!
//! The formats, each self-delimiting so values simply follow each other:
//!
//! | type | bytes |
//! |---|---|
//! | `u8`, `i8` | the byte |
//! | `u16`..`u64`, `usize` | LEB128 varint |
//! | `i16`..`i64`, `isize` | zigzag, then LEB128 varint |
//! | `u128`, `i128` | 16 bytes, little-endian |
//! | `bool` | `0` or `1` |
//! | `f32`, `f64` | the IEEE bits, little-endian (exact: `-0.0` and NaN payloads survive) |
//! | `String`, `Vec<u8>` | varint length, then the bytes (UTF-8 checked) |
//! | `Option<T>` | `0`, or `1` then `T` |
//! | chrono `NaiveDateTime`, `DateTime<Utc>` | zigzag varint seconds since 1970 (UTC), varint nanoseconds |
//! | chrono `DateTime<FixedOffset>` | as `DateTime<Utc>`, then the offset in seconds (zigzag varint) |
//! | chrono `NaiveDate` | zigzag varint days since 0001-01-01 |
//! | chrono `NaiveTime` | varint seconds since midnight, varint nanoseconds |
//! | `uuid::Uuid` | its 16 bytes |
//! | time `PrimitiveDateTime`, `OffsetDateTime`, `Date`, `Time` | as chrono's `NaiveDateTime`, `DateTime<FixedOffset>`, `NaiveDate`, `NaiveTime` (the same bytes) |
//! | `bigdecimal::BigDecimal` | zigzag varint scale (at most 16383 either way, PostgreSQL's largest); varint of the unscaled integer's byte length shifted left once, the low bit set when negative; its magnitude, little-endian (`19.99` is 4 bytes) |
//!
//! Reading never panics and allocates only what the token holds: a length prefix is checked
//! against the bytes left before anything is allocated. The impls are in `builtin.rs`.
//!
//! A value also has a text form ([`CursorValue::from_text`], its table there), for a page that
//! starts at a value a client names in a query string; the built-in ones are in
//! `builtin/text.rs`.

use super::bind::Engine;
use super::error::CursorError;

/// A value that can travel in a cursor token: every sort key's type implements it, and so does
/// the generated `<Model>Cursor` (its fields in order).
///
/// Implemented for integers, `bool`, floats, `String`, `Vec<u8>` and `Option<T>`, for chrono's
/// dates and times with the `chrono` feature, `uuid::Uuid` with the `uuid` feature, the time
/// crate's dates and times with the `time` feature and `bigdecimal::BigDecimal` (Diesel's
/// `Numeric`) with the `numeric` feature. For a type of your own, write it as one of those:
///
/// ```
/// use keyset_runtime::token::{CursorValue, Reader, Writer};
/// use keyset_runtime::CursorError;
///
/// /// A newtype id, bound to SQL as its `i64`.
/// #[derive(Debug, Clone, PartialEq)]
/// struct PostId(i64);
///
/// impl CursorValue for PostId {
///     fn write(&self, out: &mut Writer) {
///         self.0.write(out);
///     }
///     fn read(input: &mut Reader<'_>) -> Result<Self, CursorError> {
///         i64::read(input).map(PostId)
///     }
/// }
///
/// let mut out = Writer::default();
/// PostId(42).write(&mut out);
/// let bytes = out.into_bytes();
/// assert_eq!(PostId::read(&mut Reader::new(&bytes)), Ok(PostId(42)));
/// ```
///
/// Its text form, for a page that starts at a value a client names, is refused until the type
/// says what it is ([`from_text`](Self::from_text)).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be written into a cursor token",
    label = "a sort key's type must implement `CursorValue`",
    note = "integers, bool, floats, String, Vec<u8> and Option<T> are built in; enable keyset-runtime's `chrono`, `uuid`, `time` or `numeric` feature for those types",
    note = "for a type of your own, implement `keyset_runtime::token::CursorValue` by writing it as a built-in type (see its docs)"
)]
pub trait CursorValue: Sized {
    /// Appends the value's bytes.
    fn write(&self, out: &mut Writer);
    /// Reads one value written by [`write`](Self::write), consuming exactly its bytes.
    fn read(input: &mut Reader<'_>) -> Result<Self, CursorError>;
    /// Whether `engine` can bind the value as its column's SQL type: checked on a decoded
    /// cursor before a page runs, so that a value a client wrote into a token and no column can
    /// hold (a NUL in PostgreSQL's text, a timestamp of the year −5000) is a [`CursorError`], not
    /// a database error. A value the engine can hold must pass, or tokens issued for rows would
    /// be refused.
    ///
    /// The default accepts every value: right for a type written as an integer, a bool, bytes
    /// or a UUID, which every engine binds whatever their value. A type written as a text, a
    /// float, a decimal or a date and time hands the check on to that type (see [`Engine`]).
    fn check_bind(&self, engine: Engine) -> Result<(), CursorError> {
        let _ = engine;
        Ok(())
    }
    /// Whether two values that a column holds equal are always written alike: true for
    /// integers, `bool` and UUIDs; false (the default) for text, which a collation may hold
    /// equal in another case or with trailing spaces, floats (`-0.0 = 0.0`), decimals
    /// (`1.0 = 1.00`) and dates and times (compared at the column's precision). A page among a
    /// set of such values ([`Paginate::among`](crate::Paginate::among)) drops the list's
    /// repeats and merges its seeks with `UNION ALL`; otherwise with `UNION`, which drops the
    /// rows two values share.
    #[doc(hidden)]
    const EXACT_EQ: bool = false;
    /// Reads the value from its text in a query string, for a page that starts at a value the
    /// client names (`GET /posts?sort=new&from=2024-03-01`) rather than at a token a page gave
    /// it: each sort key's value is read by its type. Errs with what the type takes, written for
    /// the client (``"a whole number from 0 to 255, e.g. `42`"``), to be shown beside the
    /// parameter's name.
    ///
    /// The text comes from the client: it must accept what a client would type, and never
    /// panic. A value it reads must write and read back (what [`write`](Self::write) writes,
    /// [`read`](Self::read) reads). A NULL of a nullable key has no text: `Option<T>` reads
    /// `T`'s text (as `Some`), so a page that starts at a text starts among the values, and one
    /// that starts at NULL is given in code. The built-in forms:
    ///
    /// | type | text |
    /// |---|---|
    /// | integers | what `str::parse` takes: an optional `+` or `-`, then digits (`42`, `-7`), in the type's range |
    /// | `f32`, `f64` | what `str::parse` takes (`1.5`, `-2e10`), finite: no NaN or infinity |
    /// | `bool` | `true` or `false` |
    /// | `String` | the text itself, as given (the empty text too) |
    /// | `Vec<u8>`, tuples | none: a page starts at such a key from a token only |
    /// | `Option<T>` | `T`'s text, read as `Some` (a NULL has no text) |
    /// | chrono `NaiveDateTime`, time `PrimitiveDateTime` | `2024-03-01T09:30:00` (taken as written), with an offset (`Z`, `+02:00`: converted to UTC), or a date (`2024-03-01`: midnight) |
    /// | chrono `DateTime<Utc>` | the same; a date and time without an offset is taken as UTC |
    /// | chrono `DateTime<FixedOffset>`, time `OffsetDateTime` | the same; kept at the offset written, or at `+00:00` without one |
    /// | chrono `NaiveDate`, time `Date` | `2024-03-01` |
    /// | chrono `NaiveTime`, time `Time` | `09:30`, `09:30:15` or `09:30:15.250` |
    /// | `uuid::Uuid` | hyphenated or simple (`67e55044-10b1-426f-9247-bb680e5fe0c8`, `67e5504410b1426f9247bb680e5fe0c8`), braced or as a URN (what `Uuid::try_parse` takes) |
    /// | `bigdecimal::BigDecimal` | what `FromStr` takes (`19.99`, `-1.5e3`), its scale kept and at most 16383 either way |
    ///
    /// Dates and times: a four-digit year; `T`, `t` or a space between the date and the time;
    /// the seconds may be left out, and a fraction has one to nine digits; an offset is `Z`, `z`
    /// or `±HH:MM` (RFC 3339's form), and a space stands for its `+` (a query string's decoding
    /// turns an unescaped `+` into a space). chrono's and the time crate's types take the same
    /// text, except where the time crate's range of years (±9999) ends: a `PrimitiveDateTime`
    /// refuses `9999-12-31T23:00:00-05:00`, whose UTC date lies past it.
    ///
    /// The default refuses every text, saying that the key takes no value as text and that the
    /// client pages from a token instead: right for a type of your own until you say what its
    /// text is. The `PostId` of the trait's docs reads as its `i64`:
    ///
    /// ```
    /// use keyset_runtime::token::{CursorValue, Reader, Writer};
    /// use keyset_runtime::CursorError;
    ///
    /// #[derive(Debug, Clone, PartialEq)]
    /// struct PostId(i64);
    ///
    /// impl CursorValue for PostId {
    ///     fn write(&self, out: &mut Writer) {
    ///         self.0.write(out);
    ///     }
    ///     fn read(input: &mut Reader<'_>) -> Result<Self, CursorError> {
    ///         i64::read(input).map(PostId)
    ///     }
    ///     fn from_text(text: &str) -> Result<Self, &'static str> {
    ///         i64::from_text(text).map(PostId)
    ///     }
    /// }
    ///
    /// assert_eq!(PostId::from_text("42"), Ok(PostId(42)));
    /// assert_eq!(i64::from_text("-7"), Ok(-7));
    /// assert_eq!(
    ///     u8::from_text("4.2"),
    ///     Err("a whole number from 0 to 255, e.g. `42`")
    /// );
    /// assert!(f64::from_text("NaN").is_err());
    /// assert_eq!(Option::<i64>::from_text("42"), Ok(Some(42)));
    /// // A type that says nothing of its text takes none.
    /// assert!(<(i64, i64)>::from_text("1,2").is_err());
    /// ```
    fn from_text(text: &str) -> Result<Self, &'static str> {
        let _ = text;
        Err(NO_TEXT_FORM)
    }
}

/// What [`CursorValue::from_text`] errs with for a type without a text form.
pub(crate) const NO_TEXT_FORM: &str =
    "no value as text: this key takes none, page from a token instead";

/// The bytes a token's values are written into.
#[derive(Debug, Default)]
pub struct Writer {
    bytes: Vec<u8>,
}

impl Writer {
    pub(crate) fn from_vec(bytes: Vec<u8>) -> Self {
        Writer { bytes }
    }

    /// The bytes written so far.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// Appends one byte.
    pub fn byte(&mut self, byte: u8) {
        self.bytes.push(byte);
    }

    /// Appends bytes as they are (the reader must know their length).
    pub fn bytes(&mut self, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
    }

    /// Appends an unsigned LEB128 varint: 7 bits per byte, the high bit set on all but the last.
    pub fn varint(&mut self, mut value: u64) {
        while value >= 0x80 {
            self.bytes.push(value as u8 | 0x80);
            value >>= 7;
        }
        self.bytes.push(value as u8);
    }

    /// Appends a signed integer as a varint of its zigzag form (small magnitudes stay short).
    pub fn signed(&mut self, value: i64) {
        self.varint(((value << 1) ^ (value >> 63)) as u64);
    }
}

/// The bytes of a token's values, read front to back. Every method fails with
/// [`CursorError::Truncated`] when the bytes end first.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    /// Reads `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes }
    }

    /// The bytes not read yet.
    pub fn rest(&self) -> &'a [u8] {
        self.bytes
    }

    /// The next `len` bytes.
    pub fn take(&mut self, len: usize) -> Result<&'a [u8], CursorError> {
        if len > self.bytes.len() {
            return Err(CursorError::Truncated);
        }
        let (taken, rest) = self.bytes.split_at(len);
        self.bytes = rest;
        Ok(taken)
    }

    /// The next `N` bytes.
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], CursorError> {
        let Some((taken, rest)) = self.bytes.split_first_chunk::<N>() else {
            return Err(CursorError::Truncated);
        };
        self.bytes = rest;
        Ok(*taken)
    }

    /// The next byte.
    pub fn byte(&mut self) -> Result<u8, CursorError> {
        self.array::<1>().map(|[byte]| byte)
    }

    /// An unsigned LEB128 varint written by [`Writer::varint`]; more than 64 bits is refused.
    pub fn varint(&mut self) -> Result<u64, CursorError> {
        let mut value = 0u64;
        for (at, &byte) in self.bytes.iter().enumerate().take(10) {
            let bits = u64::from(byte & 0x7f);
            // The tenth byte holds bit 63 only.
            if at == 9 && bits > 1 {
                break;
            }
            value |= bits << (7 * at);
            if byte < 0x80 {
                self.bytes = &self.bytes[at + 1..];
                return Ok(value);
            }
        }
        if self.bytes.len() < 10 && self.bytes.iter().all(|byte| byte >= &0x80) {
            return Err(CursorError::Truncated);
        }
        Err(invalid("a varint longer than 64 bits"))
    }

    /// A signed integer written by [`Writer::signed`].
    pub fn signed(&mut self) -> Result<i64, CursorError> {
        let zigzag = self.varint()?;
        Ok((zigzag >> 1) as i64 ^ -((zigzag & 1) as i64))
    }

    /// A length prefix, refused when it claims more bytes than are left.
    pub(crate) fn len(&mut self) -> Result<usize, CursorError> {
        match usize::try_from(self.varint()?) {
            Ok(len) if len <= self.bytes.len() => Ok(len),
            _ => Err(CursorError::Truncated),
        }
    }
}

/// [`CursorError::InvalidValues`] with `what`.
pub(crate) fn invalid(what: impl Into<String>) -> CursorError {
    CursorError::InvalidValues(what.into())
}
