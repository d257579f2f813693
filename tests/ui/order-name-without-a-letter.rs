use diesel::prelude::*;
use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        score -> Integer,
    }
}

// `_` would name an empty variant: a name needs a letter once its underscores are dropped.
#[derive(Queryable, Selectable, Keyset)]
#[keyset(order(_: score desc, id desc))]
struct Post {
    #[tiebreaker]
    id: i64,
    score: i32,
}

fn main() {}
