use diesel::prelude::*;
use keyset_runtime::{Keyset, PageRequest, Paginate};

diesel::table! {
    posts (id) {
        id -> BigInt,
        slug -> Text,
    }
}

// The order ends in a unique column, not the table's primary key: a page at a row's id reads the
// row by its primary key, the order's last key. `at_row(&post)` serves this order.
#[derive(Queryable, Selectable, Keyset)]
struct Post {
    #[sort(asc)]
    #[tiebreaker(unique)]
    slug: String,
}

fn main() {
    let query = posts::table.select(Post::as_select());
    let _ = query.paginate(&PageRequest::first(20)).unwrap().at_row_id("a-post".to_owned());
}
