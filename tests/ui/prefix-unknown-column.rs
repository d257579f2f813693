use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        author_id -> BigInt,
        created_at -> BigInt,
    }
}

// The column is `author_id`.
#[derive(Keyset)]
#[keyset(prefix(auther_id))]
struct Post {
    #[sort(desc)]
    created_at: i64,
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
}

fn main() {}
