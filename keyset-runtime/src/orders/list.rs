//! Which orders a page may be in: a model's own order, or one of its named orders in either
//! direction, as a type-level list of [`SortOrder`]s (`(O1, (O2, .. Nil<Row>))`). A page in a
//! chosen order is a page of one static order of that list: the request is decoded once, into
//! [`OrderList::Chosen`] (which order, and where in it), and what the page fetched comes back as
//! [`OrderList::Fetched`], the same shape, so that every layer below sees one static order.

use std::marker::PhantomData;

use super::SortOrder;
use crate::error::Error;
use crate::fetched::{Fetched, Loaded};
use crate::position::{decode, row_cursor, Position, Reading};
use crate::request::RequestedPosition;
use crate::sql::RowKeys;
use crate::token::codec::Codec;
use crate::token::error::CursorError;
use crate::token::{fingerprint_of, CursorValue};

/// The sort orders a page may be in: a model, for its own order (a list of one), or the enum of
/// its named orders ([`Orders`](super::named::Orders)), which `#[derive(Keyset)]` implements this
/// for. What [`Paginated`](crate::Paginated)'s second parameter names.
#[doc(hidden)]
pub trait OrderSet: 'static {
    /// The model the orders sort.
    type Row;
    /// Each order: as declared, then reversed, in declaration order for named orders.
    type List: OrderList<Row = Self::Row>;
}

/// One of two: the order at the head of a list, or one of the rest.
#[doc(hidden)]
#[derive(Debug, Clone)]
pub enum Either<A, B> {
    /// The head's.
    Here(A),
    /// One of the rest's.
    There(B),
}

/// No value: what the end of a list holds.
#[doc(hidden)]
#[derive(Debug, Clone)]
pub enum Never {}

/// A list of sort orders of one row type: what a chosen order is looked up in, by position.
#[doc(hidden)]
pub trait OrderList: 'static {
    /// The rows every order of the list sorts.
    type Row;
    /// Where a page starts in one of the list's orders: which one, and its position there, the
    /// token decoded.
    type Chosen: Clone + Send;
    /// The rows a page fetched in one of the list's orders, not yet a page.
    type Fetched<Item>;

    /// The label of the order with tokens of `fingerprint`, if one of the list has them.
    fn label_of(fingerprint: u32) -> Option<&'static str>;

    /// [`decode_chosen`] on this list, the tail of `All` from the walk's position: a token of
    /// another order is named from the whole list, so that an order declared before the requested
    /// one is too.
    fn decode_in<All: OrderList>(
        index: usize,
        codec: &Codec,
        requested: &RequestedPosition,
        reading: Reading,
    ) -> Result<Self::Chosen, Error>;

    /// Whether `chosen` is the first page of its order.
    fn is_first(chosen: &Self::Chosen) -> bool;

    /// `chosen`'s order, at the page around `row` (see [`Position::Row`]).
    fn at_row(chosen: Self::Chosen, row: &Self::Row) -> Self::Chosen;

    /// `chosen`'s order, at the page around the row of primary key `id`, its bytes as a token
    /// holds them (see [`Position::RowId`]).
    fn at_row_id(chosen: Self::Chosen, id: &[u8]) -> Result<Self::Chosen, Error>;

    /// What each shard fetches for the page of `limit` rows at `chosen` (see
    /// [`Position::per_shard`]).
    fn per_shard(chosen: &Self::Chosen, limit: u32) -> Result<(Self::Chosen, u32, usize), Error>;

    /// The page of the rows fetched, with its tokens (see [`Fetched::finish`]).
    fn finish<Item>(
        fetched: Self::Fetched<Item>,
        codec: &Codec,
        edges: bool,
    ) -> Result<Loaded<Item>, Error>;
}

/// A list of orders each of whose pages may start at a row given by its primary key, in one
/// statement: every order's keys are [`RowKeys`], ending in the same primary key, of type `Id`.
/// (Named in the bounds of [`Paginated::at_row_id`](crate::Paginated::at_row_id) only.)
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a page at a row given by its id needs orders of `NOT NULL` columns of one table, \
               each ending in its primary key",
    label = "an order here has a nullable key, a key of another table, or does not end in the \
             table's one-column primary key",
    note = "load the row and open the page with `at_row(&row)` instead"
)]
pub trait RowIds: OrderList {
    /// The primary key's value type.
    type Id: CursorValue;
}

impl<O: SortOrder<Keys: RowKeys>> RowIds for (O, Nil<O::Row>) {
    type Id = <O::Keys as RowKeys>::Id;
}

impl<O, O2, Rest> RowIds for (O, (O2, Rest))
where
    O: SortOrder<Keys: RowKeys<Id = <(O2, Rest) as RowIds>::Id>>,
    (O2, Rest): RowIds<Row = O::Row>,
{
    type Id = <(O2, Rest) as RowIds>::Id;
}

/// The end of an [`OrderList`].
#[doc(hidden)]
pub struct Nil<Row>(PhantomData<fn() -> Row>);

impl<Row: 'static> OrderList for Nil<Row> {
    type Row = Row;
    type Chosen = Never;
    type Fetched<Item> = Never;

    fn label_of(_: u32) -> Option<&'static str> {
        None
    }

    fn decode_in<All: OrderList>(
        _: usize,
        _: &Codec,
        _: &RequestedPosition,
        _: Reading,
    ) -> Result<Never, Error> {
        Err(no_order())
    }

    fn is_first(chosen: &Never) -> bool {
        match *chosen {}
    }

    fn at_row(chosen: Never, _: &Row) -> Never {
        chosen
    }

    fn at_row_id(chosen: Never, _: &[u8]) -> Result<Never, Error> {
        match chosen {}
    }

    fn per_shard(chosen: &Never, _: u32) -> Result<(Never, u32, usize), Error> {
        match *chosen {}
    }

    fn finish<Item>(fetched: Never, _: &Codec, _: bool) -> Result<Loaded<Item>, Error> {
        match fetched {}
    }
}

impl<O: SortOrder, Rest: OrderList<Row = O::Row>> OrderList for (O, Rest) {
    type Row = O::Row;
    type Chosen = Either<Position<O::Cursor>, Rest::Chosen>;
    type Fetched<Item> = Either<Fetched<O, Item>, Rest::Fetched<Item>>;

    fn label_of(fingerprint: u32) -> Option<&'static str> {
        if O::FINGERPRINT == fingerprint {
            return Some(O::LABEL);
        }
        Rest::label_of(fingerprint)
    }

    fn decode_in<All: OrderList>(
        index: usize,
        codec: &Codec,
        requested: &RequestedPosition,
        reading: Reading,
    ) -> Result<Self::Chosen, Error> {
        if index > 0 {
            return Rest::decode_in::<All>(index - 1, codec, requested, reading).map(Either::There);
        }
        let decoded =
            decode::<O>(codec, requested, reading).map_err(|error| match (error, requested) {
                (
                    Error::Cursor(CursorError::ForeignSortOrder),
                    RequestedPosition::After(token) | RequestedPosition::Before(token),
                ) => match fingerprint_of(token).and_then(All::label_of) {
                    Some(issued) => CursorError::OtherOrder { issued, requested: O::LABEL }.into(),
                    None => CursorError::ForeignSortOrder.into(),
                },
                (error, _) => error,
            });
        decoded.map(Either::Here)
    }

    fn is_first(chosen: &Self::Chosen) -> bool {
        match chosen {
            Either::Here(position) => matches!(position, Position::First),
            Either::There(rest) => Rest::is_first(rest),
        }
    }

    fn at_row(chosen: Self::Chosen, row: &O::Row) -> Self::Chosen {
        match chosen {
            Either::Here(_) => Either::Here(Position::Row(O::cursor(row))),
            Either::There(rest) => Either::There(Rest::at_row(rest, row)),
        }
    }

    fn at_row_id(chosen: Self::Chosen, id: &[u8]) -> Result<Self::Chosen, Error> {
        Ok(match chosen {
            Either::Here(_) => Either::Here(Position::RowId(row_cursor::<O>(id)?)),
            Either::There(rest) => Either::There(Rest::at_row_id(rest, id)?),
        })
    }

    fn per_shard(chosen: &Self::Chosen, limit: u32) -> Result<(Self::Chosen, u32, usize), Error> {
        Ok(match chosen {
            Either::Here(position) => {
                let (position, limit, skip) = position.per_shard(limit)?;
                (Either::Here(position), limit, skip)
            }
            Either::There(rest) => {
                let (rest, limit, skip) = Rest::per_shard(rest, limit)?;
                (Either::There(rest), limit, skip)
            }
        })
    }

    fn finish<Item>(
        fetched: Self::Fetched<Item>,
        codec: &Codec,
        edges: bool,
    ) -> Result<Loaded<Item>, Error> {
        match fetched {
            Either::Here(fetched) => fetched.finish(codec, edges),
            Either::There(rest) => Rest::finish(rest, codec, edges),
        }
    }
}

/// The position a request asks for in the order at `index` of list `L`, its token read with
/// `codec` as `reading` says: fails, before any query, when the token is not one of that
/// order's, naming the order it was issued for when that is another of the list (`top` sent with
/// `new`, or with the other direction). The one place a request's token is decoded.
pub(crate) fn decode_chosen<L: OrderList>(
    index: usize,
    codec: &Codec,
    requested: &RequestedPosition,
    reading: Reading,
) -> Result<L::Chosen, Error> {
    L::decode_in::<L>(index, codec, requested, reading)
}

/// An index past the list: the generated `Orders` impl gave one, which it never does. The
/// server's fault, so not a cursor error.
fn no_order() -> Error {
    Error::Database(diesel::result::Error::QueryBuilderError(
        "the listing has no sort order at this position".into(),
    ))
}
