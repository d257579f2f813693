use diesel::prelude::*;
use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        score -> Integer,
        published_at -> Nullable<BigInt>,
    }
}

// `nulls LAST`: half of it in upper case.
#[derive(Queryable, Selectable, Keyset)]
#[keyset(order(published: published_at desc nulls LAST, id desc))]
struct Post {
    #[tiebreaker]
    id: i64,
    score: i32,
    published_at: Option<i64>,
}

fn main() {}
