//! The statements of a count, as Diesel query fragments around the listing's own query, so that
//! its filters, joins and binds go through as Diesel writes them (no value is formatted here):
//!
//! - [`One`]: the selection that replaces the listing's, `SELECT 1 FROM .. WHERE ..`. A
//!   derived table of the listing's own columns would repeat a join's column names (`id` of
//!   both tables), which MariaDB refuses (`Duplicate column name`); and `COUNT(*)` in place of the
//!   selection would count each group of a grouped query apart. One constant per row counts
//!   the rows (or groups) the listing returns;
//! - [`CountOf`]: `SELECT COUNT(*) FROM (<query>) AS keyset_count`, for an exact count and,
//!   with the query's `LIMIT cap + 1` ([`Limited`](crate::sql::Limited)), a bounded one;
//! - [`Estimate`]: the backend's `EXPLAIN` in JSON of the query
//!   ([`SeekDialect::EXPLAIN_JSON`]), whose row estimate `plan.rs` reads.

use diesel::backend::Backend;
use diesel::expression::{
    is_aggregate, AppearsOnTable, Expression, SelectableExpression, ValidGrouping,
};
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::{BigInt, Integer, Text};
use diesel::{QueryResult, RunQueryDsl};

use crate::sql::SeekDialect;

/// `1`, the selection of a count's subquery: every row of the listing counts once, whatever it
/// selects. (Named in hidden bounds only.)
#[doc(hidden)]
#[derive(Debug, Clone, Copy, Default, QueryId)]
pub struct One;

impl Expression for One {
    type SqlType = Integer;
}

impl<DB: Backend> QueryFragment<DB> for One {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql("1");
        Ok(())
    }
}

impl<QS> AppearsOnTable<QS> for One {}

impl<QS> SelectableExpression<QS> for One {}

impl<GB> ValidGrouping<GB> for One {
    type IsAggregate = is_aggregate::Never;
}

/// `SELECT COUNT(*) FROM (<query>) AS keyset_count`. (Named in hidden bounds only.)
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct CountOf<S>(pub(crate) S);

impl<S> Query for CountOf<S> {
    type SqlType = BigInt;
}

impl<S: QueryId> QueryId for CountOf<S> {
    type QueryId = CountOf<S::QueryId>;
    const HAS_STATIC_QUERY_ID: bool = S::HAS_STATIC_QUERY_ID;
}

impl<S: QueryFragment<DB>, DB: Backend> QueryFragment<DB> for CountOf<S> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql("SELECT COUNT(*) FROM (");
        self.0.walk_ast(out.reborrow())?;
        out.push_sql(") AS keyset_count");
        Ok(())
    }
}

impl<S, Conn> RunQueryDsl<Conn> for CountOf<S> {}

/// The backend's `EXPLAIN` of `<query>` in JSON, one row of text
/// ([`SeekDialect::EXPLAIN_JSON`]); on a backend without one, an error when written (a count
/// never plans one there). (Named in hidden bounds only.)
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct Estimate<S>(pub(crate) S);

impl<S> Query for Estimate<S> {
    type SqlType = Text;
}

impl<S: QueryId> QueryId for Estimate<S> {
    type QueryId = Estimate<S::QueryId>;
    // The prefix is one per backend, so the type says the SQL as well as the query's does.
    const HAS_STATIC_QUERY_ID: bool = S::HAS_STATIC_QUERY_ID;
}

impl<S: QueryFragment<DB>, DB: SeekDialect> QueryFragment<DB> for Estimate<S> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        let Some(explain) = DB::EXPLAIN_JSON else {
            let message = "this backend gives no row estimate: count with a bounded count";
            return Err(diesel::result::Error::QueryBuilderError(message.into()));
        };
        out.push_sql(explain);
        out.push_sql(" ");
        self.0.walk_ast(out)
    }
}

impl<S, Conn> RunQueryDsl<Conn> for Estimate<S> {}

#[cfg(all(test, feature = "sqlite"))]
mod tests {
    use diesel::prelude::*;
    use diesel::query_dsl::methods::SelectDsl;

    use super::{CountOf, One};
    use crate::sql::Limited;

    diesel::table! {
        posts (id) {
            id -> BigInt,
            author_id -> BigInt,
        }
    }

    #[test]
    fn a_count_wraps_the_listing_and_binds_its_values() {
        let listing = posts::table.filter(posts::author_id.eq(7));
        let bounded = CountOf(Limited::<
            _,
            <diesel::sqlite::Sqlite as crate::sql::SeekDialect>::LimitStyle,
        >::new(SelectDsl::select(listing, One), 1_001));
        let sql = diesel::debug_query::<diesel::sqlite::Sqlite, _>(&bounded).to_string();
        assert_eq!(
            sql,
            "SELECT COUNT(*) FROM (SELECT 1 FROM `posts` WHERE (`posts`.`author_id` = ?) LIMIT +?) \
             AS keyset_count -- binds: [7, 1001]"
        );
    }
}
