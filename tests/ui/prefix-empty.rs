use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        author_id -> BigInt,
        created_at -> BigInt,
    }
}

#[derive(Keyset)]
#[keyset(prefix())]
struct Post {
    #[sort(desc)]
    created_at: i64,
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
}

fn main() {}
