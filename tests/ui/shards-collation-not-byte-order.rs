use diesel::prelude::*;
use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        title -> Text,
    }
}

// `utf8mb4_bin` pads with spaces: 'a' and 'a ' are equal there, not in Rust.
#[derive(Queryable, Selectable, Keyset)]
#[diesel(table_name = posts)]
#[keyset(text_collation = "utf8mb4_bin")]
struct Padded {
    #[sort(asc)]
    title: String,
    #[sort(asc)]
    #[tiebreaker]
    id: i64,
}

// A linguistic collation orders by language rules.
#[derive(Queryable, Selectable, Keyset)]
#[diesel(table_name = posts)]
#[keyset(text_collation = "en_US.UTF-8")]
struct Linguistic {
    #[sort(asc)]
    title: String,
    #[sort(asc)]
    #[tiebreaker]
    id: i64,
}

fn main() {}
