//! The examples' connection pools: diesel-async's managers under deadpool or bb8, and how a
//! pooled SQLite connection is set up.

use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

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
#[derive(Debug, Clone, Copy)]
pub struct PoolOptions {
    /// The most connections open at once; a request past them waits for one to come back.
    pub max_size: usize,
    /// deadpool or bb8.
    pub kind: PoolKind,
}

impl Default for PoolOptions {
    /// Eight deadpool connections: enough for a demonstration, and below any server's limit.
    fn default() -> Self {
        PoolOptions { max_size: 8, kind: PoolKind::Deadpool }
    }
}

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

/// No connection could be had: the database is unreachable, refused the login, or the pool
/// could not be built. The message says which.
#[derive(Debug)]
pub struct PoolError(pub String);

impl std::fmt::Display for PoolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no database connection: {}", self.0)
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
            return Err(PoolError(
                "a pool of 0 connections serves nothing: give a size of 1 or more".into(),
            ));
        }
        let manager = AsyncDieselConnectionManager::new_with_config(url, config);
        match options.kind {
            PoolKind::Deadpool => deadpool::Pool::builder(manager)
                .max_size(options.max_size)
                .build()
                .map(Pool::Deadpool)
                .map_err(|err| PoolError(err.to_string())),
            PoolKind::Bb8 => {
                let max_size = u32::try_from(options.max_size).map_err(|_| {
                    PoolError(format!("pool size {} is too large", options.max_size))
                })?;
                let pool = bb8::Pool::builder().max_size(max_size).build(manager).await;
                pool.map(Pool::Bb8).map_err(|err| PoolError(err.to_string()))
            }
        }
    }

    /// A connection, waiting for one when all are in use.
    pub async fn get(&self) -> Result<Pooled<'_, C>, PoolError> {
        match self {
            Pool::Deadpool(pool) => {
                pool.get().await.map(Pooled::Deadpool).map_err(|err| PoolError(err.to_string()))
            }
            Pool::Bb8(pool) => {
                pool.get().await.map(Pooled::Bb8).map_err(|err| PoolError(err.to_string()))
            }
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
