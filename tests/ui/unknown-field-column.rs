use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        published_at -> BigInt,
    }
}

// The field is named `published`, the column `published_at`.
#[derive(Keyset)]
struct Post {
    #[sort(desc)]
    published: i64,
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
}

fn main() {}
