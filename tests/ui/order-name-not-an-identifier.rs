use diesel::prelude::*;
use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        score -> Integer,
        published_at -> Nullable<BigInt>,
    }
}

// `most-read` is no identifier, as `?sort=` reads a name and an enum names a variant.
#[derive(Queryable, Selectable, Keyset)]
#[keyset(order(most-read: score desc, id desc))]
struct Post {
    #[tiebreaker]
    id: i64,
    score: i32,
    published_at: Option<i64>,
}

fn main() {}
