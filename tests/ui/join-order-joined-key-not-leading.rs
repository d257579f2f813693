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

// A joined key after a key of `posts`, and an order of joined keys without the prefix that
// reads each author's posts: both refused, each with what to write instead.
#[derive(Keyset)]
#[diesel(table_name = posts)]
#[keyset(order(by_name: author_name asc, author_key asc, id desc))]
struct Post {
    #[sort(desc)]
    created_at: chrono::NaiveDateTime,
    #[sort(asc)]
    #[diesel(select_expression = authors::name)]
    author_name: String,
    #[diesel(select_expression = authors::id)]
    author_key: i64,
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
}

fn main() {}
