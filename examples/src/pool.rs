//! The examples' connection pools: diesel-async's managers under deadpool or bb8, and how a
//! pooled SQLite connection is set up.

use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use diesel::result::ConnectionError;
use diesel::SqliteConnection;
use diesel_async::pooled_connection::{bb8, deadpool, AsyncDieselConnectionManager, ManagerConfig};
use diesel_async::sync_connection_wrapper::SyncConnectionWrapper;
use diesel_async::{AsyncConnection, SimpleAsyncConnection};

/// SQLite as diesel-async runs it: the sync connection on a blocking thread of tokio's.
pub type SqliteConn = SyncConnectionWrapper<SqliteConnection>;

/// Which pool crate holds the connections. The server is written once against [`Pool`]; both
/// are here so that the examples' tests run the same server on each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PoolKind {
    /// deadpool (diesel-async's `deadpool` feature): the examples' default.
    #[default]
    Deadpool,
    /// bb8 (diesel-async's `bb8` feature).
    Bb8,
}

/// How a server's pool is built.
///
/// No request waits without bound: one that finds every connection in use waits at most
/// `wait_timeout` for one to come back, and opening a connection may take at most
/// `create_timeout` (deadpool's health check of a returned connection, too); past either, the
/// request gets a [`PoolError`] that [`is_busy`](PoolError::is_busy), which the services answer
/// with `503` and `Retry-After`. Without the bounds, a table locked for 15 s queued every request
/// for 15 s, past any client's patience.
#[derive(Debug, Clone, Copy)]
pub struct PoolOptions {
    /// The most connections open at once; a request past them waits for one to come back.
    pub max_size: usize,
    /// deadpool or bb8.
    pub kind: PoolKind,
    /// How long a request waits for a connection when all are in use (bb8: for a connection at
    /// all, opening one included).
    pub wait_timeout: Duration,
    /// How long opening a connection may take (deadpool; bb8's is within its wait).
    pub create_timeout: Duration,
}

impl PoolOptions {
    /// The default wait for a free connection: short, so that a client hears `503` well
    /// before its own timeout (commonly 5 s or more) gives up on the request.
    pub const WAIT_TIMEOUT: Duration = Duration::from_secs(2);
    /// The default bound on opening a connection: a database that takes longer is as good as
    /// down for an interactive request.
    pub const CREATE_TIMEOUT: Duration = Duration::from_secs(5);

    /// The defaults, with the timeouts the environment sets: `POOL_WAIT_TIMEOUT_MS` and
    /// `POOL_CREATE_TIMEOUT_MS`, whole milliseconds (the example binaries read them).
    pub fn from_env() -> Result<PoolOptions, ConfigError> {
        PoolOptions::from_vars(|name| std::env::var(name).ok())
    }

    /// [`from_env`](Self::from_env) with the variables looked up by `var` instead of in the
    /// process's environment (what tests call). An unset variable keeps its default; a set one
    /// must be a whole number of milliseconds, `0` included (never wait).
    ///
    /// ```
    /// use std::time::Duration;
    /// use keyset_examples::pool::PoolOptions;
    ///
    /// let options = PoolOptions::from_vars(|name| {
    ///     (name == "POOL_WAIT_TIMEOUT_MS").then(|| "250".to_owned())
    /// })
    /// .unwrap();
    /// assert_eq!(options.wait_timeout, Duration::from_millis(250));
    /// assert_eq!(options.create_timeout, PoolOptions::CREATE_TIMEOUT);
    /// let bad = PoolOptions::from_vars(|_| Some("2s".to_owned())).unwrap_err();
    /// assert!(bad.to_string().contains("whole number of milliseconds"));
    /// ```
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<PoolOptions, ConfigError> {
        let millis = |name: &'static str, default: Duration| match var(name) {
            None => Ok(default),
            Some(value) => match value.trim().parse::<u64>() {
                Ok(ms) => Ok(Duration::from_millis(ms)),
                Err(_) => Err(ConfigError { var: name, value }),
            },
        };
        Ok(PoolOptions {
            wait_timeout: millis("POOL_WAIT_TIMEOUT_MS", Self::WAIT_TIMEOUT)?,
            create_timeout: millis("POOL_CREATE_TIMEOUT_MS", Self::CREATE_TIMEOUT)?,
            ..PoolOptions::default()
        })
    }
}

impl Default for PoolOptions {
    /// Eight deadpool connections, enough for a demonstration and below any server's limit,
    /// with the default timeouts ([`WAIT_TIMEOUT`](Self::WAIT_TIMEOUT),
    /// [`CREATE_TIMEOUT`](Self::CREATE_TIMEOUT)).
    fn default() -> Self {
        PoolOptions {
            max_size: 8,
            kind: PoolKind::Deadpool,
            wait_timeout: Self::WAIT_TIMEOUT,
            create_timeout: Self::CREATE_TIMEOUT,
        }
    }
}

/// An environment variable of [`PoolOptions::from_env`] that is not a number of milliseconds.
pub struct ConfigError {
    var: &'static str,
    value: String,
}

/// The message itself: what a `main` returning the error prints.
impl std::fmt::Debug for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}={:?}: give a whole number of milliseconds, e.g. {}=2000",
            self.var, self.value, self.var
        )
    }
}

impl std::error::Error for ConfigError {}

/// What both pool crates need of diesel-async's manager of `C`: diesel-async implements it for
/// every connection it has (the pools' health check is its `SELECT 1`).
pub trait Manager<C>:
    ::deadpool::managed::Manager<Type = C, Error = diesel_async::pooled_connection::PoolError>
    + ::bb8::ManageConnection<Connection = C, Error = diesel_async::pooled_connection::PoolError>
{
}

impl<C, M> Manager<C> for M where
    M: ::deadpool::managed::Manager<Type = C, Error = diesel_async::pooled_connection::PoolError>
        + ::bb8::ManageConnection<Connection = C, Error = diesel_async::pooled_connection::PoolError>
{
}

/// A pool of diesel-async connections `C`, deadpool's or bb8's: the handlers take a connection
/// from it with [`get`](Self::get) and never see which.
pub enum Pool<C>
where
    AsyncDieselConnectionManager<C>: Manager<C>,
{
    /// A deadpool pool.
    Deadpool(deadpool::Pool<C>),
    /// A bb8 pool.
    Bb8(bb8::Pool<C>),
}

/// A connection taken from a [`Pool`]; it goes back when dropped. `&mut *conn` is the `&mut C`
/// that diesel-async's `RunQueryDsl` and keyset's `load_page_async` take.
pub enum Pooled<'pool, C>
where
    AsyncDieselConnectionManager<C>: Manager<C>,
{
    /// From deadpool.
    Deadpool(deadpool::Object<C>),
    /// From bb8.
    Bb8(bb8::PooledConnection<'pool, C>),
}

/// No connection could be had: none came free within the wait timeout, or none could be opened
/// in time ([`is_busy`](Self::is_busy): try again shortly), or the database is unreachable,
/// refused the login, or the pool could not be built. The message says which.
#[derive(Debug)]
pub struct PoolError {
    message: String,
    busy: bool,
}

impl PoolError {
    fn new(message: impl Into<String>) -> PoolError {
        PoolError { message: message.into(), busy: false }
    }

    /// Whether a timeout ran out: every connection stayed in use for the whole wait, or opening
    /// one took too long. The database is overloaded or blocked, not broken: a service answers
    /// `503 Service Unavailable` with `Retry-After`, and the client retries.
    pub fn is_busy(&self) -> bool {
        self.busy
    }
}

impl std::fmt::Display for PoolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no database connection: {}", self.message)
    }
}

impl std::error::Error for PoolError {}

impl<C> Pool<C>
where
    C: AsyncConnection + 'static,
    AsyncDieselConnectionManager<C>: Manager<C>,
{
    /// A pool of `options.max_size` connections to `url`, each set up by `config` when it is
    /// opened. No connection is opened yet (bb8 opens its idle minimum, zero, too). A size of 0
    /// is an error (bb8 would panic on it, deadpool would wait for ever).
    pub async fn new(
        url: &str,
        config: ManagerConfig<C>,
        options: PoolOptions,
    ) -> Result<Pool<C>, PoolError> {
        if options.max_size == 0 {
            return Err(PoolError::new(
                "a pool of 0 connections serves nothing: give a size of 1 or more",
            ));
        }
        let manager = AsyncDieselConnectionManager::new_with_config(url, config);
        match options.kind {
            // deadpool times nothing without a runtime (and refuses timeouts without one).
            PoolKind::Deadpool => deadpool::Pool::builder(manager)
                .max_size(options.max_size)
                .runtime(::deadpool::Runtime::Tokio1)
                .wait_timeout(Some(options.wait_timeout))
                .create_timeout(Some(options.create_timeout))
                .recycle_timeout(Some(options.create_timeout))
                .build()
                .map(Pool::Deadpool)
                .map_err(|err| PoolError::new(err.to_string())),
            // bb8's one timeout bounds the whole `get` (its default is 30 s): the wait.
            PoolKind::Bb8 => {
                let max_size = u32::try_from(options.max_size).map_err(|_| {
                    PoolError::new(format!("pool size {} is too large", options.max_size))
                })?;
                let pool = bb8::Pool::builder()
                    .max_size(max_size)
                    .connection_timeout(options.wait_timeout)
                    .build(manager)
                    .await;
                pool.map(Pool::Bb8).map_err(|err| PoolError::new(err.to_string()))
            }
        }
    }

    /// A connection, waiting for one when all are in use, up to the pool's wait timeout
    /// ([`PoolOptions::wait_timeout`]; then a [`PoolError`] that [`is_busy`](PoolError::is_busy)).
    pub async fn get(&self) -> Result<Pooled<'_, C>, PoolError> {
        match self {
            Pool::Deadpool(pool) => pool.get().await.map(Pooled::Deadpool).map_err(|err| {
                let busy = matches!(err, ::deadpool::managed::PoolError::Timeout(_));
                PoolError { message: err.to_string(), busy }
            }),
            Pool::Bb8(pool) => pool.get().await.map(Pooled::Bb8).map_err(|err| {
                let busy = matches!(err, ::bb8::RunError::TimedOut);
                PoolError { message: err.to_string(), busy }
            }),
        }
    }
}

impl<C> Deref for Pooled<'_, C>
where
    AsyncDieselConnectionManager<C>: Manager<C>,
{
    type Target = C;

    fn deref(&self) -> &C {
        match self {
            Pooled::Deadpool(conn) => conn,
            Pooled::Bb8(conn) => conn,
        }
    }
}

impl<C> DerefMut for Pooled<'_, C>
where
    AsyncDieselConnectionManager<C>: Manager<C>,
{
    fn deref_mut(&mut self) -> &mut C {
        match self {
            Pooled::Deadpool(conn) => conn,
            Pooled::Bb8(conn) => conn,
        }
    }
}

/// How each pooled SQLite connection starts: `busy_timeout` first, then WAL.
///
/// A pool needs every connection to see the same database, so not `:memory:` (each connection
/// would have its own empty one). A shared-cache memory URI (`file:x?mode=memory&cache=shared`)
/// is one database, but shared cache locks per table and answers a reader that meets a writer
/// with `SQLITE_LOCKED` at once, which no busy timeout waits out. A file in WAL mode lets
/// readers run beside the one writer (each statement reads a snapshot), and the busy timeout
/// makes a second writer wait up to 5 s instead of failing with "database is locked".
/// `journal_mode` is a property of the file; `busy_timeout` is per connection, so both run on
/// every new connection (the timeout first, as switching to WAL takes a lock itself).
/// `synchronous = NORMAL` is SQLite's advice for WAL: a commit no longer waits for the disk
/// (a power cut may lose the last commits, never corrupt the file).
pub fn sqlite_setup() -> ManagerConfig<SqliteConn> {
    let mut config = ManagerConfig::default();
    config.custom_setup = Box::new(|url| {
        let url = url.to_owned();
        Box::pin(async move {
            let mut conn = SqliteConn::establish(&url).await?;
            conn.batch_execute("PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;")
                .await
                .map_err(ConnectionError::CouldntSetupConfiguration)?;
            Ok(conn)
        })
    });
    config
}

/// A SQLite file in the system's temporary directory, removed (with its WAL files) when dropped:
/// the examples' default database, one per server, so that tests running at once never share.
#[derive(Debug)]
pub struct TempFile(PathBuf);

impl TempFile {
    /// A fresh path, unique in this process and named after it.
    pub fn new() -> TempFile {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name = format!(
            "keyset-examples-{}-{}.sqlite3",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let file = TempFile(std::env::temp_dir().join(name));
        file.remove();
        file
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.0
    }

    fn remove(&self) {
        for suffix in ["", "-wal", "-shm"] {
            let mut path = self.0.clone().into_os_string();
            path.push(suffix);
            let _ = std::fs::remove_file(path);
        }
    }
}

impl Default for TempFile {
    fn default() -> Self {
        TempFile::new()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        self.remove();
    }
}
