use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        created_at -> BigInt,
        score -> Integer,
        title -> Text,
    }
}

#[derive(Keyset)]
#[sort(desc)]
struct Post {
    #[sort(dsec)]
    created_at: i64,
    #[sort(asc, nulls = first)]
    score: i32,
    #[tiebreaker(primary)]
    title: String,
    #[sort(desc)]
    #[sort(asc)]
    #[tiebreaker]
    id: i64,
}

fn main() {}
