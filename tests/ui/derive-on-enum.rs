use keyset_runtime::Keyset;

#[derive(Keyset)]
enum Post {
    Draft,
    Published,
}

fn main() {}
