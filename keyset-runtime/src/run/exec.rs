//! [`Exec`]: what kind of future a page's work is on each driver, and how such futures combine;
//! [`Connects`]: which backend a driver reaches through a connection; [`Load`]: a statement whose
//! rows a driver can load there.

use std::future::Future;

use diesel::QueryResult;

use crate::sql::{Limited, NoOffset, SeekDialect};

/// How a page's statements reach the database: [`Blocking`] or [`Awaited`]. The work of a page
/// is a future either way ([`Page`](Self::Page)); this says what kind, and how such futures
/// combine.
#[doc(hidden)]
pub trait Exec: Sized + 'static {
    /// Work that yields a `T`: ready when made, or to be awaited.
    type Page<'a, T>: Future<Output = T>
    where
        T: 'a;
    /// `value`, as work already done.
    fn ready<'a, T: Send + 'a>(value: T) -> Self::Page<'a, T>;
    /// `page`, its result turned by `f`.
    fn map<'a, T: 'a, U: 'a>(
        page: Self::Page<'a, T>,
        f: impl FnOnce(T) -> U + Send + 'a,
    ) -> Self::Page<'a, U>;
    /// Every page's result, in the order given: pages of several connections, done together
    /// where they can be.
    fn join<'a, T: Send + 'a>(pages: Vec<Self::Page<'a, T>>) -> Self::Page<'a, Vec<T>>;
}

/// A connection `X` runs statements on, and the backend it talks to.
#[doc(hidden)]
pub trait Connects<Conn>: Exec {
    /// The backend `Conn` talks to.
    type Backend: SeekDialect;
    /// Makes `conn` forget its cached prepared statements, after one went stale (`stale.rs`).
    fn forget_statements(conn: &mut Conn);
}

/// A statement whose rows `X` can load on `Conn`: implemented for every statement Diesel (or
/// diesel-async) can load as `Item` rows there.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a page's statement cannot be loaded on `{Conn}` this way",
    label = "`load_page` takes a blocking Diesel connection, `load_page_async` a diesel-async one",
    note = "on a diesel-async connection (`AsyncPgConnection`, `AsyncMysqlConnection`, `SyncConnectionWrapper<..>`, or a pooled one as `&mut *pooled`), call `.load_page_async(conn).await`; on a blocking one (`SqliteConnection`, `PgConnection`, `MysqlConnection`), call `.load_page(conn)`",
    note = "the query must load its selection (`Model::as_select()`) on `{Conn}`'s backend"
)]
pub trait Load<'q, Conn, Item, X: Exec>: Sized {
    /// The statement's rows.
    fn load_rows<'a>(self, conn: &'a mut Conn) -> X::Page<'a, QueryResult<Vec<Item>>>
    where
        'q: 'a;
}

/// A statement with the page's `LIMIT` (and `OFFSET`), as the backend `X` reaches on `Conn`
/// writes it.
pub(super) type Limit<S, X, Conn, O = NoOffset> =
    Limited<S, <<X as Connects<Conn>>::Backend as SeekDialect>::LimitStyle, O>;
