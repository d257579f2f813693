use diesel::prelude::*;
use keyset_runtime::{Keyset, PageRequest, Paginate};

diesel::table! {
    posts (id) {
        id -> BigInt,
        created_at -> BigInt,
        title -> Text,
    }
}

// One mistake: no tiebreaker. The code below uses the derive's names and must add no error.
#[derive(Queryable, Selectable, Keyset)]
#[diesel(table_name = posts)]
struct Post {
    #[sort(desc)]
    created_at: i64,
    id: i64,
    title: String,
}

fn newest(conn: &mut SqliteConnection, cursor: PostCursor) -> Vec<Post> {
    let _ = (cursor.created_at, Post::SORT_ORDER);
    posts::table
        .select(Post::as_select())
        .paginate(&PageRequest::first(20))
        .unwrap()
        .load_page(conn)
        .unwrap()
        .items
}

fn main() {
    let _ = newest;
}
