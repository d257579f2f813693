//! A page's count, run by either driver after the page's statements, on the same connection:
//! the statement `count/policy.rs` chose, built around the listing's query (`count/sql.rs`), and
//! its result read into a [`TotalCount`].

use diesel::dsl::Select;
use diesel::query_dsl::methods::SelectDsl;
use diesel::QueryResult;

use super::exec::{Connects, Limit, Load};
use super::stale::is_stale_plan;
use crate::count::sql::{CountOf, Estimate, One};
use crate::count::{estimated_rows, Counted, TotalCount};
use crate::error::Error;
use crate::sql::SeekDialect;

/// What a count's statement returned: a `COUNT(*)`, or a plan in JSON.
#[doc(hidden)]
pub enum CountRows {
    /// The rows counted.
    Rows(i64),
    /// The `EXPLAIN` of the listing's query.
    Plan(String),
}

/// A query whose rows `X` can count on `Conn`, every way a count runs: exactly, up to a cap, and
/// by the planner's estimate. Implemented for every such query. (Named in hidden bounds only.)
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "the rows of the query `{Self}` cannot be counted on `{Conn}`",
    note = "a count runs `SELECT COUNT(*) FROM (SELECT 1 FROM ..) AS t` around the query: it must take `.select(..)` and load on `{Conn}`"
)]
pub trait Counts<'q, Conn, X: Connects<Conn>>: Sized {
    /// Builds the statement that runs `counted` around the query and starts loading it.
    fn load_count<'a>(
        self,
        counted: Counted,
        conn: &'a mut Conn,
    ) -> X::Page<'a, QueryResult<CountRows>>
    where
        'q: 'a;
}

impl<'q, Q, Conn, X> Counts<'q, Conn, X> for Q
where
    X: Connects<Conn>,
    Q: SelectDsl<One>,
    CountOf<Select<Q, One>>: Load<'q, Conn, i64, X>,
    CountOf<Limit<Select<Q, One>, X, Conn>>: Load<'q, Conn, i64, X>,
    Estimate<Select<Q, One>>: Load<'q, Conn, String, X>,
{
    fn load_count<'a>(
        self,
        counted: Counted,
        conn: &'a mut Conn,
    ) -> X::Page<'a, QueryResult<CountRows>>
    where
        'q: 'a,
    {
        let listing = SelectDsl::select(self, One);
        let count = |rows: QueryResult<Vec<i64>>| match rows?.into_iter().next() {
            Some(rows) => Ok(CountRows::Rows(rows)),
            None => Err(diesel::result::Error::NotFound),
        };
        match counted {
            Counted::All => X::map(CountOf(listing).load_rows(conn), count),
            Counted::UpTo(cap) => {
                let limited = Limit::<_, X, Conn>::new(listing, Counted::limit(cap));
                X::map(CountOf(limited).load_rows(conn), count)
            }
            Counted::Plan(_) => X::map(Estimate(listing).load_rows(conn), |rows| {
                // The plan is one row; PostgreSQL's `EXPLAIN` may print one per line elsewhere,
                // never in JSON.
                Ok(CountRows::Plan(rows?.concat()))
            }),
        }
    }
}

/// The total of `query`'s rows, counted as `counted` says, on a copy of the query from `copy`
/// where a second statement runs: once more after a stale cached plan (`stale.rs`), as a page
/// is, and as a bounded count where an estimate's plan holds none this reader knows.
pub(crate) async fn count<'q, Q, Conn, X>(
    query: Q,
    counted: Counted,
    copy: fn(&Q) -> Option<Q>,
    conn: &mut Conn,
) -> Result<TotalCount, Error>
where
    X: Connects<Conn>,
    Q: Counts<'q, Conn, X>,
{
    let engine = <X::Backend as SeekDialect>::ENGINE;
    let fallback = match counted {
        Counted::Plan(cap) => copy(&query).map(|query| (query, Counted::UpTo(cap))),
        _ => None,
    };
    let rows = run::<Q, Conn, X>(query, counted, copy, conn).await?;
    let rows = match rows {
        CountRows::Rows(rows) => return Ok(counted.total(rows)),
        CountRows::Plan(plan) => estimated_rows(engine, &plan),
    };
    match (rows, fallback) {
        (Some(rows), _) => Ok(counted.total(i64::try_from(rows).unwrap_or(i64::MAX))),
        (None, Some((query, bounded))) => {
            match run::<Q, Conn, X>(query, bounded, copy, conn).await? {
                CountRows::Rows(rows) => Ok(bounded.total(rows)),
                CountRows::Plan(_) => Err(unreadable()),
            }
        }
        (None, None) => Err(unreadable()),
    }
}

/// One count statement, run again once on a fresh statement should its cached one have gone
/// stale.
async fn run<'q, Q, Conn, X>(
    query: Q,
    counted: Counted,
    copy: fn(&Q) -> Option<Q>,
    conn: &mut Conn,
) -> Result<CountRows, Error>
where
    X: Connects<Conn>,
    Q: Counts<'q, Conn, X>,
{
    let again = copy(&query);
    match query.load_count(counted, conn).await {
        Err(error) if is_stale_plan(&error) => {
            X::forget_statements(conn);
            let Some(again) = again else { return Err(error.into()) };
            // The first error is the count's: the retry's (an aborted transaction's) is not.
            again.load_count(counted, conn).await.map_err(|_| error.into())
        }
        rows => Ok(rows?),
    }
}

/// A plan whose estimate this reader cannot find, with no copy of the query left to count.
fn unreadable() -> Error {
    let message = "the planner's row estimate could not be read off its EXPLAIN";
    Error::Database(diesel::result::Error::QueryBuilderError(message.into()))
}

/// A count asked of a query that gives no copy to count (a boxed one): the server's listing,
/// never the client's request.
pub(super) fn not_countable() -> Error {
    let message = "a page's count runs on a copy of the query, and a boxed query gives none: \
                   count a query that is not boxed (`Repeat`)";
    Error::Database(diesel::result::Error::QueryBuilderError(message.into()))
}
