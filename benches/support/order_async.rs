//! The orders bench's pages through the async path (feature `async`, which `postgres` and `mysql`
//! bring): `paginate` + `load_page_async` on one diesel-async connection per backend,
//! `AsyncPgConnection`, `AsyncMysqlConnection`, and for SQLite, which has no async connection of
//! its own, the sync one in diesel-async's `SyncConnectionWrapper`. Each page is awaited with one
//! `block_on` of a current-thread runtime, as the async bench times its single connection, so a
//! page's time is the driver's and the runtime's on top of the statements'.
//!
//! Without the feature, every order's [`Pages`] is `None` and the bench times the sync path alone.

use keyset_runtime::{Page, PageRequest};

use crate::schema::{Newest, NewestOldId, Published};

/// One order's pages through the async path, on its backend's connection (shared by the
/// backend's orders, hence `&self`).
pub trait AsyncPages<M> {
    /// The page: `paginate(request)` then `load_page_async`, awaited with one `block_on`.
    fn page(&self, request: &PageRequest) -> Page<M>;

    /// The page, and the statements it ran, as diesel-async's instrumentation shows them (as
    /// [`recorded`](crate::order_pages::recorded) shows the sync path's).
    fn recorded(&self, request: &PageRequest) -> (Page<M>, Vec<String>);
}

/// An order's pages through the async path, where the build has one.
pub type Pages<M> = Option<Box<dyn AsyncPages<M>>>;

/// A backend's three orders through the async path.
pub struct Orders {
    pub newest: Pages<Newest>,
    pub mixed: Pages<NewestOldId>,
    pub published: Pages<Published>,
}

/// SQLite's orders through `SyncConnectionWrapper`, on a second connection to the bench's file;
/// none without the `async` feature.
pub fn sqlite() -> Orders {
    #[cfg(feature = "async")]
    {
        use crate::order_pages::sqlite;
        use diesel_async::sync_connection_wrapper::SyncConnectionWrapper;
        let runtime = driver::runtime();
        // Inside the runtime, so that the wrapper hands its statements to this runtime's
        // blocking threads rather than to a runtime of its own.
        let conn = {
            let _inside = runtime.enter();
            SyncConnectionWrapper::<diesel::SqliteConnection>::new(crate::order_seed::sqlite())
        };
        let shared = driver::shared(runtime, conn);
        Orders {
            newest: driver::pages(&shared, sqlite::newest::all),
            mixed: driver::pages(&shared, sqlite::mixed::all),
            published: driver::pages(&shared, sqlite::published::all),
        }
    }
    #[cfg(not(feature = "async"))]
    Orders { newest: None, mixed: None, published: None }
}

/// PostgreSQL's orders on an `AsyncPgConnection` to `url`.
#[cfg(feature = "postgres")]
pub fn postgres(url: &str) -> Orders {
    use crate::order_pages::postgres;
    let shared = driver::establish::<diesel_async::AsyncPgConnection>("PostgreSQL", url);
    Orders {
        newest: driver::pages(&shared, postgres::newest::all),
        mixed: driver::pages(&shared, postgres::mixed::all),
        published: driver::pages(&shared, postgres::published::all),
    }
}

/// MariaDB's orders on an `AsyncMysqlConnection` to `url`.
#[cfg(feature = "mysql")]
pub fn mysql(url: &str) -> Orders {
    use crate::order_pages::mysql;
    let shared = driver::establish::<diesel_async::AsyncMysqlConnection>("MariaDB", url);
    Orders {
        newest: driver::pages(&shared, mysql::newest::all),
        mixed: driver::pages(&shared, mysql::mixed::all),
        published: driver::pages(&shared, mysql::published::all),
    }
}

#[cfg(feature = "async")]
mod driver {
    use std::cell::RefCell;
    use std::rc::Rc;
    use std::sync::{Arc, Mutex};

    use diesel::connection::Instrumentation;
    use diesel_async::AsyncConnection;
    use keyset_runtime::{AsyncPageQuery, Page, PageRequest};
    use tokio::runtime::Runtime;

    use super::{AsyncPages, Pages};
    use crate::order_pages::recorder;

    /// A backend's diesel-async connection and the runtime its pages are awaited on.
    pub struct AsyncConn<A> {
        runtime: Runtime,
        conn: A,
    }

    /// The connection, shared by the backend's orders.
    pub type Shared<A> = Rc<RefCell<AsyncConn<A>>>;

    /// A current-thread runtime, as the async bench's single connection runs on.
    pub fn runtime() -> Runtime {
        tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime")
    }

    /// `conn`, awaited on `runtime`, for a backend's orders to share.
    pub fn shared<A>(runtime: Runtime, conn: A) -> Shared<A> {
        Rc::new(RefCell::new(AsyncConn { runtime, conn }))
    }

    /// A connection of type `A` to the server `name` at `url`.
    #[cfg(any(feature = "postgres", feature = "mysql"))]
    pub fn establish<A: AsyncConnection>(name: &str, url: &str) -> Shared<A> {
        let runtime = runtime();
        let conn = runtime
            .block_on(A::establish(url))
            .unwrap_or_else(|err| panic!("{name} at {url} cannot be reached: {err}"));
        shared(runtime, conn)
    }

    /// An order's pages: the query `all()` paged on the shared connection.
    pub fn pages<A, Q>(shared: &Shared<A>, all: fn() -> Q) -> Pages<Q::Item>
    where
        A: AsyncConnection + 'static,
        Q: AsyncPageQuery<'static, A> + 'static,
        Q::Item: Send + 'static,
    {
        Some(Box::new(OrderPages { shared: Rc::clone(shared), all }))
    }

    /// One order's query, paged on its backend's shared connection.
    struct OrderPages<A, Q> {
        shared: Shared<A>,
        all: fn() -> Q,
    }

    impl<A, Q> AsyncPages<Q::Item> for OrderPages<A, Q>
    where
        A: AsyncConnection + 'static,
        Q: AsyncPageQuery<'static, A> + 'static,
        Q::Item: Send,
    {
        fn page(&self, request: &PageRequest) -> Page<Q::Item> {
            let paginated = (self.all)().paginate(request).expect("a valid request");
            let AsyncConn { runtime, conn } = &mut *self.shared.borrow_mut();
            runtime.block_on(paginated.load_page_async(conn)).expect("the page loads")
        }

        fn recorded(&self, request: &PageRequest) -> (Page<Q::Item>, Vec<String>) {
            let log = Arc::new(Mutex::new(Vec::new()));
            self.shared.borrow_mut().conn.set_instrumentation(recorder(&log));
            let page = self.page(request);
            self.shared.borrow_mut().conn.set_instrumentation(None::<Box<dyn Instrumentation>>);
            let statements = log.lock().expect("the statement log").clone();
            (page, statements)
        }
    }
}
