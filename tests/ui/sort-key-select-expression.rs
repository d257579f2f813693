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
    #[sort(desc)]
    #[diesel(select_expression = posts::score * 2)]
    double_score: i32,
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
}

fn main() {}
