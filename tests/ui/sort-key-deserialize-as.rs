use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        created_at -> BigInt,
        score -> Integer,
        title -> Text,
    }
}

struct Score(i32);

impl From<i32> for Score {
    fn from(score: i32) -> Self {
        Score(score)
    }
}

#[derive(Keyset)]
struct Post {
    #[sort(desc)]
    #[diesel(deserialize_as = i32)]
    score: Score,
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
}

fn main() {}
