use keyset_runtime::Keyset;

diesel::table! {
    memberships (team_id, user_id) {
        team_id -> Integer,
        user_id -> Integer,
        joined_at -> BigInt,
    }
}

#[derive(Keyset)]
struct Membership {
    #[sort(asc)]
    #[tiebreaker]
    team_id: i32,
    #[sort(desc)]
    joined_at: i64,
    #[sort(asc)]
    #[tiebreaker]
    user_id: i32,
}

fn main() {}
