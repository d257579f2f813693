use keyset_runtime::Keyset;

// The primary key is declared `Nullable<..>` (SQLite allows a NULL primary key): the field is
// a plain `i64`, so the type fits the column but for its NULLs.
diesel::table! {
    posts (id) {
        id -> Nullable<BigInt>,
        created_at -> BigInt,
    }
}

#[derive(Keyset)]
struct Post {
    #[sort(desc)]
    created_at: i64,
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
}

fn main() {}
