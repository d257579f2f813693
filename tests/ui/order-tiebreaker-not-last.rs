use diesel::prelude::*;
use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        score -> Integer,
    }
}

#[derive(Queryable, Selectable, Keyset)]
#[keyset(order(top: id desc, score desc))]
struct Post {
    #[tiebreaker]
    id: i64,
    score: i32,
}

fn main() {}
