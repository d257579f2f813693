use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        author_id -> BigInt,
        created_at -> BigInt,
    }
}

// Both orders sort by `author_id`: no index can be led by it.
#[derive(Keyset)]
#[keyset(prefix(author_id))]
#[keyset(order(by_author: author_id asc, created_at desc, id desc))]
#[keyset(order(new: created_at desc, author_id asc, id desc))]
struct Post {
    #[tiebreaker]
    id: i64,
    author_id: i64,
    created_at: i64,
}

fn main() {}
