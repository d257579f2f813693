use diesel::prelude::*;
use keyset_runtime::{Keyset, PageRequest, Paginate};

diesel::table! {
    posts (id) {
        id -> BigInt,
    }
}

#[derive(Queryable, Selectable, Keyset)]
struct Post {
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
}

// A blocking Diesel connection, paged with the async call.
async fn page(conn: &mut SqliteConnection) {
    let _ = posts::table
        .select(Post::as_select())
        .paginate(&PageRequest::first(20))
        .unwrap()
        .load_page_async(conn)
        .await;
}

fn main() {
    let _ = page;
}
