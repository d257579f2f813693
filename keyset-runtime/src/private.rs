//! What generated code names (`keyset_runtime::__private`), and what the test suites and the
//! benches reach past the public API. Not public API: it may change in any release.

pub use crate::checks::{
    assert_column_name_is_column, assert_field_is_column, assert_sort_key_type,
    assert_tiebreaker_is_primary_key, assert_tiebreaker_type, ColumnNameIsColumn, FieldIsColumn,
    IsPrimaryKey, MatchesNullability, SortKeyType, TiebreakerNotNull,
};
pub use crate::migration::IndexDdl;
pub use crate::model::Keyset;
pub use crate::order::{
    deserialize_order, parse_order, Nil, Orders, ParseOrderError, SortDirection, SortOrder,
};
pub use crate::shards::{MergeKeys, TextInByteOrder};
pub use crate::sql::{Asc, Desc, End, Key, Nullable, NullsFirst, NullsLast};
pub use crate::token::raw::{fingerprint, MAX_TOKEN_LEN};
pub use crate::token::{CursorValue, Reader, Writer};
pub use crate::CursorError;
pub use diesel;
pub use serde;

/// The SQL internals the test suite and the benches reach past the public API: a seek's
/// regions and tie levels, and the types of the ORDER BY and the seek predicate.
pub mod sql {
    pub use crate::sql::{Backward, Forward, OrderBy, Region, Seek, SeekDialect, SeekLevel, Union};

    /// The union of `branches` (statements already ordered and limited) that a page runs its
    /// tie levels as on PostgreSQL, ordered by `order` over the output columns `names`.
    pub fn union<S, M: crate::order::SortOrder, W>(
        branches: Vec<S>,
        order: OrderBy<M, W>,
        names: &'static [&'static str],
        limit: i64,
    ) -> Union<S, M, W> {
        Union::new(branches, order, names, limit)
    }

    /// A statement as Diesel's instrumentation or `debug_query` shows it, without its bound
    /// values, with each `LIMIT` as `?` and PostgreSQL's parameters unnumbered (`$?`): what a
    /// page ran and the same statement built with Diesel's `.limit()` (which binds it, and so
    /// shifts the numbers of a union's later branches) then read alike.
    pub fn shape(statement: &str) -> String {
        let sql = statement.split(" -- binds:").next().unwrap_or(statement);
        let mut parts = sql.split(" LIMIT ");
        let mut limits = parts.next().unwrap_or_default().to_owned();
        for part in parts {
            // The limit runs to the next space or to the parenthesis closing a union's branch.
            let end = part.find([' ', ')']).unwrap_or(part.len());
            limits.push_str(" LIMIT ?");
            limits.push_str(&part[end..]);
        }
        let mut numbered = limits.split('$');
        let mut shape = numbered.next().unwrap_or_default().to_owned();
        for part in numbered {
            shape.push_str("$?");
            shape.push_str(part.trim_start_matches(|c: char| c.is_ascii_digit()));
        }
        shape
    }
}

/// The token format, for tests that write tokens by hand (forged, foreign, of an older
/// version) and check how they are refused.
pub mod token {
    pub use crate::token::raw::{decode, encode, fingerprint, END, MAX_TOKEN_LEN, SIGNED, VERSION};
    #[cfg(feature = "signed")]
    pub use crate::token::signed::SIGNATURE_LEN;
}

/// The bytes `write` writes into a token: one key's, for [`Keyset::key_lengths`].
pub fn encoded_len(write: impl FnOnce(&mut Writer)) -> usize {
    let mut out = Writer::default();
    write(&mut out);
    out.into_bytes().len()
}
