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
    }
}

diesel::allow_tables_to_appear_in_same_query!(authors, posts);

#[derive(Keyset)]
#[diesel(table_name = posts)]
struct Post {
    #[sort(asc)]
    #[diesel(select_expression = authors::name)]
    author_name: String,
    #[sort(asc)]
    #[tiebreaker]
    #[diesel(select_expression = authors::id)]
    author_id: i64,
}

fn main() {}
