//! The match on [`Statement`] for a page among a set of values ([`Among`]): each statement the
//! page machine plans (the first rows, a seek past the cursor, one tie level of it, a page by
//! number), built once per value and merged, or `LATERAL` over the values, as `sql/members/`
//! describes; or, where no such statement can be built, filtered by `IN (..)`.

use std::future::{ready, Ready};

use diesel::dsl::{self, Filter, Order};
use diesel::query_builder::Query;
use diesel::query_dsl::methods::{FilterDsl, LimitDsl, OrderDsl, SelectDsl};
use diesel::Column;

#[cfg(feature = "diesel-async")]
use super::awaited::{AsyncConnection, Awaited};
use super::blocking::{complete, Blocking, BlockingConnection};
use super::count::Counts;
#[cfg(feature = "diesel-async")]
use super::exec::Exec;
use super::exec::{Connects, Limit, Load};
use super::statement::{past, unplanned, Loading, Past, Statements};
use super::{fetch, Ask, Drive, Walks};
use crate::among::{distinct, Among, AmongQuery, SetType, ValueOf};
use crate::error::Error;
use crate::fetched::Fetched;
use crate::machine::Statement;
use crate::orders::SortOrder;
use crate::paginate::Paginate;
use crate::position::Position;
use crate::repeat::{branches, Repeat};
use crate::sql::{
    padded, KeyColumns, KeyShape, Member, Members, Merge, Offset, OrderBy, PerValue, Seek,
    SeekDialect, SeekLevel, Walk, Window, WindowEnd, WindowRow, Windowing,
};
use crate::token::CursorValue;

/// The query filtered to one value, to the `LATERAL` value, or to the whole set.
type Of<Q, C, V> = Filter<Q, Member<C, V>>;

/// `query` with the first rows' ORDER BY and LIMIT.
type First<Q, M, W, X, Conn> = Limit<Order<Q, OrderBy<M, W>>, X, Conn>;

/// `query.filter(predicate)` with the page's ORDER BY (a seek's branch, before its LIMIT).
type Ordered<Q, P, M, W> = Order<Filter<Q, P>, OrderBy<M, W>>;

/// The union of the branches `T` (with their LIMIT), selecting the keys alone, for the rows of
/// the query `Q` they find (`sql/key_columns.rs`).
type Keyed<T, M, W, C, V, Q, X, Conn> =
    Members<Limit<dsl::Select<T, KeyColumns<M>>, X, Conn>, M, W, C, V, Q>;

/// The row of the query `Q` at which a feed's window ends: the keys of the table `T` walked in
/// the order to it, and the row fetched by them.
type Reached<T, M, W, C, V, Q> = Members<
    WindowRow<dsl::Select<Ordered<T, Window<M, W, T>, M, W>, KeyColumns<M>>>,
    M,
    W,
    C,
    V,
    Q,
>;

impl<'q, Q, C, V, M, W, Conn, X> Statements<'q, M, W, Conn, X> for Among<Q, C, V>
where
    X: Connects<Conn>,
    M: SortOrder,
    M::Keys: Clone,
    W: Walk,
    Among<Q, C, V>: Paginate<Item = Q::Item> + Repeat + Counts<'q, Conn, X>,
    Q: Paginate + Repeat + FilterDsl<Member<C, V>>,
    C: Column<Table: Default> + Clone,
    V: Clone + CursorValue,
    Of<Q, C, V>: OrderDsl<OrderBy<M, W>> + FilterDsl<Seek<M, W>> + FilterDsl<SeekLevel<M, W>>,
    Of<Q, C, V>: FilterDsl<Window<M, W, C::Table>>,
    C::Table: FilterDsl<Window<M, W, C::Table>>,
    Filter<C::Table, Window<M, W, C::Table>>: OrderDsl<OrderBy<M, W>>,
    Ordered<C::Table, Window<M, W, C::Table>, M, W>: SelectDsl<KeyColumns<M>>,
    Reached<C::Table, M, W, C, V, Q>: Load<'q, Conn, Q::Item, X>,
    Filter<Of<Q, C, V>, Window<M, W, C::Table>>: OrderDsl<OrderBy<M, W>>,
    Past<Of<Q, C, V>, Window<M, W, C::Table>, M, W, X, Conn>: Load<'q, Conn, Q::Item, X>,
    Filter<Of<Q, C, V>, Seek<M, W>>: OrderDsl<OrderBy<M, W>>,
    Filter<Of<Q, C, V>, SeekLevel<M, W>>: OrderDsl<OrderBy<M, W>>,
    First<Of<Q, C, V>, M, W, X, Conn>: Load<'q, Conn, Q::Item, X>,
    Limit<Order<Of<Q, C, V>, OrderBy<M, W>>, X, Conn, Offset>: Load<'q, Conn, Q::Item, X>,
    Past<Of<Q, C, V>, Seek<M, W>, M, W, X, Conn>: Load<'q, Conn, Q::Item, X>,
    Past<Of<Q, C, V>, SeekLevel<M, W>, M, W, X, Conn>: Load<'q, Conn, Q::Item, X>,
    Members<First<Of<Q, C, V>, M, W, X, Conn>, M, W, C, V, Q>: Load<'q, Conn, Q::Item, X>,
    Members<Past<Of<Q, C, V>, Window<M, W, C::Table>, M, W, X, Conn>, M, W, C, V, Q>:
        Load<'q, Conn, Q::Item, X>,
    Members<Past<Of<Q, C, V>, Seek<M, W>, M, W, X, Conn>, M, W, C, V, Q>:
        Load<'q, Conn, Q::Item, X>,
    Members<Past<Of<Q, C, V>, SeekLevel<M, W>, M, W, X, Conn>, M, W, C, V, Q>:
        Load<'q, Conn, Q::Item, X>,
    Order<Of<Q, C, V>, OrderBy<M, W>>: SelectDsl<KeyColumns<M>>,
    Ordered<Of<Q, C, V>, Seek<M, W>, M, W>: SelectDsl<KeyColumns<M>>,
    Ordered<Of<Q, C, V>, SeekLevel<M, W>, M, W>: SelectDsl<KeyColumns<M>>,
    Keyed<Order<Of<Q, C, V>, OrderBy<M, W>>, M, W, C, V, Q, X, Conn>: Load<'q, Conn, Q::Item, X>,
    Keyed<Ordered<Of<Q, C, V>, Seek<M, W>, M, W>, M, W, C, V, Q, X, Conn>:
        Load<'q, Conn, Q::Item, X>,
    Keyed<Ordered<Of<Q, C, V>, SeekLevel<M, W>, M, W>, M, W, C, V, Q, X, Conn>:
        Load<'q, Conn, Q::Item, X>,
{
    fn load<'a>(self, statement: Statement<M, W>, conn: &'a mut Conn) -> Loading<'a, X, Q::Item>
    where
        'q: 'a,
    {
        // The set was checked once, before the page's first statement (`walk`).
        match statement {
            // OFFSET reads every row before the page whatever the form: the plain filter.
            Statement::Number { order, limit, offset } => {
                let Among { query, column, values, .. } = self;
                let query =
                    OrderDsl::order(FilterDsl::filter(query, Member::any(column, values)), order);
                Ok(Limit::<_, X, Conn, Offset>::with_offset(query, limit, offset).load_rows(conn))
            }
            Statement::Edge { order, limit } if headed::<_, _, _, M, X, Conn>(&self, limit) => {
                heads_first::<_, _, _, _, W, X, Conn>(self, None, order, limit, conn)
            }
            Statement::Edge { order, limit } => {
                let first = |query: Of<Q, C, V>, order| OrderDsl::order(query, order);
                merged::<_, _, _, _, _, W, X, Conn>(self, order, limit, first, conn)
            }
            Statement::Seek { seek, order, limit }
                if headed::<_, _, _, M, X, Conn>(&self, limit) =>
            {
                heads_first::<_, _, _, _, W, X, Conn>(self, Some(seek), order, limit, conn)
            }
            Statement::Seek { seek, order, limit } => {
                let past = move |query: Of<Q, C, V>, order| {
                    OrderDsl::order(FilterDsl::filter(query, seek.clone()), order)
                };
                merged::<_, _, _, _, _, W, X, Conn>(self, order, limit, past, conn)
            }
            Statement::Level { level, order, limit } => {
                let past = move |query: Of<Q, C, V>, order| {
                    OrderDsl::order(FilterDsl::filter(query, level.clone()), order)
                };
                merged::<_, _, _, _, _, W, X, Conn>(self, order, limit, past, conn)
            }
            // The plain filter, within a window of the order's index (`sql/window.rs`).
            Statement::Probe { seek, end, order, limit } => {
                let Among { query, column, values, .. } = self;
                let member = match <X::Backend as SeekDialect>::WINDOW {
                    Windowing::Subquery => Member::any(column, values),
                    Windowing::ReadFirst => Member::any_unindexed(column, values),
                };
                let window = Window::new(seek, end, C::Table::default());
                let query = FilterDsl::filter(query, member);
                Ok(past::<_, _, _, X, Conn>(query, window, order, limit).load_rows(conn))
            }
            // The row at which the window ends: the table's keys walked in the order's index,
            // as the window's subquery walks them elsewhere, and the query's row fetched by them,
            // as the union's keys are (`sql/members/`).
            Statement::Boundary { seek, offset, order } => {
                let names = key_names::<M>()
                    .ok_or_else(|| unplanned("a window's end for a query that cannot run it"))?;
                let window = Window::new(seek, WindowEnd::Rest, C::Table::default());
                let walk = FilterDsl::filter(C::Table::default(), window);
                let keys =
                    SelectDsl::select(OrderDsl::order(walk, order.again()), KeyColumns::new());
                let keys = WindowRow::new(keys, offset);
                let (query, merge) = (Some(self.query), Merge::All);
                let members =
                    Members::<_, M, W, C, V, Q>::union(query, vec![keys], merge, order, names, 1);
                Ok(members.load_rows(conn))
            }
            // Planned only for a query that unites its tie levels, which a feed does not.
            Statement::Levels { .. } => Err(unplanned("a union of tie levels")),
            // Planned only for an order led by a joined row's keys, which no feed's query joins.
            Statement::GroupKey { .. } => Err(unplanned("a group's key")),
        }
    }
}

/// The statement `build` makes of the query (filtered to the set) and an ORDER BY, with the
/// page's LIMIT, among the set's values, as the backend seeks once per value
/// ([`PerValue`]): one branch per distinct value in a union, or one `LATERAL` over them, merged
/// under `order` and `limit` (`sql/members/`), or SQLite's loop over the `IN (..)` list; the
/// plain `IN (..)` filter for a query that cannot run a union or `LATERAL` (boxed, or selecting
/// more than the model), and for an empty set.
fn merged<'q, 'a, Q, C, V, M, T, W, X, Conn>(
    among: Among<Q, C, V>,
    order: OrderBy<M, W>,
    limit: i64,
    build: impl Fn(Of<Q, C, V>, OrderBy<M, W>) -> T,
    conn: &'a mut Conn,
) -> Loading<'a, X, Q::Item>
where
    'q: 'a,
    X: Connects<Conn>,
    M: SortOrder,
    W: Walk,
    Q: Paginate + Repeat + FilterDsl<Member<C, V>>,
    C: Clone,
    V: Clone + CursorValue,
    T: SelectDsl<KeyColumns<M>>,
    Limit<T, X, Conn>: Load<'q, Conn, Q::Item, X>,
    Members<Limit<T, X, Conn>, M, W, C, V, Q>: Load<'q, Conn, Q::Item, X>,
    Keyed<T, M, W, C, V, Q, X, Conn>: Load<'q, Conn, Q::Item, X>,
{
    let Among { query, column, values, .. } = among;
    let per_value = <X::Backend as SeekDialect>::PER_VALUE;
    let names = key_names::<M>();
    // SQLite's loop over the list seeks once per value itself; a union or `LATERAL` needs a
    // query it can copy and whose rows it can fetch by their keys.
    let united = Q::REPEATS && Q::MODEL_ALONE && !values.is_empty();
    let names = match names {
        Some(names) if united && per_value != PerValue::InLoop => names,
        _ => {
            let member = match per_value {
                PerValue::InLoop => Member::any_rare(column, values),
                PerValue::Union | PerValue::Lateral => Member::any(column, values),
            };
            let query = FilterDsl::filter(query, member);
            return Ok(Limit::<_, X, Conn>::new(build(query, order), limit).load_rows(conn));
        }
    };
    // A copy of the query loads the rows whose keys the seeks found; `IN` matches no NULL, so
    // with a nullable key the seeks return the rows themselves.
    let outer = if <M::Keys as KeyShape>::NULLABLE { None } else { query.again() };
    if per_value == PerValue::Lateral {
        let branch = build(FilterDsl::filter(query, Member::lateral(column)), order.again());
        let branch = Limit::<_, X, Conn>::new(branch, limit);
        let members = Members::lateral(outer, branch, distinct_values(values), order, names, limit);
        return Ok(members.load_rows(conn));
    }
    // One branch per distinct value, padded (`padded`: four sizes per power of two) by
    // branches that read nothing (`LIMIT 0`, the last value bound again: the statement text
    // depends on the count alone). Values the database may hold equal though they differ here (text under a
    // collation, ..) are merged by `UNION`, which keeps their rows once, as `IN (..)` does.
    let (values, merge) = distinct_values(values);
    let (count, last) = (values.len(), values.len() - 1);
    let picks = (0..padded(count)).map(|index| values[index.min(last)].clone()).collect();
    let branches =
        branches(query, picks)?.into_iter().enumerate().map(|(index, (query, value))| {
            let branch = build(
                FilterDsl::filter(query, Member::value(column.clone(), value)),
                order.again(),
            );
            (branch, if index < count { limit } else { 0 })
        });
    if outer.is_some() {
        let keys = branches.map(|(branch, limit)| {
            Limit::<_, X, Conn>::new(SelectDsl::select(branch, KeyColumns::new()), limit)
        });
        let members = Members::union(outer, keys.collect(), merge, order, names, limit);
        return Ok(members.load_rows(conn));
    }
    let rows = branches.map(|(branch, limit)| Limit::<_, X, Conn>::new(branch, limit));
    Ok(Members::union(None, rows.collect(), merge, order, names, limit).load_rows(conn))
}

/// The values a union or `LATERAL` page seeks, without their repeats, and how its seeks' rows
/// merge: values written alike when equal (integers, UUIDs, ..) each find rows no other value
/// finds ([`Merge::All`]); others may find rows another finds, which the statement keeps once
/// ([`Merge::Distinct`], `sql/members/`).
fn distinct_values<V: CursorValue>(values: Vec<V>) -> (Vec<V>, Merge) {
    let merge = if V::EXACT_EQ { Merge::All } else { Merge::Distinct };
    (distinct(values), merge)
}

/// The output columns of the order's keys, one per key, by which a union or `LATERAL` page
/// orders what its seeks found and fetches the query's rows by them; `None` where the query's
/// selection does not name them so.
fn key_names<M: SortOrder>() -> Option<&'static [&'static str]> {
    M::SELECTED_NAMES.filter(|names| names.len() == <M::Keys as KeyShape>::LEN)
}

/// Whether a page among the set reads each value's first row first ([`heads_first`]): on
/// PostgreSQL, for a set of at least the statement's `limit` values (with fewer, every value
/// with a row is sought anyway), a query the seeks can copy and fetch rows of by their keys, and
/// keys that are never NULL (the bound is a comparison of the leading key).
fn headed<Q, C, V, M, X, Conn>(among: &Among<Q, C, V>, limit: i64) -> bool
where
    X: Connects<Conn>,
    M: SortOrder,
    Q: Paginate + Repeat,
{
    <X::Backend as SeekDialect>::PER_VALUE == PerValue::Lateral
        && Q::REPEATS
        && Q::MODEL_ALONE
        && !<M::Keys as KeyShape>::NULLABLE
        && key_names::<M>().is_some()
        && i64::try_from(among.values.len()).is_ok_and(|len| len >= limit)
}

/// PostgreSQL's page among the set that reads each value's first row past `seek` first, then
/// seeks again only the values whose first rows can enter the page, each held to the last of
/// them (`sql/members/lateral.rs`): one statement of three branches on copies of the query.
fn heads_first<'q, 'a, Q, C, V, M, W, X, Conn>(
    among: Among<Q, C, V>,
    seek: Option<Seek<M, W>>,
    order: OrderBy<M, W>,
    limit: i64,
    conn: &'a mut Conn,
) -> Loading<'a, X, Q::Item>
where
    'q: 'a,
    X: Connects<Conn>,
    M: SortOrder,
    M::Keys: Clone,
    W: Walk,
    Q: Paginate + Repeat + FilterDsl<Member<C, V>>,
    C: Column<Table: Default> + Clone,
    V: CursorValue,
    Of<Q, C, V>: FilterDsl<Window<M, W, C::Table>>,
    Filter<Of<Q, C, V>, Window<M, W, C::Table>>: OrderDsl<OrderBy<M, W>>,
    Members<Past<Of<Q, C, V>, Window<M, W, C::Table>, M, W, X, Conn>, M, W, C, V, Q>:
        Load<'q, Conn, Q::Item, X>,
{
    let Among { query, column, values, .. } = among;
    let unbuilt = || unplanned("a feed's first rows");
    let names = key_names::<M>().ok_or_else(unbuilt)?;
    let leading = names.first().copied().ok_or_else(unbuilt)?;
    // The query itself, whose rows the page fetches by the keys the seeks found, and the
    // branches: each value's first row, the seeks held to the last first row that can enter
    // the page, and the seeks of every value where fewer have a row.
    let outer = query.again().ok_or_else(unbuilt)?;
    let parts =
        vec![(WindowEnd::Rest, 1), (WindowEnd::Top { leading }, limit), (WindowEnd::Rest, limit)];
    let built: Vec<_> = branches(query, parts)?
        .into_iter()
        .map(|(query, (end, rows))| {
            let query = FilterDsl::filter(query, Member::lateral(column.clone()));
            let window = Window::new(seek.clone(), end, C::Table::default());
            past::<_, _, _, X, Conn>(query, window, order.again(), rows)
        })
        .collect();
    let built = <[_; 3]>::try_from(built).map_err(|_| unbuilt())?;
    let members = Members::headed(outer, built, distinct_values(values), order, names, limit);
    Ok(members.load_rows(conn))
}

/// A page among a subquery's values: the values first (`AmongQuery::bounded_rows`), then the page
/// among them as among a list, on either driver.
async fn fetch_among<'q, O, Q, C, S, Conn, X>(
    query: AmongQuery<Q, C, S>,
    position: Position<O::Cursor>,
    ask: Ask,
    conn: &mut Conn,
) -> Result<Fetched<O, Q::Item>, Error>
where
    X: Connects<Conn>,
    O: SortOrder<Row = Q::Model>,
    Q: Paginate,
    S: Query<SqlType: SetType> + LimitDsl + Clone,
    dsl::Limit<S>: Load<'q, Conn, ValueOf<S>, X>,
    Among<Q, C, ValueOf<S>>: Walks<'q, O, Conn, X> + Paginate<Item = Q::Item, Model = Q::Model>,
{
    let values = query.bounded_rows().load_rows(conn).await;
    let among = query.among(values)?;
    fetch::<O, _, Conn, X>(among, position, ask, conn).await
}

impl<'q, O, Q, C, S, Conn> Drive<'q, O, AmongQuery<Q, C, S>, Conn> for Blocking
where
    Conn: BlockingConnection,
    O: SortOrder<Row = Q::Model>,
    Q: Paginate,
    AmongQuery<Q, C, S>: Paginate<Item = Q::Item, Model = Q::Model>,
    S: Query<SqlType: SetType> + LimitDsl + Clone,
    dsl::Limit<S>: Load<'q, Conn, ValueOf<S>, Blocking>,
    Among<Q, C, ValueOf<S>>:
        Walks<'q, O, Conn, Blocking> + Paginate<Item = Q::Item, Model = Q::Model>,
{
    fn page<'c>(
        query: AmongQuery<Q, C, S>,
        position: Position<O::Cursor>,
        ask: Ask,
        conn: &'c mut Conn,
    ) -> Ready<Result<Fetched<O, Q::Item>, Error>>
    where
        'q: 'c,
        AmongQuery<Q, C, S>: 'c,
    {
        let page = fetch_among::<O, Q, C, S, Conn, Blocking>(query, position, ask, conn);
        ready(complete(page))
    }
}

#[cfg(feature = "diesel-async")]
impl<'q, O, Q, C, S, Conn> Drive<'q, O, AmongQuery<Q, C, S>, Conn> for Awaited
where
    Conn: AsyncConnection,
    O: SortOrder<Row = Q::Model>,
    Q: Paginate + Send,
    Q::Item: Send,
    C: Send,
    AmongQuery<Q, C, S>: Paginate<Item = Q::Item, Model = Q::Model>,
    S: Query<SqlType: SetType> + LimitDsl + Clone + Send,
    ValueOf<S>: Send + 'static,
    dsl::Limit<S>: Load<'q, Conn, ValueOf<S>, Awaited>,
    Among<Q, C, ValueOf<S>>:
        Walks<'q, O, Conn, Awaited> + Paginate<Item = Q::Item, Model = Q::Model> + Send,
{
    fn page<'c>(
        query: AmongQuery<Q, C, S>,
        position: Position<O::Cursor>,
        ask: Ask,
        conn: &'c mut Conn,
    ) -> <Awaited as Exec>::Page<'c, Result<Fetched<O, Q::Item>, Error>>
    where
        'q: 'c,
        AmongQuery<Q, C, S>: 'c,
    {
        Box::pin(fetch_among::<O, Q, C, S, Conn, Awaited>(query, position, ask, conn))
    }
}
