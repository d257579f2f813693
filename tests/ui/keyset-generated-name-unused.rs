use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        score -> Integer,
    }
}

// No named order: there is no enum to name.
#[derive(Keyset)]
#[keyset(order_enum = PostSort)]
struct Post {
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
}

// Named orders only: their cursors are hidden, there is no field order's cursor to name.
#[derive(Keyset)]
#[diesel(table_name = posts)]
#[keyset(cursor = RankedKey, order(top: score desc, id desc))]
struct Ranked {
    #[tiebreaker]
    id: i64,
    score: i32,
}

fn main() {}
