use diesel::prelude::*;
use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        score -> Integer,
        created_at -> BigInt,
    }
}

// `top` ends with `created_at`, which many posts share: pages would skip or repeat them.
#[derive(Queryable, Selectable, Keyset)]
#[keyset(order(new: created_at desc, id desc), order(top: score desc, created_at desc))]
struct Post {
    #[tiebreaker]
    id: i64,
    score: i32,
    created_at: i64,
}

fn main() {}
