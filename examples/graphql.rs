//! The keyset GraphQL API: the posts as a Relay connection, with async-graphql on axum.
//!
//! ```sh
//! cargo run -p keyset-examples --features graphql --example graphql
//! curl -H 'content-type: application/json' http://127.0.0.1:3001/graphql \
//!   -d '{"query": "{ posts(first: 3) { edges { cursor node { id title } } pageInfo { hasNextPage endCursor } } }"}'
//! ```
//!
//! The resolver pages with `load_connection_async` on a pool of diesel-async connections:
//! SQLite in a temporary file by default, seeded with 1 000 posts; `DATABASE_URL` and the
//! `postgres` or `mysql` feature select another database, as for the web example. `ADDR` sets the address (default
//! `127.0.0.1:3001`), `POOL_WAIT_TIMEOUT_MS` and `POOL_CREATE_TIMEOUT_MS` the pool's timeouts, as
//! for the web example. The schema is `examples/src/graphql.rs`.

use keyset_examples::db::Db;
use keyset_examples::graphql::{router, schema};
use keyset_examples::pool::PoolOptions;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let url = std::env::var("DATABASE_URL").ok();
    let addr = std::env::var("ADDR").unwrap_or_else(|_| "127.0.0.1:3001".to_owned());
    let db = Db::open(url.as_deref(), 1_000, PoolOptions::from_env()?).await?;
    println!("keyset GraphQL example: {} posts on {}", db.all().await?.len(), db.describe());
    let schema = schema(db);
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    let addr = listener.local_addr()?;
    println!("POST http://{addr}/graphql\n");
    println!("schema:\n{}", schema.sdl());
    println!("try:");
    println!(
        "  curl -H 'content-type: application/json' http://{addr}/graphql \\\n    -d '{{\"query\": \"{{ posts(first: 3) {{ edges {{ cursor node {{ id title }} }} pageInfo {{ hasNextPage endCursor }} }} }}\"}}'"
    );
    axum::serve(listener, router(schema))
        .with_graceful_shutdown(keyset_examples::web::interrupted())
        .await?;
    Ok(())
}
