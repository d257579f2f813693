use diesel::prelude::*;
use keyset_runtime::{Keyset, PageRequest, Paginate};

diesel::table! {
    posts (id) {
        id -> BigInt,
        title -> Text,
        score -> Double,
    }
}

// Text sorts by its column's collation, which Rust's order may not follow: the model has not
// said that every shard sorts titles in byte order.
#[derive(Queryable, Selectable, Keyset)]
#[diesel(table_name = posts)]
struct ByTitle {
    #[sort(asc)]
    title: String,
    #[sort(asc)]
    #[tiebreaker]
    id: i64,
}

// Floats: engines place NaN and -0.0 each their own way.
#[derive(Queryable, Selectable, Keyset)]
#[diesel(table_name = posts)]
struct ByScore {
    #[sort(desc)]
    score: f64,
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
}

fn main() {
    let mut shards = vec![SqliteConnection::establish(":memory:").unwrap()];
    let request = PageRequest::first(10);
    let _ = posts::table
        .select(ByTitle::as_select())
        .paginate(&request)
        .unwrap()
        .load_page_sharded(&mut shards);
    let _ = posts::table
        .select(ByScore::as_select())
        .paginate(&request)
        .unwrap()
        .load_page_sharded(&mut shards);
}
