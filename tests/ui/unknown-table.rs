use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        created_at -> BigInt,
    }
}

#[derive(Keyset)]
#[diesel(table_name = post)]
struct Post {
    #[sort(desc)]
    created_at: i64,
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
}

fn main() {}
