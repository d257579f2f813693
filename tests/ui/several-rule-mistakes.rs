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
    #[tiebreaker]
    id: i64,
    #[sort(desc)]
    created_at: Option<i64>,
    #[sort(asc)]
    #[tiebreaker(unique)]
    title: Option<String>,
}

fn main() {}
