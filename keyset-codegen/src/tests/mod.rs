//! Snapshots of the expansion for representative valid models, so that a change to generated code
//! shows up in review as a diff of `snapshots/*.snap`. Update them with `INSTA_UPDATE=always
//! cargo test -p keyset-codegen` (or `cargo insta review`) and read the diff before committing.
//!
//! What the generated code means is tested elsewhere: it compiles and pages correctly
//! (`tests/forms.rs`, the behaviour suites) and its checks fail where they should (`tests/ui`).

use proc_macro2::TokenStream;
use quote::quote;

/// Snapshots the derive's output on a model, formatted as rustfmt would, below the model itself,
/// so that each `.snap` file reads as "this model expands to this code".
macro_rules! assert_expansion {
    ($($input:tt)*) => {{
        let input: TokenStream = quote!($($input)*);
        let output = crate::derive_keyset(input.clone());
        let (input, output) = ($crate::tests::format(input), $crate::tests::format(output));
        let snapshot = format!("{input}\n// expands to:\n\n{output}");
        insta::with_settings!({ omit_expression => true }, {
            insta::assert_snapshot!(snapshot);
        });
    }};
}

mod joined;
mod prefix;

/// Items formatted as rustfmt would; a panic (this is a test) when they are not valid Rust.
fn format(tokens: TokenStream) -> String {
    match syn::parse2::<syn::File>(tokens.clone()) {
        Ok(file) => prettyplease::unparse(&file),
        Err(err) => panic!("unparsable tokens ({err}):\n{tokens}"),
    }
}

#[test]
fn uniform_directions() {
    assert_expansion! {
        #[derive(Queryable, Selectable, Keyset)]
        #[diesel(table_name = posts)]
        pub struct Newest {
            #[sort(desc)]
            pub created_at: NaiveDateTime,
            #[sort(desc)]
            #[tiebreaker]
            pub id: i64,
            pub title: String,
        }
    }
}

#[test]
fn mixed_directions_inferred_table() {
    assert_expansion! {
        struct TopScore {
            #[sort(asc)]
            score: i32,
            #[sort(desc)]
            created_at: NaiveDateTime,
            #[sort(asc)]
            #[tiebreaker]
            id: i64,
        }
    }
}

#[test]
fn composite_primary_key() {
    assert_expansion! {
        #[diesel(table_name = crate::schema::memberships)]
        pub(crate) struct Membership {
            #[sort(asc)]
            joined_at: NaiveDateTime,
            #[sort(asc)]
            #[tiebreaker]
            team_id: i32,
            #[sort(desc)]
            #[tiebreaker]
            user_id: i32,
        }
    }
}

#[test]
fn renamed_columns() {
    assert_expansion! {
        #[diesel(table_name = posts, check_for_backend(diesel::sqlite::Sqlite))]
        struct Renamed {
            #[sort(asc)]
            #[diesel(column_name = "type")]
            kind: String,
            #[sort(desc)]
            #[diesel(column_name = created_at)]
            published: NaiveDateTime,
            #[sort(desc)]
            #[tiebreaker]
            #[diesel(column_name = "id", serialize_as = i64)]
            post_id: PostId,
        }
    }
}

#[test]
fn unique_tiebreaker_has_no_primary_key_check() {
    assert_expansion! {
        #[diesel(table_name = posts)]
        struct ByTitle {
            #[sort(asc)]
            #[tiebreaker(unique)]
            title: String,
            id: i64,
        }
    }
}

/// An invalid model: every error, then the fallback items built from the keys that can be
/// trusted, and the generated checks that no reported mistake decides (here both fields' types).
#[test]
fn invalid_model_errors_and_fallback() {
    assert_expansion! {
        #[diesel(table_name = posts)]
        struct Post {
            #[sort(dsec)]
            created_at: NaiveDateTime,
            #[sort(desc)]
            id: i64,
        }
    }
}

/// A misspelled attribute is rustc's to report: no error of the derive's, and the fallback, with
/// the misspelled `#[tiebraker]` counted as the tiebreaker so that no rule reports it missing.
#[test]
fn misspelled_attribute_left_to_rustc() {
    assert_expansion! {
        #[diesel(table_name = posts)]
        struct Post {
            #[sort(desc)]
            created_at: NaiveDateTime,
            #[sort(desc)]
            #[tiebraker]
            id: i64,
        }
    }
}

/// Not a struct with named fields: the error, then an empty cursor and an impl with no keys.
#[test]
fn enum_errors_and_empty_fallback() {
    assert_expansion! {
        enum Post {
            Draft,
        }
    }
}

#[test]
fn nullable_keys() {
    assert_expansion! {
        #[diesel(table_name = tasks)]
        struct Task {
            #[sort(asc, nulls = last)]
            due: Option<NaiveDateTime>,
            #[sort(desc, nulls = first)]
            rank: Option<i32>,
            #[sort(asc)]
            #[tiebreaker]
            id: i64,
        }
    }
}

#[test]
fn named_orders() {
    assert_expansion! {
        #[derive(Queryable, Selectable, Keyset)]
        #[diesel(table_name = posts)]
        #[keyset(order(new: created_at desc, id desc), order(top: score desc, id desc))]
        #[keyset(order(due: published_at asc nulls last, id asc))]
        pub struct Post {
            #[tiebreaker]
            pub id: i64,
            pub created_at: NaiveDateTime,
            pub score: i32,
            pub published_at: Option<NaiveDateTime>,
        }
    }
}

/// The names a union of tie levels is ordered by are given only where the model's selection
/// outputs each key under its own column's name, once.
#[test]
fn selected_names_only_for_a_model_of_distinct_own_columns() {
    let names =
        |input: TokenStream| crate::derive_keyset(input).to_string().contains("SELECTED_NAMES");
    assert!(names(quote! {
        #[diesel(table_name = posts)]
        struct Post { #[sort(desc)] created_at: NaiveDateTime, #[sort(asc)] #[tiebreaker] id: i64 }
    }));
    // `headline` selects `title` again: `"title"` would name two output columns.
    assert!(!names(quote! {
        #[diesel(table_name = posts)]
        struct Post {
            #[sort(asc)] title: String,
            #[diesel(select_expression = posts::title)] headline: String,
            #[sort(asc)] #[tiebreaker] id: i64,
        }
    }));
    // An embedded struct's columns are not known to the derive.
    assert!(!names(quote! {
        #[diesel(table_name = posts)]
        struct Post {
            #[sort(desc)] created_at: NaiveDateTime,
            #[sort(asc)] #[tiebreaker] id: i64,
            #[diesel(embed)] author: Author,
        }
    }));
}
