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
struct Post {
    #[sort(asc)]
    #[tiebreaker]
    id: i64,
}

fn main() {
    // The model must come first: the page's cursor is taken from it.
    let _ = posts::table
        .inner_join(authors::table)
        .select((authors::name, Post::as_select()))
        .paginate(&PageRequest::first(10));
}
