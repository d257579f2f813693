use diesel::prelude::*;
use keyset_runtime::Keyset;

diesel::table! {
    memberships (team_id, user_id) {
        team_id -> Integer,
        user_id -> Integer,
        joined_at -> BigInt,
    }
}

// The order ends with the composite primary key, but no field says it is the tiebreaker.
#[derive(Queryable, Selectable, Keyset)]
#[keyset(order(recent: joined_at desc, team_id asc, user_id asc))]
struct Membership {
    team_id: i32,
    user_id: i32,
    joined_at: i64,
}

fn main() {}
