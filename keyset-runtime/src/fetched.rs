//! [`Fetched`]: the rows a page fetched, before its tokens. The page machine hands it back; a
//! listing over shards merges several of them into one (`shards/merge.rs`); and
//! [`Fetched::finish`] turns it into the [`Page`], once, however it was fetched.

use crate::count::TotalCount;
use crate::error::Error;
use crate::orders::SortOrder;
use crate::page::Page;
use crate::position::Position;
use crate::request::RequestError;
use crate::sql::CursorKeys;
use crate::token::codec::Codec;
use crate::token::direction::Direction;
use crate::token::value::CursorValue;
use crate::token::{Anchor, Writer};

/// The rows fetched for the page of `limit` rows at `position`, in the walk's order (backward
/// for a page before a cursor or at the end), the probe row included: at most `limit + 1`. A row
/// is an `Item`: the model, or a tuple led by it (a join's selection), whose model `model`
/// finds. (Named in hidden bounds only.)
#[doc(hidden)]
pub struct Fetched<M: SortOrder, Item> {
    pub(crate) position: Position<M::Cursor>,
    pub(crate) model: fn(&Item) -> &M::Row,
    /// The page size served.
    pub(crate) limit: u32,
    pub(crate) rows: Vec<Item>,
    /// The listing's count, when the request asked for one.
    pub(crate) total: Option<TotalCount>,
}

impl<M: SortOrder, Item> Fetched<M, Item> {
    /// The page: at most `limit` rows in the model's order, with a token where a page lies
    /// beyond, written by `codec`; with `edges`, also each row's own token (Relay's edge
    /// cursors). Fails when two rows have the same keys ([`Error::RepeatedKeys`]).
    pub(crate) fn finish(self, codec: &Codec, edges: bool) -> Result<Loaded<Item>, Error> {
        let Fetched { position, model, limit, mut rows, total } = self;
        repeated_keys::<M, Item>(&rows, model)?;
        let first = rows.first().map(|row| M::cursor(model(row)));
        let listed = match &position {
            Position::Row(cursor) => first.as_ref() == Some(cursor),
            Position::RowId(cursor) => first.is_some_and(|first| same_row::<M>(first, cursor)),
            _ => true,
        };
        if !listed {
            return Err(RequestError::RowNotListed.into());
        }
        let total = total.map(|total| total.placed(&position, limit, rows.len()));
        let limit = limit as usize;
        let more = rows.len() > limit;
        rows.truncate(limit);
        if position.is_backward() {
            rows.reverse();
        }
        // Past the fetched end, a page exists exactly when the probe row came back. Behind the
        // start, one exists when the page was reached from a cursor: that cursor's row lies there.
        // Behind a start at values, one may: a page there is empty if none does.
        let (more_after, more_before) = match position {
            Position::First => (more, false),
            Position::After(_) | Position::Start(..) | Position::Row(_) | Position::RowId(_) => {
                (more, true)
            }
            Position::Before(_) => (true, more),
            Position::Last => (false, more),
            Position::Number(number) => (more, number > 1),
        };
        // A page with no rows leads on from the end of the listing it lies at: every row behind
        // it is behind the cursor it was reached from, and none lies past it.
        let issue = |row: Option<&Item>, exists: bool, direction| match row {
            _ if !exists => Ok(None),
            Some(row) => codec.issue::<M>(direction, Anchor::Row(&M::cursor(model(row)))).map(Some),
            None => codec.issue::<M>(direction, Anchor::End).map(Some),
        };
        let edge =
            |row: &Item| codec.issue::<M>(Direction::After, Anchor::Row(&M::cursor(model(row))));
        let edges = match edges {
            true => rows.iter().map(edge).collect::<Result<_, _>>()?,
            false => Vec::new(),
        };
        let page = Page {
            next_cursor: issue(rows.last(), more_after, Direction::After)?,
            prev_cursor: issue(rows.first(), more_before, Direction::Before)?,
            items: rows,
            total,
        };
        Ok(Loaded { page, edges })
    }
}

/// A loaded page and, when asked for, each row's own token (`after` it): what Relay's edges
/// carry. (Named in hidden bounds only.)
#[doc(hidden)]
pub struct Loaded<Row> {
    pub(crate) page: Page<Row>,
    #[cfg_attr(not(feature = "async-graphql"), allow(dead_code))]
    pub(crate) edges: Vec<String>,
}

/// Whether `first` is the row whose primary key `at` holds as its last key (see
/// [`Position::RowId`]): its last key, the table's primary key, has the same value.
fn same_row<M: SortOrder>(first: M::Cursor, at: &M::Cursor) -> bool {
    let last = |cursor: M::Cursor| {
        let mut out = Writer::default();
        M::keys(cursor).write_last(&mut out);
        out.into_bytes()
    };
    last(first) == last(at.clone())
}

/// Fails when two rows fetched for a page have the same sort keys: the order is then not total
/// on this query, so a page boundary between them would skip or repeat rows. With a unique
/// tiebreaker that happens only when the query repeats the model's rows: a join one-to-many
/// from the model's table (authors with their posts, paged by author), or an engine that sends
/// a row twice (MariaDB's Spider, reading a seek of two ranges without `#[keyset(spider)]`: the
/// first range's rows again after the second's, not beside themselves). So every two rows are
/// compared, by their keys' token bytes, sorted: equal values write equal bytes.
fn repeated_keys<M: SortOrder, Item>(
    rows: &[Item],
    model: fn(&Item) -> &M::Row,
) -> Result<(), Error> {
    // One buffer for every row's key bytes and where each ends: a few allocations a page, not
    // one per row.
    let (mut out, mut ends) = (Writer::default(), Vec::with_capacity(rows.len()));
    for row in rows {
        M::cursor(model(row)).write(&mut out);
        let bytes = out.into_bytes();
        ends.push(bytes.len());
        out = Writer::from_vec(bytes);
    }
    let bytes = out.into_bytes();
    let starts = std::iter::once(0).chain(ends.iter().copied());
    let mut keys: Vec<&[u8]> = starts.zip(&ends).map(|(start, &end)| &bytes[start..end]).collect();
    keys.sort_unstable();
    if keys.windows(2).any(|pair| pair[0] == pair[1]) {
        return Err(Error::RepeatedKeys { sort_order: M::SORT_ORDER });
    }
    Ok(())
}
