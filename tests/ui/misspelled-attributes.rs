use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        created_at -> BigInt,
        score -> Integer,
    }
}

// rustc reports each misspelled attribute, and suggests the name; the derive adds nothing of its
// own ("no field is marked `#[tiebreaker]`", "`#[tiebreaker]` needs a sort direction", "needs at
// least one `#[sort(..)]` field"), which would only follow from the misspelling.
#[derive(Keyset)]
#[diesel(table_name = posts)]
struct Newest {
    #[sort(desc)]
    created_at: i64,
    #[sort(desc)]
    #[tiebraker]
    id: i64,
}

#[derive(Keyset)]
#[diesel(table_name = posts)]
struct Oldest {
    #[srot(asc)]
    #[tiebreaker]
    id: i64,
}

#[derive(Keyset)]
#[diesel(table_name = posts)]
#[kyset(order(top: score desc, id desc))]
struct Ranked {
    #[tiebreaker]
    id: i64,
    score: i32,
}

fn main() {}
