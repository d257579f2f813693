use diesel::prelude::*;
use keyset_runtime::{Keyset, PageRequest, Paginate};

diesel::table! {
    posts (id) {
        id -> BigInt,
    }
}

#[derive(Queryable, Selectable, Keyset)]
struct Post {
    #[sort(asc)]
    #[tiebreaker]
    id: i64,
}

fn main() {
    // The page sets the LIMIT: one of the query's own would be a second.
    let mut conn = SqliteConnection::establish(":memory:").unwrap();
    let _ = posts::table
        .select(Post::as_select())
        .limit(5)
        .paginate(&PageRequest::first(10))
        .unwrap()
        .load_page(&mut conn);
}
