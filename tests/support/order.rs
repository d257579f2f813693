//! An oracle for orders the database cannot be asked for portably: NULL placement is spelled
//! differently (or not at all) on each engine, so nullable orders are sorted here, in Rust.

use std::cmp::Ordering;

/// Compares two sort-key values in a direction, with NULLs placed first or last.
pub fn key<T: Ord>(a: &Option<T>, b: &Option<T>, desc: bool, nulls_first: bool) -> Ordering {
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => {
            if nulls_first {
                Ordering::Less
            } else {
                Ordering::Greater
            }
        }
        (Some(_), None) => {
            if nulls_first {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
        (Some(a), Some(b)) => {
            if desc {
                b.cmp(a)
            } else {
                a.cmp(b)
            }
        }
    }
}

/// Compares two non-nullable values in a direction.
pub fn plain<T: Ord>(a: &T, b: &T, desc: bool) -> Ordering {
    if desc {
        b.cmp(a)
    } else {
        a.cmp(b)
    }
}
