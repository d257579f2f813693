use diesel::prelude::*;
use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        score -> Integer,
    }
}

#[derive(Queryable, Selectable, Keyset)]
#[keyset(order(top: score desc, id desc), order(top: score asc, id asc))]
#[keyset(order(most_read: score desc, id desc), order(mostRead: score desc, id asc))]
struct Post {
    #[tiebreaker]
    id: i64,
    score: i32,
}

fn main() {}
