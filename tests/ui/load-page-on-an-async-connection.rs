use diesel::prelude::*;
use diesel_async::sync_connection_wrapper::SyncConnectionWrapper;
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

// A diesel-async connection (a pooled one derefs to such), paged with the blocking call.
fn page(conn: &mut SyncConnectionWrapper<SqliteConnection>) {
    let _ = posts::table
        .select(Post::as_select())
        .paginate(&PageRequest::first(20))
        .unwrap()
        .load_page(conn);
}

fn main() {
    let _ = page;
}
