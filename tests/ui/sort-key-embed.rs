use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        created_at -> BigInt,
        score -> Integer,
        title -> Text,
    }
}

struct Stats {
    score: i32,
}

#[derive(Keyset)]
struct Post {
    #[sort(desc)]
    #[diesel(embed)]
    stats: Stats,
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
}

fn main() {}
