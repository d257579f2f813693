//! [`Position`]: where a page starts, its cursor decoded. The one position type: REST requests and
//! Relay arguments both come down to it, and the page machine reads nothing else.

use crate::token::{Anchor, Direction};

/// Where a page starts, with its cursor decoded. (Named in the drivers' bounds only; not
/// exported.)
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
}

impl<C> Position<C> {
    /// Whether the page is fetched against the model's order (and turned around in memory).
    pub(crate) fn is_backward(&self) -> bool {
        matches!(self, Position::Before(_) | Position::Last)
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
