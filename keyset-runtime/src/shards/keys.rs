//! The model's order in memory: how a merge of shards' pages compares two rows. The databases
//! sorted each shard's rows; the merge must put them in the same order, so it compares only key
//! types whose order Rust and every engine agree on ([`ShardOrder`]), and text only where the
//! model declares a byte-order collation.

use std::cmp::Ordering;

use crate::sql::{End, Key, KeyDirection, Nullable, NullsPlacement};

/// A sort-key type whose order in Rust ([`Ord`]) is the order every engine sorts its column in,
/// so that pages of several shards merge into the order one database would return:
/// integers, `bool`, `Vec<u8>` (bytes compare as bytes everywhere), and with their features
/// chrono's and the time crate's dates and times (instants, for the zoned ones),
/// `uuid::Uuid` (PostgreSQL's `uuid` compares its bytes) and `bigdecimal::BigDecimal`.
///
/// Not floats (engines place NaN and `-0.0` each their own way) and not `String`, whose order is
/// its column's collation: a model whose text columns sort in byte order on every shard says so
/// with `#[keyset(text_collation = "C")]` (see
/// [`load_page_sharded`](crate::Paginated::load_page_sharded)).
///
/// Implement it for a key type of your own only when its column sorts as its `Ord` does on every
/// shard's engine:
///
/// ```
/// use keyset_runtime::ShardOrder;
///
/// /// Stored as a `BIGINT` of cents: the database orders it as the integer, and so does `Ord`.
/// #[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
/// struct Cents(i64);
///
/// impl ShardOrder for Cents {}
/// ```
#[diagnostic::on_unimplemented(
    message = "pages of several shards cannot be merged by a key of type `{Self}`",
    label = "Rust may order `{Self}` otherwise than the databases do",
    note = "the merge compares keys in Rust: integers, `bool`, bytes, dates and times, uuids and decimals merge exactly",
    note = "a `String` key sorts by its column's collation: if every shard's column sorts in byte order (PostgreSQL `COLLATE \"C\"`, SQLite's `BINARY`, MariaDB's `utf8mb4_nopad_bin`), say so on the model with `#[keyset(text_collation = \"C\")]`",
    note = "floats are refused: engines place NaN and -0.0 each their own way"
)]
pub trait ShardOrder: Ord {}

macro_rules! shard_order {
    ($($ty:ty),* $(,)?) => {$( impl ShardOrder for $ty {} )*};
}

shard_order!(i8, i16, i32, i64, u8, u16, u32, u64, bool, Vec<u8>);

#[cfg(feature = "chrono")]
shard_order!(
    chrono::NaiveDateTime,
    chrono::NaiveDate,
    chrono::NaiveTime,
    chrono::DateTime<chrono::Utc>,
    chrono::DateTime<chrono::FixedOffset>,
);

#[cfg(feature = "uuid")]
shard_order!(uuid::Uuid);

#[cfg(feature = "time")]
shard_order!(time::PrimitiveDateTime, time::OffsetDateTime, time::Date, time::Time);

#[cfg(feature = "numeric")]
shard_order!(bigdecimal::BigDecimal);

/// Implemented by `#[derive(Keyset)]` for a model with `#[keyset(text_collation = "..")]`: its
/// text keys sort in byte order on every shard, as Rust's `String` does.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "the text keys of `{Self}` sort by their columns' collation, which Rust's order may not follow",
    label = "pages of several shards are merged in Rust, by byte order",
    note = "if every shard's column sorts text in byte order (PostgreSQL `COLLATE \"C\"`, SQLite's default `BINARY`, MariaDB's `utf8mb4_nopad_bin`), say so on the model: `#[keyset(text_collation = \"C\")]`"
)]
pub trait TextInByteOrder {}

/// How two key lists holding cursors' values compare in the model's order, for the merge of
/// shards' pages: each key in its direction, with its NULL placement. `Row` is the model, which
/// says whether its text keys may be compared.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "pages of `{Row}` cannot be merged across shards: a sort key may order otherwise in Rust than in the databases",
    label = "the keys of `{Row}` cannot be compared in Rust",
    note = "a `String` key sorts by its column's collation: if every shard's column sorts in byte order (PostgreSQL `COLLATE \"C\"`, SQLite's `BINARY`, MariaDB's `utf8mb4_nopad_bin`), say so on the model with `#[keyset(text_collation = \"C\")]`",
    note = "other key types must implement `keyset_runtime::ShardOrder`: integers, `bool`, bytes, dates and times, uuids and decimals do; floats do not"
)]
pub trait MergeKeys<Row> {
    /// `self` against `other`, in the model's order.
    fn compare(&self, other: &Self) -> Ordering;
}

impl<Row> MergeKeys<Row> for End {
    fn compare(&self, _: &Self) -> Ordering {
        Ordering::Equal
    }
}

/// `order` for a key sorted in direction `D`.
fn directed<D: KeyDirection>(order: Ordering) -> Ordering {
    if D::DESC {
        order.reverse()
    } else {
        order
    }
}

/// `a` against `b` for a nullable key: NULLs where `P` places them in the declared order, which
/// a descending key does not flip (its NULL placement is declared, not implied).
fn nullable<D: KeyDirection, P: NullsPlacement, T: Ord>(a: &Option<T>, b: &Option<T>) -> Ordering {
    let nulls_first = if P::FIRST { Ordering::Less } else { Ordering::Greater };
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => nulls_first,
        (Some(_), None) => nulls_first.reverse(),
        (Some(a), Some(b)) => directed::<D>(a.cmp(b)),
    }
}

impl<Row, C, D: KeyDirection, V: ShardOrder, N: MergeKeys<Row>> MergeKeys<Row> for Key<C, D, V, N> {
    fn compare(&self, other: &Self) -> Ordering {
        let ((a, rest), (b, other_rest)) = (self.value_and_next(), other.value_and_next());
        directed::<D>(a.cmp(b)).then_with(|| rest.compare(other_rest))
    }
}

impl<Row: TextInByteOrder, C, D: KeyDirection, N: MergeKeys<Row>> MergeKeys<Row>
    for Key<C, D, String, N>
{
    fn compare(&self, other: &Self) -> Ordering {
        let ((a, rest), (b, other_rest)) = (self.value_and_next(), other.value_and_next());
        directed::<D>(a.cmp(b)).then_with(|| rest.compare(other_rest))
    }
}

impl<Row, C, D, P, V, N> MergeKeys<Row> for Key<C, Nullable<D, P>, Option<V>, N>
where
    D: KeyDirection,
    P: NullsPlacement,
    V: ShardOrder,
    N: MergeKeys<Row>,
{
    fn compare(&self, other: &Self) -> Ordering {
        let ((a, rest), (b, other_rest)) = (self.value_and_next(), other.value_and_next());
        nullable::<D, P, V>(a, b).then_with(|| rest.compare(other_rest))
    }
}

impl<Row: TextInByteOrder, C, D, P, N> MergeKeys<Row> for Key<C, Nullable<D, P>, Option<String>, N>
where
    D: KeyDirection,
    P: NullsPlacement,
    N: MergeKeys<Row>,
{
    fn compare(&self, other: &Self) -> Ordering {
        let ((a, rest), (b, other_rest)) = (self.value_and_next(), other.value_and_next());
        nullable::<D, P, String>(a, b).then_with(|| rest.compare(other_rest))
    }
}
