//! The async path on diesel-async, on the 1,000,000-row table of the depth bench (PostgreSQL and
//! MariaDB, features `postgres` / `mysql`; the server must answer, or the bench fails):
//!
//! 1. at the deepest cursor, keyset's page through the public API (`paginate` +
//!    `load_page_async`, tokens included) beside the same page written by hand with
//!    diesel-async, in the shape that seeks best on the engine (a typed row value on PostgreSQL,
//!    the OR expansion on MariaDB), timed interleaved on one connection;
//! 2. pages per second with 1, 4 and 16 concurrent tasks sharing a deadpool pool of 4
//!    connections on a two-thread runtime, API against hand-written: seven rounds of one second
//!    each, taken in turn, and the median round of each.
//!
//! ```sh
//! cargo bench -p keyset-benches --features postgres,mysql --bench asynchronous
//! ```
//!
//! Prints the medians and writes `async.csv` and `async-ratios.csv` into `KEYSET_BENCH_OUT`
//! (default `<target>/keyset-bench/`), and `async.md` into `<target>/keyset-bench/`.

#[cfg(any(feature = "postgres", feature = "mysql"))]
mod bench {
    use std::future::Future;
    use std::pin::Pin;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use diesel_async::pooled_connection::deadpool::Pool;
    use diesel_async::pooled_connection::AsyncDieselConnectionManager;
    use diesel_async::{AsyncConnection, RunQueryDsl};
    use keyset_benches::measure::{self, Ratios, Target};
    use keyset_benches::pages::{self, PAGE};
    use keyset_benches::schema::{Post, PostCursor};
    use keyset_benches::seed;
    use keyset_runtime::__testing::token;
    use keyset_runtime::Direction;
    use keyset_runtime::{Keyset, PageRequest, Paginate};

    /// A page on connection `C`: the API's, or the hand-written one.
    type PageFn<C> =
        for<'c> fn(&'c mut C, &'c PostCursor) -> Pin<Box<dyn Future<Output = usize> + Send + 'c>>;

    /// One backend: its name, the pages, and how to reach it.
    pub struct Backend<C> {
        pub name: &'static str,
        pub url: String,
        /// Keyset through the public API, from the cursor's token.
        pub api: PageFn<C>,
        /// The same page by hand, with diesel-async.
        pub hand: PageFn<C>,
        /// The deepest cursor (from the sync seeding connection).
        pub deepest: PostCursor,
    }

    /// The token of `cursor`, as a client sends it back.
    fn token_of(cursor: &PostCursor) -> String {
        token::encode(Post::FINGERPRINT, Direction::After, cursor).expect("a token")
    }

    #[cfg(feature = "postgres")]
    pub fn postgres() -> Backend<diesel_async::AsyncPgConnection> {
        let url = keyset_benches::database_url("PG_DATABASE_URL", keyset_benches::POSTGRES_URL);
        let mut sync = seed::postgres(&url);
        let deepest = pages::postgres::cursor_at(&mut sync, seed::rows() - 30);
        Backend {
            name: "PostgreSQL",
            url,
            api: |conn, cursor| {
                Box::pin(async move {
                    let request = PageRequest::after(token_of(cursor), PAGE);
                    let page = pages::postgres::all().paginate(&request).unwrap();
                    page.load_page_async(conn).await.expect("the page loads").items.len()
                })
            },
            hand: |conn, cursor| {
                Box::pin(async move {
                    let rows: Vec<Post> =
                        pages::row_value_query(cursor).load(conn).await.expect("the page loads");
                    rows.len()
                })
            },
            deepest,
        }
    }

    #[cfg(feature = "mysql")]
    pub fn mysql() -> Backend<diesel_async::AsyncMysqlConnection> {
        let url = keyset_benches::database_url("MYSQL_DATABASE_URL", keyset_benches::MYSQL_URL);
        let mut sync = seed::mysql(&url);
        let deepest = pages::mysql::cursor_at(&mut sync, seed::rows() - 30);
        Backend {
            name: "MariaDB",
            url,
            api: |conn, cursor| {
                Box::pin(async move {
                    let request = PageRequest::after(token_of(cursor), PAGE);
                    let page = pages::mysql::all().paginate(&request).unwrap();
                    page.load_page_async(conn).await.expect("the page loads").items.len()
                })
            },
            hand: |conn, cursor| {
                Box::pin(async move {
                    let query = pages::mysql::or_bound_query(cursor);
                    let rows: Vec<Post> = query.load(conn).await.expect("the page loads");
                    rows.len()
                })
            },
            deepest,
        }
    }

    /// Everything measured in this run.
    #[derive(Default)]
    pub struct Results {
        /// `backend,measure,api,hand` rows.
        pub csv: String,
        pub markdown: String,
        pub ratios: Ratios,
    }

    /// Both measurements on one backend.
    pub fn run<C>(backend: Backend<C>, quick: bool, results: &mut Results)
    where
        C: AsyncConnection + diesel_async::pooled_connection::PoolableConnection + 'static,
        AsyncDieselConnectionManager<C>: deadpool::managed::Manager<Type = C>,
    {
        let name = backend.name;
        let latency = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let mut conn = latency.block_on(C::establish(&backend.url)).expect("the server answers");
        let (api, hand, deepest) = (backend.api, backend.hand, backend.deepest.clone());
        // The API returns the page; the hand-written query also the probe row.
        assert_eq!(latency.block_on(api(&mut conn, &deepest)), PAGE as usize);
        assert_eq!(latency.block_on(hand(&mut conn, &deepest)), pages::FETCH as usize);
        let total = Duration::from_secs(if quick { 1 } else { 10 });
        let medians =
            measure::interleaved(&["async API page", "async hand-written page"], total, |i| {
                let page = if i == 0 { api } else { hand };
                std::hint::black_box(latency.block_on(page(&mut conn, &deepest)));
            });
        results.ratios.push(
            name,
            "async API page / async hand-written page (depth 999,970)",
            medians[0] / medians[1],
            Target::AtMost(1.05),
        );
        results.csv += &format!("{name},page_us,{:.2},{:.2}\n", medians[0] / 1e3, medians[1] / 1e3);
        results.markdown += &format!(
            "| {name} | one page at depth 999,970 (µs, median) | {:.1} | {:.1} | {:.3} |\n",
            medians[0] / 1e3,
            medians[1] / 1e3,
            medians[0] / medians[1]
        );
        drop(conn);

        let threads = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let manager = AsyncDieselConnectionManager::<C>::new(backend.url.clone());
        let pool = Pool::builder(manager).max_size(4).build().expect("a pool");
        // Rounds of one second each, API and hand-written in turn (the order alternating), so
        // that both see the same machine; the median rounds are compared.
        let (rounds, seconds) = if quick { (1, 0.2) } else { (7, 1.0) };
        for tasks in [1usize, 4, 16] {
            let mut samples = [Vec::new(), Vec::new()];
            for round in 0..rounds {
                for k in 0..2 {
                    let i = (k + round) % 2;
                    let page = [api, hand][i];
                    let rate = threads.block_on(throughput(&pool, page, &deepest, tasks, seconds));
                    samples[i].push(rate);
                }
            }
            let per_second = samples.map(measure::median);
            results.ratios.push(
                name,
                &format!(
                    "async API / hand-written pages per second, {tasks} tasks over a pool of 4"
                ),
                per_second[0] / per_second[1],
                Target::None,
            );
            results.csv += &format!(
                "{name},pages_per_s_{tasks}_tasks,{:.0},{:.0}\n",
                per_second[0], per_second[1]
            );
            results.markdown += &format!(
                "| {name} | pages per second, {tasks} tasks, pool of 4 | {:.0} | {:.0} | {:.3} |\n",
                per_second[0],
                per_second[1],
                per_second[0] / per_second[1]
            );
        }
    }

    /// Pages per second that `tasks` tasks load for `seconds`, each taking a pooled connection
    /// per page, as a handler does.
    async fn throughput<C>(
        pool: &Pool<C>,
        page: PageFn<C>,
        cursor: &PostCursor,
        tasks: usize,
        seconds: f64,
    ) -> f64
    where
        C: AsyncConnection + diesel_async::pooled_connection::PoolableConnection + 'static,
        AsyncDieselConnectionManager<C>: deadpool::managed::Manager<Type = C>,
    {
        let pages = Arc::new(AtomicU64::new(0));
        let started = Instant::now();
        let until = started + Duration::from_secs_f64(seconds);
        let handles: Vec<_> = (0..tasks)
            .map(|_| {
                let (pool, pages, cursor) = (pool.clone(), pages.clone(), cursor.clone());
                tokio::spawn(async move {
                    while Instant::now() < until {
                        let Ok(mut conn) = pool.get().await else {
                            panic!("the pool gave no connection");
                        };
                        assert!(page(&mut conn, &cursor).await >= PAGE as usize);
                        pages.fetch_add(1, Ordering::Relaxed);
                    }
                })
            })
            .collect();
        for handle in handles {
            handle.await.expect("a task ends");
        }
        AtomicU64::load(&pages, Ordering::Relaxed) as f64 / started.elapsed().as_secs_f64()
    }
}

fn main() {
    #[cfg(any(feature = "postgres", feature = "mysql"))]
    {
        // `cargo bench --no-run` builds it; `cargo test --benches` passes `--test`: one quick round.
        let quick = std::env::args().any(|arg| arg == "--test");
        let mut results = bench::Results::default();
        #[cfg(feature = "postgres")]
        bench::run(bench::postgres(), quick, &mut results);
        #[cfg(feature = "mysql")]
        bench::run(bench::mysql(), quick, &mut results);
        let out = keyset_benches::out_dir();
        keyset_benches::measure::write(
            &out,
            "async.csv",
            &format!("backend,measure,api,hand\n{}", results.csv),
        );
        keyset_benches::measure::write(&out, "async-ratios.csv", &results.ratios.csv());
        let table = format!(
            "| backend | measure | async API | hand-written | API / hand |\n|---|---|---:|---:|---:|\n{}",
            results.markdown
        );
        keyset_benches::measure::write(&keyset_benches::work_dir(), "async.md", &table);
        println!("{table}\n{}", results.ratios.markdown("backend"));
    }
    #[cfg(not(any(feature = "postgres", feature = "mysql")))]
    eprintln!(
        "the async bench runs on PostgreSQL and MariaDB: cargo bench -p keyset-benches \
         --features postgres,mysql --bench asynchronous"
    );
}
