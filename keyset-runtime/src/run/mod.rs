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
mod count;
mod exec;
mod stale;
mod statement;

use crate::count::{Counted, Counting};
use crate::error::Error;
use crate::fetched::{Fetched, Loaded};
use crate::machine::{Copies, PageMachine};
use crate::orders::list::{Either, Never, Nil, OrderList, OrderSet};
use crate::orders::SortOrder;
use crate::paginate::{Paginate, Paginated};
use crate::position::Position;
use crate::repeat::{next_copy, Repeat};
use crate::sql::{Backward, Forward, SeekDialect, Walk};
use stale::is_stale_plan;

#[cfg(feature = "diesel-async")]
pub use awaited::{AsyncPageQuery, Awaited};
pub use blocking::{Blocking, PageQuery};
pub(crate) use count::count;
pub use exec::{Connects, Exec};
pub use statement::{Statements, Walks};

/// What a page is asked for: its size served, and the count asked for with it under the
/// listing's rules (already checked: an exact count here is allowed). (Named in hidden bounds
/// only.)
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct Ask {
    pub(crate) limit: u32,
    pub(crate) counting: Counting,
}

/// Runs the page asked for at `position` in order `O`: each statement the page machine
/// plans, on a copy of the query while another may follow, its rows handed back to the machine;
/// then its count, if one was asked for.
async fn fetch<'q, O, Q, Conn, X>(
    query: Q,
    position: Position<O::Cursor>,
    ask: Ask,
    conn: &mut Conn,
) -> Result<Fetched<O, Q::Item>, Error>
where
    X: Connects<Conn>,
    O: SortOrder<Row = Q::Model>,
    Q: Walks<'q, O, Conn, X>,
{
    if position.is_backward() {
        walk::<O, Backward, Q, Conn, X>(query, position, ask, conn).await
    } else {
        walk::<O, Forward, Q, Conn, X>(query, position, ask, conn).await
    }
}

/// [`fetch`], walking `W`.
async fn walk<'q, O, W, Q, Conn, X>(
    query: Q,
    position: Position<O::Cursor>,
    Ask { limit, counting }: Ask,
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
        among: query.probes().is_some(),
    };
    // A page among a set refuses the set before any statement, as its count does.
    let engine = <X::Backend as SeekDialect>::ENGINE;
    query.check_set(engine)?;
    // The count runs on its own copy of the query, after the page's statements.
    let counted = counting.asked.map(|count| counting.statement(count, engine));
    let counted: Option<(Counted, Q)> = match counted {
        Some(counted) => Some((counted, query.again().ok_or_else(count::not_countable)?)),
        None => None,
    };
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
    let mut fetched = machine.into_fetched();
    if let Some((counted, query)) = counted {
        fetched.total = Some(count::<Q, Conn, X>(query, counted, Repeat::again, conn).await?);
    }
    Ok(fetched)
}

/// How `Self` runs a page in one order: [`fetch`], made a [`Page`](Exec::Page) of its kind. The
/// one place where the two drivers differ in what they ask of a query (an async page is `Send`).
#[doc(hidden)]
pub trait Drive<'q, O: SortOrder, Q: Paginate, Conn>: Exec {
    /// The rows of the page `ask` asks for at `position` in order `O`, and its count.
    fn page<'c>(
        query: Q,
        position: Position<O::Cursor>,
        ask: Ask,
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
    /// The rows of the page `ask` asks for at `chosen`, and its count.
    fn fetch_in<'c>(
        self,
        chosen: L::Chosen,
        ask: Ask,
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
        _: Ask,
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
        ask: Ask,
        conn: &'c mut Conn,
    ) -> X::Page<'c, Result<<(O, Rest) as OrderList>::Fetched<Q::Item>, Error>>
    where
        'q: 'c,
        Self: 'c,
    {
        match chosen {
            Either::Here(position) => {
                let page = <X as Drive<'q, O, Q, Conn>>::page(self, position, ask, conn);
                X::map(page, |fetched| fetched.map(Either::Here))
            }
            Either::There(rest) => {
                let page = Pages::<'q, Rest, Conn, X>::fetch_in(self, rest, ask, conn);
                X::map(page, |fetched| fetched.map(Either::There))
            }
        }
    }
}

impl<Q: Paginate, O: OrderSet> Paginated<Q, O> {
    /// The page, and with `edges` each row's own token (Relay's edges). A count the listing
    /// refuses fails it before any statement.
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
        let ask = match self.ask() {
            Ok(ask) => ask,
            // The refusal as the page's result, whose rows need not be `Send`.
            Err(error) => return X::map(X::ready(error), Err),
        };
        let codec = self.codec;
        let fetched = self.query.fetch_in(self.chosen, ask, conn);
        X::map(fetched, move |fetched| O::List::finish(fetched?, &codec, edges))
    }
}

impl<Q: Paginate, O: OrderSet> Paginated<Q, O> {
    /// What the page asks for: its size served, and its count, refused (the client's error)
    /// where the listing does not serve it, as a start at values is.
    pub(crate) fn ask(&self) -> Result<Ask, Error> {
        self.starts.check()?;
        let asked = self.counting.check()?;
        Ok(Ask { limit: self.limit.served(), counting: Counting { asked, ..self.counting } })
    }
}
