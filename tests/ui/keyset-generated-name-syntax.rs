use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        score -> Integer,
    }
}

#[derive(Keyset)]
#[keyset(cursor = "PostKey", order_enum)]
#[keyset(cursor = PostKey, cursor = PostId)]
#[keyset(order(top: score desc, id desc))]
struct Post {
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
    score: i32,
}

fn main() {}
