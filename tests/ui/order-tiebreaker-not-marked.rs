use diesel::prelude::*;
use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        score -> Integer,
        published_at -> Nullable<BigInt>,
    }
}

// The order ends with the primary key, but no field says it is the tiebreaker.
#[derive(Queryable, Selectable, Keyset)]
#[keyset(order(top: score desc, id desc))]
struct Post {
    id: i64,
    score: i32,
    published_at: Option<i64>,
}

fn main() {}
