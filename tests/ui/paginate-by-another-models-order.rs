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

#[derive(Queryable, Selectable, Keyset)]
#[diesel(table_name = posts)]
#[keyset(order(top: score desc, id desc))]
struct Draft {
    #[tiebreaker]
    id: i64,
    score: i32,
}

fn main() {
    // The posts' query, paged in the drafts' order.
    let _ = posts::table
        .select(Post::as_select())
        .paginate_by(DraftOrder::Top, None, &PageRequest::first(10));
}
