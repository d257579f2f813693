use diesel::prelude::*;
use keyset_runtime::{Keyset, PageRequest, Paginate};

diesel::table! {
    posts (id) {
        id -> BigInt,
        score -> Integer,
    }
}

// One mistake: the order `top` does not end with the tiebreaker. The code below pages with the
// derive's names, in several places, and must add no error (no "type annotations needed").
#[derive(Queryable, Selectable, Keyset)]
#[keyset(order(new: id desc), order(top: score desc))]
struct Post {
    #[tiebreaker]
    id: i64,
    score: i32,
}

fn top(conn: &mut SqliteConnection) -> Vec<Post> {
    let page = posts::table
        .select(Post::as_select())
        .paginate_by(PostOrder::Top, None, &PageRequest::first(20))
        .unwrap();
    page.load_page(conn).unwrap().items
}

fn newest(conn: &mut SqliteConnection) -> Vec<Post> {
    let query = posts::table.select(Post::as_select());
    query.paginate_by(PostOrder::New, None, &PageRequest::first(20)).unwrap().load_page(conn).unwrap().items
}

fn count(conn: &mut SqliteConnection) -> i64 {
    let query = posts::table.select(Post::as_select());
    query.paginate(&PageRequest::first(20)).unwrap().total_count(conn).unwrap()
}

fn main() {
    let _ = (top, newest, count);
}
