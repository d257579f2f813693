//! Sort orders: the one a model's field attributes declare, and the named ones a client chooses
//! at run time.
//!
//! Everything that pages (the SQL layer, the page machine, the drivers, the token codec) works on
//! a [`SortOrder`]: which rows it sorts, its key list and its cursor. A model's field attributes
//! give one ([`Keyset`](crate::Keyset) implies it); `#[keyset(order(..))]` gives more, each
//! checked at compile time like the first, and a generated enum ([`Orders`](named::Orders)) that
//! names them. Each named order is generated twice, as declared and exactly reversed (every
//! direction and NULL placement flipped), so that a direction chosen at run time is a choice
//! between two orders that are each as static as the model's own: the page a client gets in
//! `?sort=top&dir=asc` runs the same SQL as a model declared in that order. A page is in one order
//! of a list ([`list`]): the model's own order is a list of one.

pub(crate) mod list;
pub(crate) mod named;

use crate::sql::keys::{CursorKeys, KeyShape};
use crate::token::value::CursorValue;

/// One sort order of rows of type `Row`: its keys, its cursor, and what its tokens carry. What
/// every layer below the API pages with. Implemented for every [`Keyset`](crate::Keyset) model
/// (its field order), and by `#[derive(Keyset)]` for each named order and its reverse.
#[doc(hidden)]
pub trait SortOrder: 'static {
    /// The rows the order sorts: the model.
    type Row;
    /// The sort-key values of one row.
    type Cursor: Clone + PartialEq + Send + CursorValue;
    /// The sort keys' columns and directions, as a type-level list.
    type Columns: KeyShape + Send;
    /// The same list holding a cursor's values.
    type Keys: CursorKeys + Send;
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
    /// `Keyset::SELECTED_NAMES`).
    const SELECTED_NAMES: Option<&'static [&'static str]> = None;
    /// How many leading keys are a joined table's, grouping the rows by the joined row: they
    /// end with that table's primary key, checked by the derive (`Keyset::GROUP_KEYS`); 0 for
    /// an order of the model's own keys, or one the derive leaves unchecked (`reads_and_sorts`).
    const GROUP_KEYS: usize = 0;
    /// Whether the table is read through postgres_fdw (see `Keyset::POSTGRES_FDW`).
    const POSTGRES_FDW: bool = false;
    /// Whether the table is a MariaDB Spider table (see `Keyset::SPIDER`).
    const SPIDER: bool = false;

    /// The cursor pointing at `row`.
    fn cursor(row: &Self::Row) -> Self::Cursor;
    /// The key list without values, for the ORDER BY.
    fn columns() -> Self::Columns;
    /// The key list holding `cursor`'s values, for the seek predicate.
    fn keys(cursor: Self::Cursor) -> Self::Keys;
    /// Each key's field name and the bytes its value takes in a token.
    fn key_lengths(cursor: &Self::Cursor) -> Vec<(&'static str, usize)>;
}
