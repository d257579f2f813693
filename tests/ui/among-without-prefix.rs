use diesel::prelude::*;
use keyset_runtime::{Keyset, PageRequest, Paginate};

diesel::table! {
    posts (id) {
        id -> BigInt,
        author_id -> BigInt,
        created_at -> BigInt,
    }
}

// No `#[keyset(prefix(author_id))]`: no index serves a page among authors.
#[derive(Queryable, Selectable, Keyset)]
struct Post {
    #[sort(desc)]
    created_at: i64,
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
}

fn main() {
    let mut conn = SqliteConnection::establish(":memory:").unwrap();
    let _ = posts::table
        .select(Post::as_select())
        .among(posts::author_id, vec![1_i64, 2])
        .paginate(&PageRequest::first(20))
        .unwrap()
        .load_page(&mut conn);
}
