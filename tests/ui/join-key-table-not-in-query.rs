use diesel::prelude::*;
use keyset_runtime::{Keyset, PageRequest, Paginate};

diesel::table! {
    authors (id) {
        id -> BigInt,
        name -> Text,
    }
}

diesel::table! {
    posts (id) {
        id -> BigInt,
        author_id -> BigInt,
    }
}

diesel::joinable!(posts -> authors (author_id));
diesel::allow_tables_to_appear_in_same_query!(authors, posts);

#[derive(Queryable, Selectable, Keyset)]
#[diesel(table_name = posts)]
#[keyset(reads_and_sorts)]
struct Post {
    #[sort(asc)]
    #[diesel(select_expression = authors::name)]
    author_name: String,
    #[sort(asc)]
    #[tiebreaker]
    id: i64,
}

fn main() {
    // `authors::name` is a sort key, but the query does not join `authors`.
    let mut conn = SqliteConnection::establish(":memory:").unwrap();
    let _ = posts::table
        .select(Post::as_select())
        .paginate(&PageRequest::first(10))
        .unwrap()
        .load_page(&mut conn);
}
