//! The SQL a keyset page runs: the ORDER BY ([`OrderBy`]) and the "strictly past this cursor"
//! predicate ([`Seek`]), both Diesel expressions with named concrete types, so they work in
//! `.filter()`/`.order()`, in joins and in `.into_boxed()` queries, without trait objects.
//!
//! # Which SQL, and why
//!
//! The predicate must be answered by one index seek, whatever the page's depth. Measured on 1M
//! rows, 20-row pages at a depth of 990,000, the shape that seeks on every engine, for uniform and
//! mixed directions alike, is the OR expansion with a redundant bound on the leading key:
//!
//! ```sql
//! (created_at <= ? AND (created_at < ? OR (created_at = ? AND id < ?)))
//! ```
//!
//! Without the leading bound, PostgreSQL and SQLite evaluate the bare OR as a filter over every
//! row before the cursor, which is slower than OFFSET; MySQL and MariaDB build the exact ranges
//! from the bare OR, so they get it without the bound. Where every key has the same direction,
//! PostgreSQL seeks a row value `(created_at, id) < (?, ?)` on every column of the index, and
//! gets it (with the leading bound beside it, `created_at <= ? AND (created_at, id) < (?, ?)`,
//! on which it prunes the partitions of a table partitioned by the leading key, as it does not on
//! the row value alone); MySQL and MariaDB cannot range-scan a row value. SQLite seeks only the leading column
//! of the OR expansion (and of a row value too, when the tiebreaker is the rowid), then steps
//! through the cursor's tie group, so a page there is fetched one tie level at a time
//! ([`Seek::start_level`]: `created_at = ? AND id < ?`, then `created_at < ?` if the page is not full),
//! each level an exact seek (see [`SeekDialect`]'s implementations for the plans). For mixed
//! directions PostgreSQL, which has no row value for them, seeks only the OR expansion's leading
//! bound and filters the cursor's tie group; a page there runs its tie levels as one statement,
//! their `UNION ALL` under an ORDER BY of the keys' output columns ([`Union`], where the query
//! allows it). [`SeekDialect`] lets each backend choose, from the same user code, down to how a
//! cursor's value is written: `?`, `+?` on SQLite, `(SELECT $n)` on PostgreSQL (values no plan
//! reads, so that a cached statement is never planned anew for a page's values).
//!
//! A nullable leading key splits the rows into two [`Region`]s, its values and its NULLs (see
//! `nullable.rs`). Where every row past the cursor lies in the cursor's region, the page is that
//! region's seek alone, and two choices there were measured (1,000,000 rows, one in seven NULL,
//! EXPLAIN ANALYZE by hand; the orders bench has the pages):
//!
//! - after a NULL cursor, `x IS NULL AND id < ?`, the NULL test written once. With it twice (as
//!   the leading bound and in the chain) PostgreSQL multiplied the two selectivities, estimated 5
//!   rows where 30 matched, and kept the statement on custom plans (0.134 ms against 0.044 under
//!   the generic plan). On MariaDB it ends with `OR x < NULL`, true of no row, so that
//!   `x IS NULL` is no conjunct for it to look the NULLs up by (see
//!   [`SeekDialect::NULL_REGION_RANGE`]);
//! - among the values on PostgreSQL, the row value of uniform directions, `x <= $1 AND (x, id) <
//!   ($2, $3)`, exact on both columns (0.049 ms), where the OR expansion filtered the cursor's
//!   tie group after the leading bound (0.118 ms). No NULL can match there, and a row value
//!   holding one is never true, so it is exact only within the region;
//! - among the values on SQLite, the tie levels of non-nullable keys (`x = ? AND id < ?`, then
//!   `x < ?`, neither matching a NULL), then the NULLs' region where it follows: deep in the
//!   values a page went from 1.67× the first page (the OR expansion, stepping through the
//!   cursor's tie group) to 1.15× (orders bench, with `+?` binds, see `SeekDialect::OPAQUE_BINDS`).

mod compare;
mod dialect;
mod key_columns;
pub(crate) mod keys;
mod level;
mod limit;
mod member;
mod members;
mod nullable;
mod order_by;
mod plain;
mod predicate;
mod row_keys;
mod seek;
mod union;
mod walk;
mod window;

pub use dialect::{PerValue, SeekDialect, Windowing};
pub use key_columns::KeyColumns;
pub use keys::{Asc, CursorKeys, Desc, End, Key, KeyDirection, KeyShape, Region, Stop};
pub use level::SeekLevel;
pub use limit::{Limited, NoOffset, Offset};
pub use member::{InRows, Member};
pub use members::Members;
pub(crate) use members::{padded, Merge};
pub use nullable::{Nullable, NullsFirst, NullsLast, NullsPlacement};
pub use order_by::{GroupOrder, OrderBy};
pub use row_keys::RowKeys;
pub use seek::Seek;
pub use union::Union;
pub use walk::{Backward, Forward, Walk};
pub use window::{Window, WindowEnd, WindowRow};
