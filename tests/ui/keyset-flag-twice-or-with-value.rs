use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        title -> Text,
    }
}

#[derive(Keyset)]
#[keyset(postgres_fdw, postgres_fdw)]
#[diesel(table_name = posts)]
struct Twice {
    #[sort(asc)]
    #[tiebreaker]
    id: i64,
}

#[derive(Keyset)]
#[keyset(postgres_fdw = true)]
#[diesel(table_name = posts)]
struct WithValue {
    #[sort(asc)]
    #[tiebreaker]
    id: i64,
}

fn main() {}
