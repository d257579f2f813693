use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        score -> Integer,
    }
}

#[derive(Keyset)]
#[keyset(cursor = Post)]
struct Post {
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
}

#[derive(Keyset)]
#[diesel(table_name = posts)]
#[keyset(cursor = RankedSort, order_enum = RankedSort, order(top: score desc, id desc))]
struct Ranked {
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
    score: i32,
}

fn main() {}
