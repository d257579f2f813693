//! The keyset web service: `GET /posts?sort=&dir=&limit=&after=&before=` as JSON pages, and
//! feeds (`GET /feed?authors=1,2,3`, `GET /users/{id}/feed`), on axum.
//!
//! ```sh
//! cargo run -p keyset-examples --features web --example web
//! curl 'http://127.0.0.1:3000/posts?limit=3'                    # newest first (sort=new)
//! curl 'http://127.0.0.1:3000/posts?limit=3&after=<next_cursor>'
//! curl 'http://127.0.0.1:3000/posts?limit=3&before=<prev_cursor>'
//! curl 'http://127.0.0.1:3000/posts?sort=top&limit=3'           # highest score first
//! curl 'http://127.0.0.1:3000/posts?sort=top&dir=asc&limit=3'   # lowest score first, oldest first
//! curl 'http://127.0.0.1:3000/posts?sort=title&limit=3'         # by title, A to Z
//! curl 'http://127.0.0.1:3000/feed?authors=1,2,3&limit=3'       # a feed: those authors' posts
//! curl 'http://127.0.0.1:3000/users/1/feed?limit=3'             # the authors user 1 follows
//! curl -X PUT http://127.0.0.1:3000/users/1/follows/7           # user 1 follows author 7
//! curl -X POST -H 'content-type: application/json' -d '{"title":"hello","score":3}' http://127.0.0.1:3000/posts
//! ```
//!
//! Served from a pool of diesel-async connections (deadpool): SQLite by default, in a new file in
//! the temporary directory (WAL mode, so that pooled connections share one database; removed on
//! exit), seeded with 1 000 posts by 10 authors, each of whom follows the next three.
//! `DATABASE_URL` selects another database: a SQLite file path, `postgres://..` with the
//! `postgres` feature (`--features web,postgres`), or `mysql://..` (MariaDB or MySQL) with the
//! `mysql` feature; neither links a C client library. The tables and their indexes (one per sort
//! order and one per order led by `author_id` for feeds, `Post::INDEXES`) are created when
//! missing. `ADDR` sets the address to listen on (default `127.0.0.1:3000`). A request waits at
//! most `POOL_WAIT_TIMEOUT_MS` (default 2000) for a free connection, then is answered `503` with
//! `Retry-After`; opening a connection may take at most `POOL_CREATE_TIMEOUT_MS` (default 5000).
//! The service itself is `examples/src/web.rs`.

use keyset_examples::db::Db;
use keyset_examples::pool::PoolOptions;
use keyset_examples::web::router;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    // What the service logs and does not show (a server's fault, a busy pool), on stderr.
    tracing_subscriber::fmt().with_writer(std::io::stderr).init();
    let url = std::env::var("DATABASE_URL").ok();
    let addr = std::env::var("ADDR").unwrap_or_else(|_| "127.0.0.1:3000".to_owned());
    let db = Db::open(url.as_deref(), 1_000, PoolOptions::from_env()?).await?;
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    let addr = listener.local_addr()?;
    println!("keyset web example: {} posts on {}", db.all().await?.len(), db.describe());
    println!("listening on http://{addr}");
    println!("  curl 'http://{addr}/posts?limit=3'");
    println!("  then follow next_cursor with ?after=, prev_cursor with ?before=");
    println!("  other orders: ?sort=top or ?sort=title, either way with &dir=asc or &dir=desc");
    println!("  a feed: curl 'http://{addr}/feed?authors=1,2,3&limit=3'");
    println!("  the feed of whom user 1 follows: curl 'http://{addr}/users/1/feed?limit=3'");
    axum::serve(listener, router(db))
        .with_graceful_shutdown(keyset_examples::web::interrupted())
        .await?;
    Ok(())
}
