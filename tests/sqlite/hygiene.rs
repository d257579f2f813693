//! Generated code names everything by absolute path, so it compiles whatever the user's module
//! has in scope: here, local items that shadow the prelude's traits and the runtime's names.
//! (`#[no_implicit_prelude]` would be the stricter test, but Diesel's own derives need the
//! prelude.)

#[allow(dead_code, non_camel_case_types)]
mod no_prelude {
    use ::keyset_runtime::Keyset;
    use diesel::prelude::*;

    struct Clone;
    struct From;
    struct PartialEq;
    trait Serialize {}
    trait Deserialize {}
    struct Key;
    struct End;
    struct Asc;
    struct Desc;
    mod serde {}
    mod keyset_runtime {}
    mod __private {}

    #[derive(Queryable, Selectable, Keyset, Debug)]
    #[diesel(table_name = ::keyset_tests::schema::posts)]
    pub struct Hygienic {
        #[sort(desc)]
        pub score: i32,
        #[sort(asc)]
        #[tiebreaker]
        pub id: i64,
    }
}

#[test]
fn derive_compiles_without_a_prelude_and_pages() {
    use diesel::prelude::*;
    use keyset_runtime::{PageRequest, Paginate};
    use keyset_tests::schema::posts;

    let mut conn = crate::suite::db::seeded(30);
    let page = posts::table
        .select(no_prelude::Hygienic::as_select())
        .paginate(&PageRequest::first(4))
        .unwrap()
        .load_page(&mut conn)
        .unwrap();
    let keys: Vec<(i32, i64)> = page.items.iter().map(|row| (row.score, row.id)).collect();
    let expected: Vec<(i32, i64)> = posts::table
        .select((posts::score, posts::id))
        .order((posts::score.desc(), posts::id.asc()))
        .limit(4)
        .load(&mut conn)
        .unwrap();
    assert_eq!(keys, expected);
}
