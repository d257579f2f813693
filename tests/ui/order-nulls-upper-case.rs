use diesel::prelude::*;
use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        score -> Integer,
        published_at -> Nullable<BigInt>,
    }
}

// SQL's `NULLS LAST`, in upper case.
#[derive(Queryable, Selectable, Keyset)]
#[keyset(order(published: published_at desc NULLS LAST, id desc))]
struct Post {
    #[tiebreaker]
    id: i64,
    score: i32,
    published_at: Option<i64>,
}

fn main() {}
