//! Sort orders: the one a model's field attributes declare, and the named ones a client chooses
//! at run time.
//!
//! Everything that pages (the SQL layer, the page machine, the drivers, the token codec) works on
//! a [`SortOrder`]: which rows it sorts, its key list and its cursor. A model's field attributes
//! give one ([`Keyset`] implies it); `#[keyset(order(..))]` gives more, each checked at compile
//! time like the first, and a generated enum ([`Orders`]) that names them. Each named order is
//! generated twice, as declared and exactly reversed (every direction and NULL placement
//! flipped), so that a direction chosen at run time is a choice between two orders that are each
//! as static as the model's own: the page a client gets in `?sort=top&dir=asc` runs the same SQL as
//! a model declared in that order.

use std::fmt;
use std::marker::PhantomData;
use std::str::FromStr;

use crate::position::{decode, Position, Reading};
use crate::request::RequestedPosition;
use crate::sql::KeyShape;
use crate::strategy::FetchShape;
use crate::token::{self, Codec, CursorError, CursorValue};
use crate::{Error, Keyset};

/// One sort order of rows of type `Row`: its keys, its cursor, and what its tokens carry. What
/// every layer below the API pages with. Implemented for every [`Keyset`] model (its field
/// order), and by `#[derive(Keyset)]` for each named order and its reverse.
#[doc(hidden)]
pub trait SortOrder: 'static {
    /// The rows the order sorts: the model.
    type Row;
    /// The sort-key values of one row.
    type Cursor: Clone + PartialEq + CursorValue;
    /// The sort keys' columns and directions, as a type-level list.
    type Columns: KeyShape;
    /// The same list holding a cursor's values.
    type Keys: FetchShape;
    /// The order in words, e.g. `posts: created_at DESC, id DESC`; tokens carry its hash.
    const SORT_ORDER: &'static str;
    /// The hash of [`SORT_ORDER`](Self::SORT_ORDER) that tokens carry.
    const FINGERPRINT: u32;
    /// The fingerprint this order's tokens carried in token format version 2, which hashed the
    /// struct's name too: a token of that version is then told its version, not called foreign.
    const LEGACY_FINGERPRINT: Option<u32> = None;
    /// The longest token of the listing.
    const MAX_TOKEN_LEN: usize;
    /// The order as a client chose it, `top desc`, for errors; empty for a model's field order.
    const LABEL: &'static str = "";
    /// The names the model's selection outputs the order's keys under (see
    /// [`Keyset::SELECTED_NAMES`]).
    const SELECTED_NAMES: Option<&'static [&'static str]> = None;

    /// The cursor pointing at `row`.
    fn cursor(row: &Self::Row) -> Self::Cursor;
    /// The key list without values, for the ORDER BY.
    fn columns() -> Self::Columns;
    /// The key list holding `cursor`'s values, for the seek predicate.
    fn keys(cursor: Self::Cursor) -> Self::Keys;
    /// Each key's field name and the bytes its value takes in a token.
    fn key_lengths(cursor: &Self::Cursor) -> Vec<(&'static str, usize)>;
}

impl<M: Keyset> SortOrder for M {
    type Row = M;
    type Cursor = M::Cursor;
    type Columns = M::Columns;
    type Keys = M::Keys;
    const SORT_ORDER: &'static str = M::SORT_ORDER;
    const FINGERPRINT: u32 = M::FINGERPRINT;
    const LEGACY_FINGERPRINT: Option<u32> = M::LEGACY_FINGERPRINT;
    const MAX_TOKEN_LEN: usize = M::MAX_TOKEN_LEN;
    const SELECTED_NAMES: Option<&'static [&'static str]> = M::SELECTED_NAMES;

    fn cursor(row: &M) -> M::Cursor {
        row.cursor()
    }

    fn columns() -> M::Columns {
        M::columns()
    }

    fn keys(cursor: M::Cursor) -> M::Keys {
        M::keys(cursor)
    }

    fn key_lengths(cursor: &M::Cursor) -> Vec<(&'static str, usize)> {
        M::key_lengths(cursor)
    }
}

/// The direction a client chose for an order: that of the order's first key. The other
/// direction is the exact reverse of every key and NULL placement, which the same index serves
/// backwards. Reads `asc` and `desc` from a query string, in lower case as written there.
///
/// ```
/// use keyset_runtime::SortDirection;
///
/// assert_eq!("desc".parse::<SortDirection>(), Ok(SortDirection::Desc));
/// assert_eq!(SortDirection::Asc.to_string(), "asc");
/// let refused = "up".parse::<SortDirection>().unwrap_err();
/// assert_eq!(refused.to_string(), "unknown sort direction `up`: expected `asc` or `desc`");
/// assert_eq!(serde_json::from_str::<SortDirection>(r#""asc""#).unwrap(), SortDirection::Asc);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SortDirection {
    /// Ascending: smallest first.
    Asc,
    /// Descending: largest first.
    Desc,
}

impl SortDirection {
    /// Both, as a client writes them.
    pub const ALL: [SortDirection; 2] = [SortDirection::Asc, SortDirection::Desc];

    /// `asc` or `desc`.
    pub const fn name(self) -> &'static str {
        match self {
            SortDirection::Asc => "asc",
            SortDirection::Desc => "desc",
        }
    }
}

impl fmt::Display for SortDirection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for SortDirection {
    type Err = ParseOrderError;

    fn from_str(name: &str) -> Result<Self, ParseOrderError> {
        match name {
            "asc" => Ok(SortDirection::Asc),
            "desc" => Ok(SortDirection::Desc),
            _ => Err(ParseOrderError {
                kind: "sort direction",
                found: name.into(),
                expected: &["asc", "desc"],
            }),
        }
    }
}

/// A name that is no sort order (or direction) of the listing: what `FromStr` of a generated
/// order enum and of [`SortDirection`] return. Its message lists the names there are, for a 400
/// answer.
///
/// ```
/// # use diesel::prelude::*;
/// # use keyset_runtime::Keyset;
/// # diesel::table! { posts (id) { id -> BigInt, score -> Integer } }
/// #[derive(Queryable, Selectable, Keyset)]
/// #[keyset(order(new: id desc), order(top: score desc, id desc))]
/// struct Post {
///     #[tiebreaker]
///     id: i64,
///     score: i32,
/// }
///
/// let refused = "hot".parse::<PostOrder>().unwrap_err();
/// assert_eq!(refused.to_string(), "unknown sort order `hot`: expected `new` or `top`");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseOrderError {
    kind: &'static str,
    found: String,
    expected: &'static [&'static str],
}

impl fmt::Display for ParseOrderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown {} `{}`: expected ", self.kind, self.found)?;
        for (index, name) in self.expected.iter().enumerate() {
            let last = index + 1 == self.expected.len();
            let separator = match index {
                0 => "",
                _ if last => " or ",
                _ => ", ",
            };
            write!(f, "{separator}`{name}`")?;
        }
        Ok(())
    }
}

impl std::error::Error for ParseOrderError {}

/// The named sort orders of a model, as the enum `#[derive(Keyset)]` generates for
/// `#[keyset(order(..))]` (`PostOrder` for `Post`), which implements it. The enum's variants are
/// the orders' names in UpperCamelCase; it reads and writes the names as declared (`?sort=top`:
/// `FromStr`, `Display`, serde), defaults to the first order, and lists its variants in `ALL`
/// (for docs and OpenAPI). Page with the chosen one with
/// [`Paginate::paginate_by`](crate::Paginate::paginate_by).
///
/// ```
/// # use diesel::prelude::*;
/// use keyset_runtime::{Keyset, Orders, SortDirection};
/// # diesel::table! { posts (id) { id -> BigInt, score -> Integer, title -> Text } }
///
/// #[derive(Queryable, Selectable, Keyset)]
/// #[keyset(order(new: id desc), order(top: score desc, id desc), order(title: title asc, id asc))]
/// struct Post {
///     #[tiebreaker]
///     id: i64,
///     score: i32,
///     title: String,
/// }
///
/// assert_eq!(PostOrder::default(), PostOrder::New);
/// assert_eq!("top".parse::<PostOrder>(), Ok(PostOrder::Top));
/// assert_eq!(PostOrder::Title.to_string(), "title");
/// assert_eq!(PostOrder::ALL.map(PostOrder::name), ["new", "top", "title"]);
/// assert_eq!(PostOrder::Title.direction(), SortDirection::Asc); // its first key's
/// assert_eq!(serde_json::from_str::<PostOrder>(r#""top""#).unwrap(), PostOrder::Top);
/// ```
pub trait Orders: Copy + 'static {
    /// The model the orders sort.
    type Row;
    /// Each order as declared, then reversed, in declaration order: a list of [`SortOrder`]s.
    #[doc(hidden)]
    type List: OrderList<Row = Self::Row>;

    /// The order's name, as a client writes it.
    fn name(self) -> &'static str;
    /// The direction of the order's first key, as declared.
    fn direction(self) -> SortDirection;
    /// The order's position among the declared ones, from 0.
    #[doc(hidden)]
    fn index(self) -> usize;
}

/// The position in [`Orders::List`] of `order` in direction `dir` (`None`: as declared).
pub(crate) fn list_index<O: Orders>(order: O, dir: Option<SortDirection>) -> usize {
    let reversed = dir.is_some_and(|dir| dir != order.direction());
    order.index() * 2 + usize::from(reversed)
}

/// A list of sort orders of one row type, `(O1, (O2, .. Nil<Row>))`: what a chosen order is
/// looked up in, by position.
#[doc(hidden)]
pub trait OrderList: 'static {
    /// The rows every order of the list sorts.
    type Row;
    /// The label of the order with tokens of `fingerprint`, if one of the list has them.
    fn label_of(fingerprint: u32) -> Option<&'static str>;
    /// Reads a token sent to the order at `index`, only to refuse a bad one before any query. A
    /// token of another order of the list is refused naming it.
    fn check(index: usize, codec: &Codec, start: &Start) -> Result<(), Error>
    where
        Self: Sized,
    {
        Self::check_in::<Self>(index, codec, start)
    }

    /// [`check`](Self::check) on this list, the tail of `All` from the walk's position: a token
    /// is named from the whole list, so that an order declared before the requested one is too.
    fn check_in<All: OrderList>(index: usize, codec: &Codec, start: &Start) -> Result<(), Error>;
}

/// The end of an [`OrderList`].
#[doc(hidden)]
pub struct Nil<Row>(PhantomData<fn() -> Row>);

impl<Row: 'static> OrderList for Nil<Row> {
    type Row = Row;

    fn label_of(_: u32) -> Option<&'static str> {
        None
    }

    fn check_in<All: OrderList>(_: usize, _: &Codec, _: &Start) -> Result<(), Error> {
        Err(no_order())
    }
}

impl<O: SortOrder, Rest: OrderList<Row = O::Row>> OrderList for (O, Rest) {
    type Row = O::Row;

    fn label_of(fingerprint: u32) -> Option<&'static str> {
        if O::FINGERPRINT == fingerprint {
            return Some(O::LABEL);
        }
        Rest::label_of(fingerprint)
    }

    fn check_in<All: OrderList>(index: usize, codec: &Codec, start: &Start) -> Result<(), Error> {
        if index > 0 {
            return Rest::check_in::<All>(index - 1, codec, start);
        }
        decode_in::<O, All>(codec, start).map(drop)
    }
}

/// Where a page in a chosen order starts: the request's position, its token still encoded, and
/// how to read that token. (Named in the drivers' hidden methods only.)
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct Start {
    pub(crate) position: RequestedPosition,
    pub(crate) reading: Reading,
}

/// An index past the list: the generated `Orders` impl gave one, which it never does. The
/// server's fault, so not a cursor error.
pub(crate) fn no_order() -> Error {
    Error::Database(diesel::result::Error::QueryBuilderError(
        "the listing has no sort order at this position".into(),
    ))
}

/// The position a request asks for in order `O` of `List`: a token of another order of the list
/// (`top` sent with `new`, or with the other direction) is refused naming the order it was
/// issued for. (A page loads only after its start was checked so: the drivers read it with
/// [`decode`] again.)
fn decode_in<O: SortOrder, List: OrderList>(
    codec: &Codec,
    start: &Start,
) -> Result<Position<O::Cursor>, Error> {
    decode::<O>(codec, &start.position, start.reading).map_err(|error| {
        match (error, &start.position) {
            (
                Error::Cursor(CursorError::ForeignSortOrder),
                RequestedPosition::After(token) | RequestedPosition::Before(token),
            ) => match token::fingerprint_of(token).and_then(List::label_of) {
                Some(issued) => CursorError::OtherOrder { issued, requested: O::LABEL }.into(),
                None => CursorError::ForeignSortOrder.into(),
            },
            (error, _) => error,
        }
    })
}

/// `FromStr` of a generated order enum: the variant of `all` named `name`.
#[doc(hidden)]
pub fn parse_order<O: Orders>(
    all: &[O],
    names: &'static [&'static str],
    name: &str,
) -> Result<O, ParseOrderError> {
    match all.iter().find(|order| order.name() == name) {
        Some(order) => Ok(*order),
        None => Err(ParseOrderError { kind: "sort order", found: name.into(), expected: names }),
    }
}

/// `Deserialize` of a generated order enum: the variant of `all` named by the string, or serde's
/// "unknown variant" error listing the names.
#[doc(hidden)]
pub fn deserialize_order<'de, O: Orders, D: serde::Deserializer<'de>>(
    all: &'static [O],
    names: &'static [&'static str],
    deserializer: D,
) -> Result<O, D::Error> {
    struct Name<O: 'static>(&'static [O], &'static [&'static str]);

    impl<'de, O: Orders> serde::de::Visitor<'de> for Name<O> {
        type Value = O;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("the name of a sort order")
        }

        fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<O, E> {
            match self.0.iter().find(|order| order.name() == name) {
                Some(order) => Ok(*order),
                None => Err(E::unknown_variant(name, self.1)),
            }
        }
    }

    deserializer.deserialize_str(Name(all, names))
}
