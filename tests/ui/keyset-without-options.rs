use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        title -> Text,
    }
}

#[derive(Keyset)]
#[keyset]
struct Post {
    #[sort(asc)]
    title: String,
    #[sort(asc)]
    #[tiebreaker]
    id: i64,
}

fn main() {}
