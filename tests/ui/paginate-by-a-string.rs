use diesel::prelude::*;
use keyset_runtime::{Keyset, PageRequest, Paginate};

diesel::table! {
    posts (id) {
        id -> BigInt,
        score -> Integer,
    }
}

#[derive(Queryable, Selectable, Keyset)]
#[keyset(order(top: score desc, id desc))]
struct Post {
    #[tiebreaker]
    id: i64,
    score: i32,
}

fn main() {
    // `?sort=top` as the client wrote it, not parsed.
    let _ = posts::table
        .select(Post::as_select())
        .paginate_by("top", None, &PageRequest::first(10));
}
