//! [`Position`]: where a page starts, its cursor decoded. The one position type: REST requests and
//! Relay arguments both come down to it, and the page machine reads nothing else.

use crate::error::Error;
use crate::orders::SortOrder;
use crate::request::{RequestError, RequestedPosition};
use crate::sql::{CursorKeys, KeyShape, Stop};
use crate::token::codec::Codec;
use crate::token::direction::Direction;
use crate::token::error::CursorError;
use crate::token::Anchor;
use crate::token::{CursorValue, Reader, Writer};

/// Where a page starts, with its cursor decoded: what a request resolves to, once, whichever
/// front door it came through. (Named in hidden bounds only.)
#[doc(hidden)]
#[derive(Debug, Clone)]
pub enum Position<C> {
    /// The first rows of the model's order.
    First,
    /// The rows strictly after the cursor's row.
    After(C),
    /// The rows strictly before the cursor's row, returned in the model's order.
    Before(C),
    /// The last rows of the model's order, returned in the model's order.
    Last,
    /// Page `n` (from 1) of the model's order, by OFFSET.
    Number(u32),
    /// The rows past the values of the cursor's first `stop.depth` keys, at or strictly past
    /// them as `stop.inclusive` says: a page that starts at values ("from 1 March"), not past a
    /// row. The cursor's later keys hold placeholders that no statement compares.
    Start(C, Stop),
    /// The row with this cursor and the rows past it: a page around a row, the row first. A
    /// page that does not begin with it was asked for a row the listing does not hold.
    Row(C),
    /// As [`Row`](Position::Row), for the row whose primary key is the cursor's last key (its
    /// other keys hold placeholders): its statements read the row's other values where they
    /// compare them (see `RowKeys`), so that the page is one statement, as a token's.
    RowId(C),
}

impl<C> Position<C> {
    /// Whether the page is fetched against the model's order (and turned around in memory).
    pub(crate) fn is_backward(&self) -> bool {
        matches!(self, Position::Before(_) | Position::Last)
    }

    /// The cursor a page seeks from, and how its statements compare it: strictly past a
    /// token's row, as a start says, or from a row on, that row included. `None` for the first
    /// and last pages and a page number.
    pub(crate) fn seek(&self) -> Option<(&C, Stop)> {
        match self {
            Position::After(cursor) | Position::Before(cursor) => Some((cursor, Stop::PAST)),
            Position::Start(cursor, stop) => Some((cursor, *stop)),
            Position::Row(cursor) | Position::RowId(cursor) => Some((cursor, Stop::FROM)),
            Position::First | Position::Last | Position::Number(_) => None,
        }
    }

    /// What each shard fetches for the page of `limit` rows here: the same position and limit,
    /// except for page `n`, which is the first `n * limit` rows of each shard, of which the merge
    /// drops the first `(n - 1) * limit` (the third value). A page at a row's id is the server's
    /// error: one shard holds the row, and the others, whose statements would not find it, would
    /// leave out the rows they hold past it.
    pub(crate) fn per_shard(&self, limit: u32) -> Result<(Self, u32, usize), Error>
    where
        C: Clone,
    {
        Ok(match *self {
            Position::Number(number) => {
                let rows = number
                    .checked_mul(limit)
                    .ok_or(RequestError::PageNumberTooLarge { number, limit })?;
                (Position::First, rows, (rows - limit) as usize)
            }
            Position::RowId(_) => {
                let message = "a sharded page cannot start at a row's id, which one shard holds: \
                               load the row from its shard and open the page with `at_row(&row)`";
                return Err(Error::Database(diesel::result::Error::QueryBuilderError(
                    message.into(),
                )));
            }
            _ => (self.clone(), limit, 0),
        })
    }

    /// Where a token sent as `direction` starts a page: past its row, or, for a token that marks
    /// an end of the listing, at that end (the first page after the start, the last before the
    /// end).
    pub(crate) fn from_anchor(direction: Direction, anchor: Anchor<C>) -> Self {
        match (direction, anchor) {
            (Direction::After, Anchor::Row(cursor)) => Position::After(cursor),
            (Direction::Before, Anchor::Row(cursor)) => Position::Before(cursor),
            (Direction::After, Anchor::End) => Position::First,
            (Direction::Before, Anchor::End) => Position::Last,
        }
    }
}

/// How a request's token is read: as REST tokens are, only in the direction it was issued for,
/// or as Relay reads a cursor, a row's token either way (one cursor per edge serves `after` and
/// `before`). A token that marks an end of the listing reads only in its own direction either
/// way: the start is no place to page backward from.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    Exact,
    #[cfg_attr(not(feature = "async-graphql"), allow(dead_code))]
    EitherWay,
}

/// The position a request asks for in order `O`, its token read with `codec` as `reading` says:
/// fails, before any query, when the token is not one of `O`'s listing or the page number is 0.
pub(crate) fn decode<O: SortOrder>(
    codec: &Codec,
    requested: &RequestedPosition,
    reading: Reading,
) -> Result<Position<O::Cursor>, Error> {
    let anchor = |direction, token: &str| -> Result<_, Error> {
        let read = codec.read::<O>(direction, token);
        let other = match direction {
            Direction::After => Direction::Before,
            Direction::Before => Direction::After,
        };
        Ok(Position::from_anchor(
            direction,
            match (read, reading) {
                (Err(wrong @ CursorError::WrongDirection { .. }), Reading::EitherWay) => {
                    match codec.read::<O>(other, token)? {
                        Anchor::End => return Err(wrong.into()),
                        row => row,
                    }
                }
                (read, _) => read?,
            },
        ))
    };
    Ok(match requested {
        RequestedPosition::First => Position::First,
        RequestedPosition::Last => Position::Last,
        RequestedPosition::After(token) => anchor(Direction::After, token)?,
        RequestedPosition::Before(token) => anchor(Direction::Before, token)?,
        RequestedPosition::Number(0) => return Err(RequestError::ZeroPageNumber.into()),
        RequestedPosition::Number(number) => Position::Number(*number),
        RequestedPosition::Start { values, inclusive } => decode_start::<O>(values, *inclusive)?,
    })
}

/// The position of a start at `values` (as text, one per leading key) in order `O`, at or
/// strictly past them as `inclusive` says. Past every key's value it is the position after
/// the row with those values. Fails, the client's error, when a value is not one its key's type
/// reads, or more values are given than the order has keys.
pub(crate) fn decode_start<O: SortOrder>(
    values: &[String],
    inclusive: bool,
) -> Result<Position<O::Cursor>, Error> {
    let name = if inclusive { "from" } else { "past" };
    let keys = <O::Keys as KeyShape>::LEN;
    let invalid =
        |value: String, expected: String| RequestError::InvalidParameter { name, value, expected };
    if values.is_empty() || values.len() > keys {
        let expected = format!("from 1 to {keys} values, one per key of the order, leading first");
        return Err(invalid(values.join(","), expected).into());
    }
    let mut out = Writer::default();
    if let Err((at, expected)) = O::Keys::write_texts(values, &mut out) {
        let key = key_name::<O>(at);
        return Err(invalid(values[at].clone(), format!("`{key}` takes {expected}")).into());
    }
    let cursor = padded::<O>(out)?;
    let stop = Stop { depth: values.len(), inclusive };
    Ok(match stop {
        Stop { depth, inclusive: false } if depth == keys => Position::After(cursor),
        stop => Position::Start(cursor, stop),
    })
}

/// The cursor whose first keys hold the values in `out`, the rest placeholders: read from those
/// bytes followed by zeros, which every built-in type reads as a value of its own (0, "", a
/// NULL, 1970-01-01). A key's type of the user's own that refuses zeros (a `NonZeroI64` id)
/// cannot stand behind a start: the server's error, saying so.
pub(crate) fn padded<O: SortOrder>(out: Writer) -> Result<O::Cursor, Error> {
    let mut bytes = out.into_bytes();
    // The widest built-in value is 16 bytes; a type of the user's own may write several.
    bytes.resize(bytes.len() + 64 * <O::Keys as KeyShape>::LEN, 0);
    O::Cursor::read(&mut Reader::new(&bytes)).map_err(|error| {
        let message = format!(
            "{}: a page cannot start at values here, because a key's type does not read zero \
             bytes as a placeholder value ({error}); start from a token instead",
            O::SORT_ORDER
        );
        Error::Database(diesel::result::Error::QueryBuilderError(message.into()))
    })
}

/// The cursor of order `O` whose last key holds the value written in `id` (a row's primary key,
/// see [`Position::RowId`]), its other keys placeholders as [`padded`]'s: zero bytes as many as
/// the placeholders take, then `id`. A nullable leading key's placeholder is NULL.
pub(crate) fn row_cursor<O: SortOrder>(id: &[u8]) -> Result<O::Cursor, Error> {
    row_cursor_led::<O>(&[], id)
}

/// [`row_cursor`]'s cursor with a nullable leading key's placeholder a value instead of NULL:
/// the statements at a row's id that assume the row's value is not NULL (see `RowKeys`).
pub(crate) fn row_value_cursor<O: SortOrder>(cursor: &O::Cursor) -> Result<O::Cursor, Error> {
    let mut id = Writer::default();
    O::keys(cursor.clone()).write_last(&mut id);
    // An option's tag: 1 for a value, read from the zeros that follow.
    row_cursor_led::<O>(&[1], &id.into_bytes())
}

/// [`row_cursor`]'s cursor whose bytes begin with `lead`.
fn row_cursor_led<O: SortOrder>(lead: &[u8], id: &[u8]) -> Result<O::Cursor, Error> {
    let placeholders = padded::<O>(Writer::from_vec(lead.to_vec()))?;
    let lengths = O::key_lengths(&placeholders);
    let before = lengths.iter().rev().skip(1).map(|(_, len)| len).sum();
    let mut bytes = lead.to_vec();
    bytes.resize(before, 0);
    bytes.extend_from_slice(id);
    let cursor = O::Cursor::read(&mut Reader::new(&bytes)).ok();
    let mut last = Writer::default();
    if let Some(cursor) = &cursor {
        O::keys(cursor.clone()).write_last(&mut last);
    }
    match cursor {
        Some(cursor) if last.into_bytes() == id => Ok(cursor),
        _ => {
            let message = format!(
                "{}: a page cannot start at a row's id here, because a key's type does not read \
                 zero bytes as a placeholder value; load the row and use `at_row` instead",
                O::SORT_ORDER
            );
            Err(Error::Database(diesel::result::Error::QueryBuilderError(message.into())))
        }
    }
}

/// A position, and at a row's id with a nullable leading key the row's cursor in the other
/// region of that key (see [`row_regions`]).
pub(crate) type InRegion<C> = (Position<C>, Option<C>);

/// The position of a page at a row's id with a nullable leading key, and the row's cursor in
/// the other region (see `machine/regions.rs`): the position's assumes the row's value is not
/// NULL, whose statement, where the regions' statements are not united, runs first (it reads
/// nothing where the value is NULL: `x <= NULL` holds for no row). Any other position as it is.
pub(crate) fn row_regions<M: SortOrder>(
    position: Position<M::Cursor>,
) -> Result<InRegion<M::Cursor>, Error> {
    Ok(match position {
        Position::RowId(null) if <M::Keys as KeyShape>::LEADING_NULLABLE => {
            // `row_cursor`'s placeholder for the leading key is NULL.
            let value = row_value_cursor::<M>(&null)?;
            (Position::RowId(value), Some(null))
        }
        position => (position, None),
    })
}

/// The field name of key `at` (from 0) of order `O`, for errors.
fn key_name<O: SortOrder>(at: usize) -> &'static str {
    let names = padded::<O>(Writer::default()).map(|cursor| O::key_lengths(&cursor));
    names.ok().and_then(|names| names.get(at).map(|(name, _)| *name)).unwrap_or("the key")
}
