//! The compile-time checks `#[derive(Keyset)]` generates calls to, each a function whose bounds
//! hold only for a valid model, with a trait whose `#[diagnostic::on_unimplemented]` says what is
//! wrong and what to write instead when they do not. Reached through `__private`.

use diesel::sql_types::is_nullable::{IsNullable, NotNull};
use diesel::sql_types::SqlType;

/// Compiles only when `K` is `T`'s primary key (a column, or a tuple of columns in order).
pub fn assert_tiebreaker_is_primary_key<T: diesel::Table, K: IsPrimaryKey<T::PrimaryKey>>() {}

/// `Self` is the primary key `P`. Implemented only for `Self == P`, so that a mismatch
/// is an unimplemented trait, which reports the message below (an associated-type equality
/// would report a bare "type mismatch" instead).
#[diagnostic::on_unimplemented(
    message = "the `#[tiebreaker]` `{Self}` is not the primary key of its table, `{P}`",
    label = "not the primary key `{P}`",
    note = "a tiebreaker must be unique, or rows that tie on every sort key are skipped or repeated across pages",
    note = "put `#[tiebreaker]` on the primary key column instead (on each column of a composite key, in the key's order); for a `NOT NULL` column with a unique index, write `#[tiebreaker(unique)]`"
)]
pub trait IsPrimaryKey<P> {}

impl<K> IsPrimaryKey<K> for K {}

/// Compiles only when `K`, the last of the keys an order takes from the joined table `T`, is
/// `T`'s primary key: then each joined row's rows are consecutive in the order, and a page can
/// walk `T`'s index and each joined row's rows by the model's own index. The derive generates no
/// such check for a struct that keeps its orders with `#[keyset(reads_and_sorts)]`.
pub fn assert_joined_keys_end_in_primary_key<
    T: diesel::Table,
    K: EndsJoinedKeys<T, T::PrimaryKey>,
>() {
}

/// `Self` is `P`, the primary key of the joined table `T`. Implemented only for `Self == P`, as
/// [`IsPrimaryKey`] is, for the message.
#[diagnostic::on_unimplemented(
    message = "the order sorts by `{Self}` of the joined table `{T}` without its primary key `{P}` after it: no index gives this order",
    label = "rows of two joined rows that tie here interleave, so each page reads every row the join matches and sorts them",
    note = "add `{P}` as the next key, a field `#[diesel(select_expression = {P})]`: each page then walks an index of `{T}` and, per joined row, the model's rows by the index of `#[keyset(prefix(..))]` on the column that joins them",
    note = "or, to keep this order and pay for it, write `#[keyset(reads_and_sorts)]` on the struct"
)]
pub trait EndsJoinedKeys<T, P> {}

impl<T, K> EndsJoinedKeys<T, K> for K {}

/// Compiles only when the sort key's field type `V` can be compared with column `C`: Diesel
/// can turn a `V` into an expression of `C`'s SQL type (`AsExpression`, which every backend's
/// `ToSql` impls come with), and a nullable column is sorted by an `Option`. Both bounds are
/// on `V`, so that rustc reports either at the field's type.
pub fn assert_sort_key_type<C, V>()
where
    C: diesel::Expression,
    C::SqlType: SqlType + diesel::expression::TypedExpressionType,
    V: SortKeyType<C, C::SqlType>,
    V: MatchesNullability<C, <C::SqlType as SqlType>::IsNull>,
{
}

/// [`assert_sort_key_type`] for a tiebreaker: its column must also be `NOT NULL`. A nullable
/// column is refused as such, not by asking for an `Option` field, which the derive refuses for
/// a tiebreaker in turn.
pub fn assert_tiebreaker_type<C, V>()
where
    C: diesel::Expression,
    C::SqlType: SqlType + diesel::expression::TypedExpressionType,
    V: SortKeyType<C, C::SqlType>,
    V: TiebreakerNotNull<C, <C::SqlType as SqlType>::IsNull>,
{
}

/// `Self`, the type of a sort-key field, can be bound as `ST`, the SQL type of column `C`.
#[diagnostic::on_unimplemented(
    message = "the sort key's type `{Self}` does not match column `{C}`, of SQL type `{ST}`",
    label = "`{Self}` cannot be compared with `{C}`",
    note = "give the field the Rust type that Diesel maps `{ST}` to (e.g. `i32` for `Integer`, `i64` for `BigInt`, `String` for `Text`, `chrono::NaiveDateTime` for `Timestamp`), or point the field at another column with `#[diesel(column_name = ..)]`"
)]
pub trait SortKeyType<C, ST> {}

// Not recommended, so that a mismatch reports the message above and not a list of every
// SQL type `V` could be instead.
#[diagnostic::do_not_recommend]
impl<V, C, ST> SortKeyType<C, ST> for V
where
    ST: SqlType + diesel::expression::TypedExpressionType,
    V: diesel::expression::AsExpression<ST>,
{
}

/// Column `C` (whose SQL type's nullability is `IsNull`) can be sorted by a field of type
/// `Self`: a `NOT NULL` column by any type, a nullable one only by an `Option<T>` (whose NULL
/// placement the derive checks). A plain field on a nullable column is refused.
#[diagnostic::on_unimplemented(
    message = "the sort key column `{C}` is nullable, but the field's type `{Self}` is not an `Option`",
    label = "a nullable sort key would silently drop the rows where it is NULL",
    note = "a nullable column is sorted by an `Option<T>` field with an explicit NULL placement, e.g. `#[sort(desc, nulls = last)] published_at: Option<i64>`; if this column never holds NULL, declare it `NOT NULL` and drop `Nullable<..>` from its `table!` entry instead"
)]
pub trait MatchesNullability<C, IsNull> {}

impl<V, C> MatchesNullability<C, NotNull> for V {}

impl<T, C> MatchesNullability<C, IsNullable> for Option<T> {}

/// The tiebreaker's column `C` (whose SQL type's nullability is `IsNull`) is `NOT NULL`: NULLs
/// do not compare equal, so a nullable column is not a unique key, whatever its index says.
#[diagnostic::on_unimplemented(
    message = "the tiebreaker column `{C}` is nullable: a tiebreaker must be `NOT NULL`",
    label = "the `table!` declares this column `Nullable<..>`",
    note = "NULLs do not compare equal, so rows whose tiebreaker is NULL would be skipped or repeated across pages; a tiebreaker is a column declared without `Nullable<..>` in `table!`",
    note = "make the column `NOT NULL` in a migration and regenerate the schema, so that `table!` declares it without `Nullable<..>`; or put `#[tiebreaker]` on another unique `NOT NULL` column, such as the primary key"
)]
pub trait TiebreakerNotNull<C, IsNull> {}

impl<V, C> TiebreakerNotNull<C, NotNull> for V {}

/// Compiles only when `C` is a column of table `T`. The derive names each sort key's column
/// here with a stand-in of the same name declared beside it, which the column shadows when the
/// `table!` has it: so a missing column is an unimplemented trait, with the message below, at
/// the field.
pub fn assert_field_is_column<T, C: FieldIsColumn<T>>() {}

/// [`assert_field_is_column`] for a field with `#[diesel(column_name = ..)]`.
pub fn assert_column_name_is_column<T, C: ColumnNameIsColumn<T>>() {}

/// `Self` is a column of table `T`, as the field's name says.
#[diagnostic::on_unimplemented(
    message = "no column `{Self}` in `{T}`",
    label = "a field sorts by the column of its own name",
    note = "if the column has another name, write `#[diesel(column_name = actual)]` on the field, with the column's name as the `table!` declares it"
)]
pub trait FieldIsColumn<T> {}

#[diagnostic::do_not_recommend]
impl<C: diesel::Column<Table = T>, T> FieldIsColumn<T> for C {}

/// `Self` is a column of table `T`, as `#[diesel(column_name = ..)]` says.
#[diagnostic::on_unimplemented(
    message = "no column `{Self}` in `{T}`",
    label = "`column_name` names a column of the `table!`",
    note = "correct the name to the column's, as the `table!` declares it, or remove `#[diesel(column_name = ..)]` to sort by the column of the field's own name"
)]
pub trait ColumnNameIsColumn<T> {}

#[diagnostic::do_not_recommend]
impl<C: diesel::Column<Table = T>, T> ColumnNameIsColumn<T> for C {}

/// [`assert_field_is_column`] for a column of `#[keyset(prefix(..))]`.
pub fn assert_prefix_is_column<T, C: PrefixIsColumn<T>>() {}

/// `Self` is a column of table `T`, as `#[keyset(prefix(..))]` says.
#[diagnostic::on_unimplemented(
    message = "no column `{Self}` in `{T}`",
    label = "`prefix` names columns of the model's `table!`",
    note = "correct the name to the column's, as the `table!` declares it: `#[keyset(prefix(author_id))]`"
)]
pub trait PrefixIsColumn<T> {}

#[diagnostic::do_not_recommend]
impl<C: diesel::Column<Table = T>, T> PrefixIsColumn<T> for C {}
