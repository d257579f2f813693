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

// Named orders: the enum of the orders is `<Model>Order`; the user's type comes first.
mod ranked {
    use keyset_runtime::Keyset;

    use super::articles;

    pub enum ArticleOrder {
        Newest,
    }

    #[derive(Keyset)]
    #[keyset(order(top: score desc, id desc))]
    pub struct Article {
        #[tiebreaker]
        id: i64,
        score: i32,
    }
}

// A name given with `cursor = ..` that is taken too.
mod renamed {
    use keyset_runtime::Keyset;

    use super::articles;

    #[derive(Keyset)]
    #[keyset(cursor = ArticleKey)]
    struct Article {
        #[sort(desc)]
        #[tiebreaker]
        id: i64,
    }

    type ArticleKey = i64;
}

fn main() {}
