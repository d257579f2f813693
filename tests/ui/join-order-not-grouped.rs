use keyset_runtime::Keyset;

diesel::table! {
    authors (id) {
        id -> BigInt,
        name -> Text,
    }
}

diesel::table! {
    posts (id) {
        id -> BigInt,
        author_id -> BigInt,
        created_at -> Timestamp,
    }
}

diesel::joinable!(posts -> authors (author_id));
diesel::allow_tables_to_appear_in_same_query!(authors, posts);

// Led by the authors' name, but not by the author: the posts of two authors of one name
// interleave, and no index gives that order. The fix the errors name: `authors::id` next.
#[derive(Keyset)]
#[diesel(table_name = posts)]
#[keyset(prefix(author_id))]
#[keyset(order(by_name: author_name desc, id desc))]
struct Post {
    #[sort(asc)]
    #[diesel(select_expression = authors::name)]
    author_name: String,
    #[sort(desc)]
    created_at: chrono::NaiveDateTime,
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
}

// The same in a named order only: reported at its key in `order(..)`.
#[derive(Keyset)]
#[diesel(table_name = posts)]
#[keyset(prefix(author_id), order(by_name: author_name asc, id desc))]
struct Named {
    #[diesel(select_expression = authors::name)]
    author_name: String,
    #[tiebreaker]
    id: i64,
}

fn main() {}
