use keyset_runtime::Keyset;

#[derive(Keyset)]
union Post {
    id: i64,
    score: i32,
}

fn main() {}
