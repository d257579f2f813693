use diesel::prelude::*;
use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        score -> Integer,
        published_at -> BigInt,
    }
}

// A field listed twice in a named order, and two fields on one column in the field order.
#[derive(Queryable, Selectable, Keyset)]
#[keyset(order(top: score desc, score asc, id desc))]
struct Post {
    #[sort(desc)]
    published_at: i64,
    #[sort(asc)]
    #[diesel(column_name = published_at)]
    published: i64,
    score: i32,
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
}

fn main() {}
