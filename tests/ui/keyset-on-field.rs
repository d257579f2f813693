use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        title -> Text,
    }
}

#[derive(Keyset)]
struct Post {
    #[sort(asc)]
    #[keyset(max_token_len = 4096)]
    title: String,
    #[sort(asc)]
    #[tiebreaker]
    id: i64,
}

fn main() {}
