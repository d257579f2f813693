use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        title -> Text,
    }
}

#[derive(Keyset)]
#[keyset(max_token_len = "4096")]
struct Post {
    #[sort(asc)]
    title: String,
    #[sort(asc)]
    #[tiebreaker]
    id: i64,
}

fn main() {}
