use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        created_at -> BigInt,
        score -> Integer,
        title -> Text,
    }
}

// One mistake of each stage, each on its own field, all reported in one compile: an attribute
// (`frist`), a rule (a key after the tiebreaker), and a type (`score` is an `Integer` column).
#[derive(Keyset)]
struct Post {
    #[sort(desc, nulls = frist)]
    created_at: i64,
    #[sort(desc)]
    score: i64,
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
    #[sort(asc)]
    title: String,
}

fn main() {}
