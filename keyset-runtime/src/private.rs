//! What generated code names (`keyset_runtime::__private`), and nothing else: not public API, it
//! may change in any release. (The test suites and benches reach internals through
//! `__testing`, behind a feature of their own.)

/// `order_schema!(PostOrder, ["new", "top"])`: the order enum's OpenAPI schema with the
/// `utoipa` feature, nothing without (derive output cannot read the runtime's features).
pub use crate::__order_schema as order_schema;
pub use crate::among::Prefix;
pub use crate::checks::{
    assert_column_name_is_column, assert_field_is_column, assert_joined_keys_end_in_primary_key,
    assert_prefix_is_column, assert_sort_key_type, assert_tiebreaker_is_primary_key,
    assert_tiebreaker_type, ColumnNameIsColumn, EndsJoinedKeys, FieldIsColumn, IsPrimaryKey,
    MatchesNullability, PrefixIsColumn, SortKeyType, TiebreakerNotNull,
};
pub use crate::error::CursorError;
#[cfg(feature = "utoipa")]
pub use crate::http::openapi::order_names_schema;
pub use crate::migration::IndexDdl;
pub use crate::model::Keyset;
pub use crate::orders::list::{Nil, OrderSet};
pub use crate::orders::named::{
    deserialize_order, parse_order, Orders, OrdersOf, ParseOrderError, SortDirection,
};
pub use crate::orders::SortOrder;
pub use crate::shards::{MergeKeys, TextInByteOrder};
pub use crate::sql::{Asc, Desc, End, Key, Nullable, NullsFirst, NullsLast};
pub use crate::token::format::{fingerprint, MAX_TOKEN_LEN};
pub use crate::token::value::{CursorValue, Reader, Writer};
pub use crate::token::Engine;
pub use diesel;
pub use serde;
#[cfg(feature = "utoipa")]
pub use utoipa;

/// The bytes `write` writes into a token: one key's, for [`Keyset::key_lengths`].
pub fn encoded_len(write: impl FnOnce(&mut Writer)) -> usize {
    let mut out = Writer::default();
    write(&mut out);
    out.into_bytes().len()
}

#[cfg(feature = "utoipa")]
#[doc(hidden)]
#[macro_export]
macro_rules! __order_schema {
    ($order:ty, [$($name:expr),* $(,)?]) => {
        #[automatically_derived]
        impl $crate::__private::utoipa::PartialSchema for $order {
            fn schema() -> $crate::__private::utoipa::openapi::RefOr<
                $crate::__private::utoipa::openapi::schema::Schema,
            > {
                $crate::__private::order_names_schema(&[$($name),*])
            }
        }
        #[automatically_derived]
        impl $crate::__private::utoipa::ToSchema for $order {}
    };
}

#[cfg(not(feature = "utoipa"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __order_schema {
    ($($any:tt)*) => {};
}
