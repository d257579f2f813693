use diesel::prelude::*;
use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        score -> Integer,
        published_at -> Nullable<BigInt>,
    }
}

// An `Option` key without its NULL placement, and a placement on a key that has no NULLs.
#[derive(Queryable, Selectable, Keyset)]
#[keyset(order(published: published_at desc, id desc), order(top: score desc nulls last, id desc))]
struct Post {
    #[tiebreaker]
    id: i64,
    score: i32,
    published_at: Option<i64>,
}

fn main() {}
