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
struct Post {
    #[sort(desc)]
    created_at: String,
    #[sort(asc)]
    score: i64,
    #[sort(asc)]
    #[tiebreaker]
    title: String,
}

fn main() {}
