//! The keyset GraphQL API: the posts as a Relay connection, with async-graphql on axum.
//!
//! ```sh
//! cargo run -p keyset-examples --features graphql --example graphql
//! curl -H 'content-type: application/json' http://127.0.0.1:3001/graphql \
//!   -d '{"query": "{ posts(first: 3) { edges { cursor node { id title } } pageInfo { hasNextPage endCursor } } }"}'
//! ```
//!
//! SQLite in memory by default, seeded with 1 000 posts; `DATABASE_URL` and the `postgres`
//! feature select another database, as for the web example. `ADDR` sets the address (default
//! `127.0.0.1:3001`). The schema is `examples/src/graphql.rs`.

use keyset_examples::db::Db;
use keyset_examples::graphql::{router, schema};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let url = std::env::var("DATABASE_URL").unwrap_or_else(|_| ":memory:".to_owned());
    let addr = std::env::var("ADDR").unwrap_or_else(|_| "127.0.0.1:3001".to_owned());
    let db = Db::open(&url, 1_000)?;
    let schema = schema(db);
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    let addr = listener.local_addr()?;
    println!("keyset GraphQL example: POST http://{addr}/graphql\n");
    println!("schema:\n{}", schema.sdl());
    println!("try:");
    println!(
        "  curl -H 'content-type: application/json' http://{addr}/graphql \\\n    -d '{{\"query\": \"{{ posts(first: 3) {{ edges {{ cursor node {{ id title }} }} pageInfo {{ hasNextPage endCursor }} }} }}\"}}'"
    );
    axum::serve(listener, router(schema)).await?;
    Ok(())
}
