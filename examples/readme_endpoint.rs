//! The README's JSON endpoint, compiled: axum over a deadpool pool of `AsyncPgConnection`s.
//! `examples/tests/readme.rs` checks that the README shows this file's code unchanged.
//!
//! `DATABASE_URL=postgres://.. cargo run -p keyset-examples --features web,postgres --example readme_endpoint`

use axum::extract::{OriginalUri, State};
use axum::{routing::get, Router};
use diesel::{QueryDsl, Queryable, Selectable, SelectableHelper};
use diesel_async::pooled_connection::deadpool::Pool;
use diesel_async::pooled_connection::AsyncDieselConnectionManager;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use keyset_runtime::http::{Linked, Problem};
use keyset_runtime::{Keyset, PageRequest, Paginate};

diesel::table! {
    posts (id) {
        id -> BigInt,
        created_at -> BigInt,
        title -> Text,
    }
}

/// Newest first; the primary key breaks ties.
#[derive(Queryable, Selectable, Keyset, serde::Serialize)]
#[diesel(table_name = posts)]
struct Post {
    #[sort(desc)]
    created_at: i64,
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
    title: String,
}

type Db = Pool<AsyncPgConnection>;

/// `GET /posts?limit=20`, then `?after=<next_cursor>` or `?before=<prev_cursor>` (or follow the
/// `Link` header). A malformed or foreign cursor is a `400` problem, never a silent first page.
async fn list_posts(
    State(db): State<Db>,
    OriginalUri(uri): OriginalUri,
    request: PageRequest,
) -> Result<Linked<Post>, Problem> {
    let mut conn = db.get().await.map_err(Problem::internal)?;
    let query = posts::table.select(Post::as_select());
    Ok(Linked::new(&uri, query.paginate(&request)?.load_page_async(&mut conn).await?))
}

#[tokio::main]
async fn main() {
    let url = std::env::var("DATABASE_URL").expect("DATABASE_URL=postgres://..");
    let db = Pool::builder(AsyncDieselConnectionManager::<AsyncPgConnection>::new(url))
        .max_size(8)
        .build()
        .unwrap();
    let mut conn = db.get().await.unwrap();
    for ddl in [
        "CREATE TABLE IF NOT EXISTS posts (id BIGSERIAL PRIMARY KEY, created_at BIGINT NOT NULL, title TEXT NOT NULL)",
        // The index matches the ORDER BY, column by column and direction by direction.
        "CREATE INDEX IF NOT EXISTS posts_created_at_desc_id_desc ON posts (created_at DESC, id DESC)",
    ] {
        diesel::sql_query(ddl).execute(&mut conn).await.unwrap();
    }
    drop(conn);
    let app = Router::new().route("/posts", get(list_posts)).with_state(db);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await.unwrap();
    axum::serve(listener, app).await.unwrap();
}
