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
    id: i64,
    title: String,
}

fn main() {}
