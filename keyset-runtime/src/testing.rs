//! What the workspace's test suites, benches and fuzz target reach past the public API (feature
//! `__testing`, which only they enable): the raw token format, to forge and corrupt tokens, and
//! the SQL layer's parts, to pin the statements a page runs and their plans. Not public API.

/// The token format, for tests that write tokens by hand (forged, foreign, of an older
/// version) and check how they are refused.
pub mod token {
    #[cfg(feature = "encrypted")]
    pub use crate::token::encrypted::{NONCE_LEN, TAG_LEN};
    pub use crate::token::format::{
        fingerprint, scope_hash, ENCRYPTED, END, MAX_TOKEN_LEN, SCOPED, SIGNED, VERSION,
    };
    pub use crate::token::raw::{decode, encode};
    #[cfg(feature = "signed")]
    pub use crate::token::signed::SIGNATURE_LEN;
}

/// The SQL layer's parts: a seek's regions and tie levels, one side of a NULL boundary's ORDER
/// BY, the union of tie levels, and the statement normaliser.
pub mod sql {
    pub use crate::sql::{
        Backward, Forward, GroupOrder, OrderBy, Region, Seek, SeekDialect, SeekLevel, Union,
    };

    /// The branches of a union among `values` distinct values, padding included.
    pub fn union_branches(values: usize) -> usize {
        crate::sql::padded(values)
    }

    use crate::orders::SortOrder;
    use crate::sql::Walk;

    /// The parts of a seek a page may run instead of the whole (see `Keyset::after`).
    pub trait SeekParts<M: SortOrder, W>: Sized {
        /// The seek limited to one region of a nullable leading key.
        fn region(self, region: Region) -> Self;
        /// One tie level of the seek, from 1 (the leading key) to the number of keys.
        fn level(self, level: usize) -> SeekLevel<M, W>;
        /// The rows of the cursor's group, equal to it on the first `depth` keys, and with
        /// `rest` only those strictly past it on the others (see `machine/groups.rs`).
        fn group(self, depth: usize, rest: bool) -> SeekLevel<M, W>;
        /// The rows strictly past the cursor's group on its first `depth` keys: what finds the
        /// next group, under [`group_order`]'s ORDER BY.
        fn past_group(self, depth: usize) -> SeekLevel<M, W>;
    }

    impl<M: SortOrder, W: Walk> SeekParts<M, W> for Seek<M, W> {
        fn region(self, region: Region) -> Self {
            Seek::within(self, region)
        }
        fn level(self, level: usize) -> SeekLevel<M, W> {
            Seek::start_level(self, level, false)
        }
        fn group(self, depth: usize, rest: bool) -> SeekLevel<M, W> {
            Seek::group(self, depth, rest.then_some(crate::sql::Stop::PAST))
        }
        fn past_group(self, depth: usize) -> SeekLevel<M, W> {
            Seek::start(self, crate::sql::Stop { depth, inclusive: false }, Region::Whole)
        }
    }

    /// The ORDER BY of an order's group keys alone: a group's key's statement's.
    pub fn group_order<M: SortOrder, W>() -> GroupOrder<M, W> {
        GroupOrder::new()
    }

    /// The predicate of a page at the row whose primary key is `id` (`Paginated::at_row_id`),
    /// the row's other values read where they are compared: whole, or one tie level of it
    /// (`level`, from 1, the innermost keeping the row).
    pub fn at_row_id<M: SortOrder, W: Walk>(
        id: impl crate::token::CursorValue,
        level: Option<usize>,
    ) -> SeekLevel<M, W> {
        let seek = row_seek::<M, W>(&id, true);
        let len = <M::Keys as crate::sql::KeyShape>::LEN;
        match level {
            Some(level) => seek.start_level(level, level == len),
            None => seek.start(crate::sql::Stop::FROM, Region::Whole),
        }
    }

    /// A statement of a page at the row whose primary key is `id` in an order led by a nullable
    /// key: within `region` of the row's, which it assumes is the NULLs (`null`) or the values,
    /// holding no row where the row's value says otherwise.
    pub fn at_row_id_in<M: SortOrder, W: Walk>(
        id: impl crate::token::CursorValue,
        null: bool,
        region: Region,
    ) -> SeekLevel<M, W> {
        row_seek::<M, W>(&id, null).start(crate::sql::Stop::FROM, region)
    }

    /// The one predicate of a page at the row whose primary key is `id` in an order led by a
    /// nullable key, on a query that runs one statement: the rows past the row's value where it
    /// is not NULL, or past the row among the NULLs where it is.
    pub fn at_row_id_either<M: SortOrder, W: Walk>(
        id: impl crate::token::CursorValue,
    ) -> SeekLevel<M, W> {
        let (value, null) = (row_seek::<M, W>(&id, false), row_seek(&id, true));
        value.start_either(null, crate::sql::Stop::FROM)
    }

    /// The seek from the row whose primary key is `id`, reading its other values from the row;
    /// a nullable leading key's value assumed NULL (`null`, and for any other order) or not.
    fn row_seek<M: SortOrder, W: Walk>(
        id: &impl crate::token::CursorValue,
        null: bool,
    ) -> Seek<M, W> {
        let mut out = crate::token::Writer::default();
        id.write(&mut out);
        let mut cursor =
            crate::position::row_cursor::<M>(&out.into_bytes()).expect("a row's cursor");
        if !null {
            cursor = crate::position::row_value_cursor::<M>(&cursor).expect("a value's cursor");
        }
        Seek::new(cursor).reading_row(true)
    }

    /// The ORDER BY of rows that all lie on one side of a nullable leading key's NULL boundary.
    pub trait OneSide: Sized {
        /// This ORDER BY, the placement of NULLs left unpinned.
        fn one_side(self) -> Self;
    }

    impl<M: SortOrder, W> OneSide for OrderBy<M, W> {
        fn one_side(self) -> Self {
            OrderBy::on_one_side(self)
        }
    }

    /// The union of `branches` (statements already ordered and limited) that a page runs its
    /// tie levels as on PostgreSQL, ordered by `order` over the output columns `names`.
    pub fn union<S, M: SortOrder, W>(
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
