use diesel::prelude::*;
use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        score -> Integer,
        published_at -> Nullable<BigInt>,
    }
}

// `self` names the variant `Self`, a keyword.
#[derive(Queryable, Selectable, Keyset)]
#[keyset(order(self: score desc, id desc))]
struct Post {
    #[tiebreaker]
    id: i64,
    score: i32,
    published_at: Option<i64>,
}

fn main() {}
