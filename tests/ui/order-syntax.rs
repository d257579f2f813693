use diesel::prelude::*;
use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        score -> Integer,
    }
}

// Every mistake of the attribute at once: SQL's upper case, a missing direction, a missing `:`,
// and an order with no keys.
#[derive(Queryable, Selectable, Keyset)]
#[keyset(order(top: score DESC, id desc), order(new: id), order(old id asc), order(empty:))]
struct Post {
    #[tiebreaker]
    id: i64,
    score: i32,
}

fn main() {}
