use diesel::prelude::*;
use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        score -> Integer,
    }
}

// A misspelled field, and a column name where the field's name belongs.
#[derive(Queryable, Selectable, Keyset)]
#[keyset(order(top: scor desc, id desc), order(points: points desc, id desc))]
struct Post {
    #[tiebreaker]
    id: i64,
    #[diesel(column_name = score)]
    points_total: i32,
}

fn main() {}
