//! [`Direction`]: which side of its row a token points to.

use std::fmt;

/// Which side of its row a token points to: it asks for the rows after that row, or before it.
///
/// Not the order's direction (that is [`SortDirection`](crate::SortDirection), which a client
/// may choose): a token issued as `next_cursor` is sent back as `after`, one issued as
/// `prev_cursor` as `before`, whatever the order. A request names it
/// ([`PageRequest::cursor`](crate::PageRequest::cursor)), and a token sent the wrong way is
/// refused with it ([`CursorError::WrongDirection`](crate::CursorError::WrongDirection)).
///
/// ```
/// use keyset_runtime::{Direction, PageRequest};
///
/// let request = PageRequest::before("AQ", 20);
/// assert_eq!(request.cursor(), Some((Direction::Before, "AQ")));
/// assert_eq!(Direction::Before.to_string(), "before");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Issued as `next_cursor`: the rows after the cursor row.
    After,
    /// Issued as `prev_cursor`: the rows before the cursor row.
    Before,
}

impl Direction {
    pub(super) fn byte(self) -> u8 {
        match self {
            Direction::After => 0,
            Direction::Before => 1,
        }
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Direction::After => "after",
            Direction::Before => "before",
        })
    }
}
