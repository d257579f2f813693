//! Orders of a joined table's keys (`#[diesel(select_expression = authors::name)]`): the
//! expansion of one that seeks (its primary-key check), the indexes it gets on both tables, the
//! shapes the derive refuses with their messages, and `reads_and_sorts`, which keeps them.

use proc_macro2::TokenStream;
use quote::quote;

use super::prefix::{create_sql, errors};
use crate::index::{Backend, Index};
use crate::model::Model;

/// Led by the joined table's keys, ending with its primary key, then the model's own: the order's
/// words name `authors.name`, and the checks end the joined keys with `authors`' primary key.
#[test]
fn joined_key() {
    assert_expansion! {
        #[derive(Queryable, Selectable, Keyset)]
        #[diesel(table_name = posts)]
        #[keyset(prefix(author_id))]
        pub struct PostByAuthor {
            #[sort(asc)]
            #[diesel(select_expression = authors::name)]
            pub author_name: String,
            #[sort(asc)]
            #[diesel(select_expression = authors::id)]
            pub author_key: i64,
            #[sort(desc)]
            pub created_at: NaiveDateTime,
            #[sort(desc)]
            #[tiebreaker]
            pub id: i64,
        }
    }
}

const GROUPED: fn() -> TokenStream = || {
    quote! {
        #[diesel(table_name = posts)]
        #[keyset(prefix(author_id))]
        #[keyset(order(by_author: author_name desc, author_key desc, created_at asc, id asc))]
        struct Post {
            #[sort(desc)] created_at: NaiveDateTime,
            #[sort(desc)] #[tiebreaker] id: i64,
            #[diesel(select_expression = authors::name)] author_name: String,
            #[diesel(select_expression = authors::id)] author_key: i64,
        }
    }
};

/// The joined table's keys get a unique index on that table (its rows are walked in it), the
/// model's own keys one led by the prefix that joins them (each author's posts are read in it),
/// shared with the field order's prefixed index, which is the same read backwards.
#[test]
fn an_order_led_by_joined_keys_gets_an_index_on_each_table() {
    assert_eq!(
        create_sql(GROUPED(), Backend::Postgres),
        [
            "CREATE INDEX IF NOT EXISTS \"posts_keyset_created_at_desc_id_desc\" ON \"posts\" (\"created_at\" DESC, \"id\" DESC);",
            "CREATE INDEX IF NOT EXISTS \"posts_keyset_author_id_asc_created_at_desc_id_desc\" ON \"posts\" (\"author_id\" ASC, \"created_at\" DESC, \"id\" DESC);",
            "CREATE UNIQUE INDEX IF NOT EXISTS \"authors_keyset_name_desc_id_desc_unique\" ON \"authors\" (\"name\" DESC, \"id\" DESC);",
        ]
    );
    assert_eq!(
        create_sql(GROUPED(), Backend::Mysql)[2],
        "CREATE UNIQUE INDEX `authors_keyset_name_desc_id_desc_unique` ON `authors` (`name` DESC, `id` DESC);"
    );
}

/// The joined table's primary key alone is served by the primary key: only the model's index.
#[test]
fn an_order_led_by_the_joined_primary_key_gets_the_models_index_only() {
    let indexes = create_sql(
        quote! {
            #[diesel(table_name = posts)]
            #[keyset(prefix(author_id))]
            struct Post {
                #[sort(asc)] #[diesel(select_expression = authors::id)] author_key: i64,
                #[sort(desc)] #[tiebreaker] id: i64,
            }
        },
        Backend::Sqlite,
    );
    assert_eq!(
        indexes,
        ["CREATE INDEX IF NOT EXISTS \"posts_keyset_author_id_asc_id_desc\" ON \"posts\" (\"author_id\" ASC, \"id\" DESC);"]
    );
}

/// Each shape that gives no index walk is refused with what to write instead, and kept by
/// `reads_and_sorts`.
#[test]
fn joined_keys_that_cannot_seek_are_refused() {
    let only = |input: TokenStream| {
        let errors = errors(input);
        assert_eq!(errors.len(), 1, "{errors:?}");
        errors.into_iter().next().unwrap()
    };
    let after_own = only(quote! {
        #[diesel(table_name = posts)]
        #[keyset(prefix(author_id))]
        #[keyset(order(mixed: created_at desc, author_name asc, id desc))]
        struct Post {
            #[sort(desc)] created_at: NaiveDateTime,
            #[sort(desc)] #[tiebreaker] id: i64,
            #[diesel(select_expression = authors::name)] author_name: String,
        }
    });
    assert!(after_own.contains("`author_name` sorts by `authors.name` of the joined table `authors` in the order `mixed`, after `created_at` of `posts`"), "{after_own}");
    assert!(after_own.contains("`#[keyset(reads_and_sorts)]`"), "{after_own}");
    let two_tables = only(quote! {
        #[diesel(table_name = posts)]
        #[keyset(prefix(author_id))]
        struct Post {
            #[sort(asc)] #[diesel(select_expression = authors::name)] author_name: String,
            #[sort(asc)] #[diesel(select_expression = blogs::name)] blog_name: String,
            #[sort(desc)] #[tiebreaker] id: i64,
        }
    });
    assert!(two_tables.contains("in the struct's field order, after the keys of `authors`: an order seeks on the columns of one joined table"), "{two_tables}");
    let no_prefix = only(quote! {
        #[diesel(table_name = posts)]
        struct Post {
            #[sort(asc)] #[diesel(select_expression = authors::name)] author_name: String,
            #[sort(asc)] #[diesel(select_expression = authors::id)] author_key: i64,
            #[sort(desc)] #[tiebreaker] id: i64,
        }
    });
    assert!(no_prefix.contains("an index led by the column that joins them"), "{no_prefix}");
    assert!(no_prefix.contains("`#[keyset(prefix(author_id))]`"), "{no_prefix}");
    let needless = only(quote! {
        #[diesel(table_name = posts)]
        #[keyset(reads_and_sorts)]
        struct Post { #[sort(desc)] #[tiebreaker] id: i64 }
    });
    assert!(needless.contains("no order of this struct sorts by one: remove it"), "{needless}");
    let twice = only(quote! {
        #[diesel(table_name = posts)]
        #[keyset(reads_and_sorts, reads_and_sorts)]
        struct Post {
            #[sort(asc)] #[diesel(select_expression = authors::name)] author_name: String,
            #[sort(desc)] #[tiebreaker] id: i64,
        }
    });
    assert!(twice.contains("`reads_and_sorts` is given twice"), "{twice}");
}

/// `reads_and_sorts` keeps every shape: no error, no index, and the order is named as unserved.
#[test]
fn reads_and_sorts_keeps_an_order_no_index_serves() {
    let input = quote! {
        #[diesel(table_name = posts)]
        #[keyset(reads_and_sorts)]
        #[keyset(order(mixed: created_at desc, author_name asc, id desc))]
        struct Post {
            #[sort(asc)] #[diesel(select_expression = authors::name)] author_name: String,
            #[sort(desc)] #[tiebreaker] id: i64,
            created_at: NaiveDateTime,
        }
    };
    assert_eq!(errors(input.clone()), Vec::<String>::new());
    let input: syn::DeriveInput = syn::parse2(input).unwrap();
    let model = Model::from_ast(&mut crate::ctxt::Ctxt::new(), &input).unwrap();
    assert_eq!(Index::for_model(&model), Vec::new());
    let unserved: Vec<String> =
        Index::unserved(&model).into_iter().map(|(order, _)| order).collect();
    assert_eq!(
        unserved,
        ["posts: authors.name ASC, id DESC", "posts: created_at DESC, authors.name ASC, id DESC"]
    );
    let expanded = crate::derive_keyset(quote!(#input)).to_string();
    assert!(!expanded.contains("assert_joined_keys_end_in_primary_key"), "{expanded}");
    // Its pages never walk the groups: its joined keys need not end with a primary key.
    assert!(!expanded.contains("GROUP_KEYS"), "{expanded}");
}

/// Each order led by joined keys tells the runtime how many (`GROUP_KEYS`), in both directions
/// of a named order, so that its pages may walk a joined row at a time; the field order here,
/// of the model's own keys, says nothing (the default, 0).
#[test]
fn an_order_led_by_joined_keys_says_how_many() {
    let expanded = crate::derive_keyset(GROUPED()).to_string();
    let said: Vec<&str> = expanded
        .match_indices("const GROUP_KEYS")
        .map(|(at, _)| {
            let end = expanded[at..].find(';').unwrap();
            expanded[at..at + end].trim_end()
        })
        .collect();
    assert_eq!(said, ["const GROUP_KEYS : usize = 2usize", "const GROUP_KEYS : usize = 2usize"]);
}
