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
    #[sort(desc, nulls)]
    created_at: Option<i64>,
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
}

fn main() {}
