use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        published_at -> Nullable<BigInt>,
    }
}

#[derive(Keyset)]
struct Post {
    #[sort(desc)]
    published_at: i64,
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
}

fn main() {}
