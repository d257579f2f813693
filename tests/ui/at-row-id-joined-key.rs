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

// A key of a joined table: the row of `posts` does not hold it. `at_row(&post)` serves this order.
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
    let query = posts::table.inner_join(authors::table).select(Post::as_select());
    let _ = query.paginate(&PageRequest::first(10)).unwrap().at_row_id(7);
}
