//! The README's JSON endpoint, compiled: axum over a deadpool pool of `AsyncPgConnection`s.
//! `examples/tests/readme.rs` checks that the README shows this file's code unchanged.
//!
//! `DATABASE_URL=postgres://.. cargo run -p keyset-examples --features web,postgres --example readme_endpoint`

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::{routing::get, Json, Router};
use diesel::{QueryDsl, Queryable, Selectable, SelectableHelper};
use diesel_async::pooled_connection::deadpool::Pool;
use diesel_async::pooled_connection::AsyncDieselConnectionManager;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use keyset_runtime::{Keyset, Page, PageRequest, Paginate};
use serde_json::{json, Value};

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
type ApiError = (StatusCode, Json<Value>);

/// `GET /posts?limit=20`, then `?after=<next_cursor>` or `?before=<prev_cursor>`.
async fn list_posts(
    State(db): State<Db>,
    Query(request): Query<PageRequest>,
) -> Result<Json<Page<Post>>, ApiError> {
    let internal = || (StatusCode::INTERNAL_SERVER_ERROR, Json(json!({ "error": "internal" })));
    let mut conn = db.get().await.map_err(|_| internal())?;
    let page = match posts::table.select(Post::as_select()).paginate(&request) {
        Ok(paginated) => paginated.load_page_async(&mut conn).await,
        Err(err) => Err(err),
    };
    match page {
        Ok(page) => Ok(Json(page)),
        // A malformed or foreign cursor is the client's mistake: 400, never a silent first page.
        Err(err) if err.is_client_error() => {
            Err((StatusCode::BAD_REQUEST, Json(json!({ "error": err.to_string() }))))
        }
        Err(_) => Err(internal()),
    }
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
