use keyset_runtime::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        slug -> Nullable<Text>,
    }
}

#[derive(Keyset)]
struct Post {
    #[sort(asc)]
    #[tiebreaker(unique)]
    slug: String,
}

fn main() {}
