use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        created_at -> BigInt,
        score -> Integer,
    }
}

#[derive(Keyset)]
struct Post {
    #[sort(DESC)]
    created_at: i64,
    #[sort(Asc)]
    score: i32,
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
}

fn main() {}
