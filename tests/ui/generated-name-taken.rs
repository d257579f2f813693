use keyset_runtime::Keyset;

diesel::table! {
    articles (id) {
        id -> BigInt,
        score -> Integer,
    }
}

// A type of the user's own, named as the derive names the cursor.
#[derive(Keyset)]
struct Article {
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
    score: i32,
}

struct ArticleCursor;

// Named orders: the enum of the orders is `<Model>Order`.
mod ranked {
    use keyset_runtime::Keyset;

    use super::articles;

    #[derive(Keyset)]
    #[keyset(order(top: score desc, id desc))]
    pub struct Article {
        #[tiebreaker]
        id: i64,
        score: i32,
    }

    pub enum ArticleOrder {
        Newest,
    }
}

fn main() {}
