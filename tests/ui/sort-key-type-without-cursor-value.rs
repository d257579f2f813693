use diesel::expression::AsExpression;
use diesel::sql_types::Integer;
use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        score -> Integer,
    }
}

/// A type Diesel can bind as `Integer`, but that nobody taught to travel in a cursor token.
#[derive(Debug, Clone, PartialEq, AsExpression)]
#[diesel(sql_type = Integer)]
struct Score(i32);

#[derive(Keyset)]
struct Post {
    #[sort(desc)]
    score: Score,
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
}

fn main() {}
