use keyset_runtime::Keyset;

#[derive(Keyset)]
struct Post;

fn main() {}
