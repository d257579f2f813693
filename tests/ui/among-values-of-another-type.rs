use diesel::prelude::*;
use keyset_runtime::{Keyset, PageRequest, Paginate};

diesel::table! {
    posts (id) {
        id -> BigInt,
        author_id -> BigInt,
        created_at -> BigInt,
    }
}

#[derive(Queryable, Selectable, Keyset)]
#[keyset(prefix(author_id))]
struct Post {
    #[sort(desc)]
    created_at: i64,
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
}

fn main() {
    // `author_id` is a BigInt: its values are `i64`, not text.
    let _ = posts::table
        .select(Post::as_select())
        .among(posts::author_id, vec!["7".to_owned()])
        .paginate(&PageRequest::first(20))
        .unwrap();
}
