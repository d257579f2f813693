//! The drivers: what runs a page's statements, written once for a blocking Diesel connection
//! ([`Blocking`]) and a diesel-async one ([`Awaited`]).
//!
//! The page machine (`machine/`) decides what a page runs and performs no IO. Everything that
//! runs its statements is written once, as async code generic over an [`Exec`]: the match that
//! builds each statement on the query and loads it (`statement.rs`), the loop that feeds the
//! machine its rows, the walk through a list of orders to the chosen one, the merge of shards'
//! pages, the count. What differs between the two is how one statement's rows come back: a
//! blocking load wrapped in a future that is ready when made, or diesel-async's future, boxed.
//! On a blocking connection a page therefore never waits, and its future completes in its first
//! poll (`blocking.rs`); on an async one it is awaited (`awaited.rs`). So both paths run the same
//! statements, with the same binds, in the same order, and return the same page.

mod among;
#[cfg(feature = "diesel-async")]
mod awaited;
mod blocking;
mod exec;
mod stale;
mod statement;

use diesel::dsl::{CountStar, Select};
use diesel::query_dsl::methods::SelectDsl;

use crate::error::Error;
use crate::fetched::{Fetched, Loaded};
use crate::machine::{Copies, PageMachine};
use crate::orders::list::{Either, Never, Nil, OrderList, OrderSet};
use crate::orders::SortOrder;
use crate::paginate::{Paginate, Paginated};
use crate::position::Position;
use crate::repeat::{next_copy, CheckSet};
use crate::sql::{Backward, Forward, SeekDialect, Walk};
use stale::is_stale_plan;

#[cfg(feature = "diesel-async")]
pub use awaited::{AsyncPageQuery, Awaited};
pub use blocking::{Blocking, PageQuery};
pub use exec::{Connects, Exec, Load};
pub use statement::{Statements, Walks};

/// Runs the page of `limit` rows at `position` in order `O`: each statement the page machine
/// plans, on a copy of the query while another may follow, its rows handed back to the machine.
async fn fetch<'q, O, Q, Conn, X>(
    query: Q,
    position: Position<O::Cursor>,
    limit: u32,
    conn: &mut Conn,
) -> Result<Fetched<O, Q::Item>, Error>
where
    X: Connects<Conn>,
    O: SortOrder<Row = Q::Model>,
    Q: Walks<'q, O, Conn, X>,
{
    if position.is_backward() {
        walk::<O, Backward, Q, Conn, X>(query, position, limit, conn).await
    } else {
        walk::<O, Forward, Q, Conn, X>(query, position, limit, conn).await
    }
}

/// [`fetch`], walking `W`.
async fn walk<'q, O, W, Q, Conn, X>(
    query: Q,
    position: Position<O::Cursor>,
    limit: u32,
    conn: &mut Conn,
) -> Result<Fetched<O, Q::Item>, Error>
where
    X: Connects<Conn>,
    O: SortOrder<Row = Q::Model>,
    W: Walk,
    Q: Statements<'q, O, W, Conn, X>,
{
    let copies = Copies {
        repeats: Q::REPEATS,
        unite: Q::REPEATS && Q::MODEL_ALONE && Q::unites(),
        probe: query
            .probes()
            .filter(|_| Q::REPEATS && Q::MODEL_ALONE && O::SELECTED_NAMES.is_some()),
    };
    // A page among a set refuses the set before any statement, as its count does.
    query.check_set(<X::Backend as SeekDialect>::ENGINE)?;
    let mut machine =
        PageMachine::<O, W, Q::Item>::new::<X::Backend>(position, (limit, copies), Q::model)?;
    let mut query = Some(query);
    while let Some(statement) = machine.next() {
        // A query that repeats keeps a copy for a retry (`stale.rs`).
        let copy = next_copy(&mut query, machine.may_continue() || Q::REPEATS)?;
        let loaded = copy.load(statement, conn)?.await;
        let rows = match loaded {
            Err(error) if is_stale_plan(&error) => {
                X::forget_statements(conn);
                let (Some(_), Some(statement)) = (&query, machine.again()) else {
                    return Err(error.into());
                };
                let copy = next_copy(&mut query, machine.may_continue())?;
                // The first error is the page's: the retry's (an aborted transaction's) is not.
                copy.load(statement, conn)?.await.map_err(|_| error)?
            }
            rows => rows?,
        };
        machine.fetched(rows);
    }
    Ok(machine.into_fetched())
}

/// How `Self` runs a page in one order: [`fetch`], made a [`Page`](Exec::Page) of its kind. The
/// one place where the two drivers differ in what they ask of a query (an async page is `Send`).
#[doc(hidden)]
pub trait Drive<'q, O: SortOrder, Q: Paginate, Conn>: Exec {
    /// The rows of the page of `limit` rows at `position` in order `O`.
    fn page<'c>(
        query: Q,
        position: Position<O::Cursor>,
        limit: u32,
        conn: &'c mut Conn,
    ) -> Self::Page<'c, Result<Fetched<O, Q::Item>, Error>>
    where
        'q: 'c,
        Q: 'c;
}

/// A query whose pages `X` can load on `Conn` in every order of list `L`: the walk through the
/// list to the chosen order. (Named in the bounds [`PageQuery`] and `AsyncPageQuery` stand for.)
#[doc(hidden)]
pub trait Pages<'q, L: OrderList, Conn, X: Exec>: Paginate {
    /// The rows of the page of `limit` rows at `chosen`.
    fn fetch_in<'c>(
        self,
        chosen: L::Chosen,
        limit: u32,
        conn: &'c mut Conn,
    ) -> X::Page<'c, Result<L::Fetched<Self::Item>, Error>>
    where
        'q: 'c,
        Self: 'c;
}

impl<'q, Q: Paginate, Conn, X: Exec, Row: 'static> Pages<'q, Nil<Row>, Conn, X> for Q {
    fn fetch_in<'c>(
        self,
        chosen: Never,
        _: u32,
        _: &'c mut Conn,
    ) -> X::Page<'c, Result<Never, Error>>
    where
        'q: 'c,
        Self: 'c,
    {
        match chosen {}
    }
}

impl<'q, Q, Conn, X, O, Rest> Pages<'q, (O, Rest), Conn, X> for Q
where
    Q: Paginate + Pages<'q, Rest, Conn, X>,
    X: Drive<'q, O, Q, Conn>,
    O: SortOrder<Row = Q::Model>,
    Rest: OrderList<Row = O::Row>,
{
    fn fetch_in<'c>(
        self,
        chosen: <(O, Rest) as OrderList>::Chosen,
        limit: u32,
        conn: &'c mut Conn,
    ) -> X::Page<'c, Result<<(O, Rest) as OrderList>::Fetched<Q::Item>, Error>>
    where
        'q: 'c,
        Self: 'c,
    {
        match chosen {
            Either::Here(position) => {
                let page = <X as Drive<'q, O, Q, Conn>>::page(self, position, limit, conn);
                X::map(page, |fetched| fetched.map(Either::Here))
            }
            Either::There(rest) => {
                let page = Pages::<'q, Rest, Conn, X>::fetch_in(self, rest, limit, conn);
                X::map(page, |fetched| fetched.map(Either::There))
            }
        }
    }
}

impl<Q: Paginate, O: OrderSet> Paginated<Q, O> {
    /// The page, and with `edges` each row's own token (Relay's edges).
    pub(crate) fn load<'q, 'c, Conn, X>(
        self,
        conn: &'c mut Conn,
        edges: bool,
    ) -> X::Page<'c, Result<Loaded<Q::Item>, Error>>
    where
        X: Exec,
        Q: Pages<'q, O::List, Conn, X> + 'c,
        'q: 'c,
    {
        let (limit, codec) = (self.limit.served(), self.codec);
        let fetched = self.query.fetch_in(self.chosen, limit, conn);
        X::map(fetched, move |fetched| O::List::finish(fetched?, &codec, edges))
    }
}

/// The number of rows `query` matches: `SELECT COUNT(*)` with its own filters, run again once on
/// a fresh statement should its cached one have gone stale (`stale.rs`).
async fn count<'q, 'c, Q, Conn, X>(query: Q, conn: &'c mut Conn) -> Result<i64, Error>
where
    'q: 'c,
    X: Connects<Conn>,
    Q: SelectDsl<CountStar> + CheckSet + Clone,
    Select<Q, CountStar>: Load<'q, Conn, i64, X>,
{
    // A count among a set is refused where its page would be, before any statement.
    query.check_set(<X::Backend as SeekDialect>::ENGINE)?;
    let select = |query: Q| SelectDsl::select(query, diesel::dsl::count_star());
    let loaded = select(query.clone()).load_rows(conn).await;
    let rows = match loaded {
        Err(error) if is_stale_plan(&error) => {
            X::forget_statements(conn);
            select(query).load_rows(conn).await.map_err(|_| error)?
        }
        rows => rows?,
    };
    rows.into_iter().next().ok_or(Error::Database(diesel::result::Error::NotFound))
}
