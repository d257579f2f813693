//! `#[keyset(prefix(..))]`: the expansion (its checks and `Prefix` marks), the indexes it adds
//! and their DDL on each backend, and the mistakes the derive refuses, each with its message.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ctxt::Ctxt;
use crate::index::{Backend, Creation, Index};
use crate::model::Model;

/// The indexes a model's derive writes, each as its DDL on `backend`.
pub(super) fn create_sql(input: TokenStream, backend: Backend) -> Vec<String> {
    let input: syn::DeriveInput = syn::parse2(input).unwrap();
    let mut cx = Ctxt::new();
    let model = Model::from_ast(&mut cx, &input).unwrap();
    crate::valid::check(&mut cx, &model);
    assert_eq!(cx.reasons(), Vec::<String>::new(), "a valid model");
    Index::for_model(&model)
        .iter()
        .map(|index| index.create_sql(backend, Creation::Plain))
        .collect()
}

/// The derive's errors on a model, in words.
pub(super) fn errors(input: TokenStream) -> Vec<String> {
    let input: syn::DeriveInput = syn::parse2(input).unwrap();
    let mut cx = Ctxt::new();
    if let Some(model) = Model::from_ast(&mut cx, &input) {
        crate::valid::check(&mut cx, &model);
    }
    cx.reasons()
}

/// The field order and a named order each get their index led by `author_id`, and a second
/// prefix its own; the named order that sorts by `author_id` gets no prefixed index, and the
/// mark `Prefix<posts::author_id>` is given once, though two prefixes end with the column.
#[test]
fn prefix_expansion() {
    assert_expansion! {
        #[derive(Queryable, Selectable, Keyset)]
        #[diesel(table_name = posts)]
        #[keyset(prefix(author_id), prefix(tenant_id, author_id))]
        #[keyset(order(by_author: author_id asc, id desc))]
        pub struct Post {
            #[sort(desc)]
            pub created_at: NaiveDateTime,
            #[sort(desc)]
            #[tiebreaker]
            pub id: i64,
            pub author_id: i64,
        }
    }
}

const FEED: fn() -> TokenStream = || {
    quote! {
        #[diesel(table_name = posts)]
        #[keyset(prefix(author_id))]
        #[keyset(order(due: published_at asc nulls last, id asc))]
        struct Post {
            #[sort(desc)] created_at: NaiveDateTime,
            #[sort(desc)] #[tiebreaker] id: i64,
            published_at: Option<NaiveDateTime>,
        }
    }
};

#[test]
fn prefix_indexes_on_sqlite() {
    assert_eq!(
        create_sql(FEED(), Backend::Sqlite),
        [
            r#"CREATE INDEX IF NOT EXISTS "posts_keyset_created_at_desc_id_desc" ON "posts" ("created_at" DESC, "id" DESC);"#,
            r#"CREATE INDEX IF NOT EXISTS "posts_keyset_published_at_asc_nulls_last_id_asc" ON "posts" ("published_at" ASC, "id" ASC);"#,
            r#"CREATE INDEX IF NOT EXISTS "posts_keyset_author_id_asc_created_at_desc_id_desc" ON "posts" ("author_id" ASC, "created_at" DESC, "id" DESC);"#,
            r#"CREATE INDEX IF NOT EXISTS "posts_keyset_author_id_asc_published_at_asc_nulls_last_id_asc" ON "posts" ("author_id" ASC, "published_at" ASC, "id" ASC);"#,
        ]
    );
}

/// PostgreSQL's indexes place the NULLs of a nullable key; the prefix column has no clause.
#[test]
fn prefix_indexes_on_postgres() {
    assert_eq!(
        create_sql(FEED(), Backend::Postgres),
        [
            r#"CREATE INDEX IF NOT EXISTS "posts_keyset_created_at_desc_id_desc" ON "posts" ("created_at" DESC, "id" DESC);"#,
            r#"CREATE INDEX IF NOT EXISTS "posts_keyset_published_at_asc_nulls_last_id_asc" ON "posts" ("published_at" ASC NULLS LAST, "id" ASC);"#,
            r#"CREATE INDEX IF NOT EXISTS "posts_keyset_author_id_asc_created_at_desc_id_desc" ON "posts" ("author_id" ASC, "created_at" DESC, "id" DESC);"#,
            r#"CREATE INDEX IF NOT EXISTS "posts_keyset_author_id_asc_published_at_asc_nulls_last_id_asc" ON "posts" ("author_id" ASC, "published_at" ASC NULLS LAST, "id" ASC);"#,
        ]
    );
}

#[test]
fn prefix_indexes_on_mysql() {
    assert_eq!(
        create_sql(FEED(), Backend::Mysql),
        [
            "CREATE INDEX `posts_keyset_created_at_desc_id_desc` ON `posts` (`created_at` DESC, `id` DESC);",
            "CREATE INDEX `posts_keyset_published_at_asc_nulls_last_id_asc` ON `posts` (`published_at` ASC, `id` ASC);",
            "CREATE INDEX `posts_keyset_author_id_asc_created_at_desc_id_desc` ON `posts` (`author_id` ASC, `created_at` DESC, `id` DESC);",
            "CREATE INDEX `posts_keyset_author_id_asc_published_at_asc_nulls_last_id_asc` ON `posts` (`author_id` ASC, `published_at` ASC, `id` ASC);",
        ]
    );
}

/// One index serves an order and its reverse under one prefix (the prefix is one value, so its
/// direction does not matter), a prefix in another column order, and an order led by the
/// prefix column; a column of several words (`r#type`) is named as SQL names it.
#[test]
fn prefix_indexes_are_shared() {
    let names = |input: TokenStream| -> Vec<String> {
        let statements = create_sql(input, Backend::Sqlite);
        statements.iter().map(|sql| sql.split('"').nth(1).unwrap().to_owned()).collect()
    };
    assert_eq!(
        names(quote! {
            #[diesel(table_name = posts)]
            #[keyset(order(new: created_at desc, id desc), order(old: created_at asc, id asc))]
            #[keyset(prefix(tenant_id, r#type), prefix(r#type, tenant_id))]
            struct Post { #[tiebreaker] id: i64, created_at: NaiveDateTime }
        }),
        [
            "posts_keyset_created_at_desc_id_desc",
            "posts_keyset_tenant_id_asc_type_asc_created_at_desc_id_desc"
        ]
    );
    assert_eq!(
        names(quote! {
            #[diesel(table_name = posts)]
            #[keyset(order(new: created_at desc, id desc))]
            #[keyset(order(by_author: author_id desc, created_at desc, id desc))]
            #[keyset(prefix(author_id))]
            struct Post { #[tiebreaker] id: i64, created_at: NaiveDateTime, author_id: i64 }
        }),
        [
            "posts_keyset_created_at_desc_id_desc",
            "posts_keyset_author_id_desc_created_at_desc_id_desc"
        ]
    );
}

/// Every mistake of a `prefix`, each with what to write instead.
#[test]
fn prefix_mistakes() {
    let one = |input: TokenStream| {
        let errors = errors(input);
        assert_eq!(errors.len(), 1, "{errors:?}");
        errors.into_iter().next().unwrap()
    };
    let model = |option: TokenStream| {
        quote! {
            #[diesel(table_name = posts)]
            #[keyset(#option)]
            struct Post { #[sort(desc)] created_at: i64, #[sort(desc)] #[tiebreaker] id: i64 }
        }
    };
    let cases = [
        (quote!(prefix()), "`prefix()` names no column: write `prefix(author_id)`"),
        (quote!(prefix), "`prefix` takes its columns in parentheses"),
        (quote!(prefix = author_id), "`prefix` takes its columns in parentheses"),
        (quote!(prefix("author_id")), "without quotes: write `prefix(author_id)`"),
        (quote!(prefix(7)), "expected a column of the model's `table!`, found `7`"),
        (quote!(prefix(posts::author_id)), "without its table: write `prefix(author_id)`"),
        (quote!(prefix(type)), "write `prefix(r#type)`"),
        (quote!(prefix(author_id desc)), "a prefix column takes no direction"),
        (quote!(prefix(author_id tenant_id)), "separate columns with `,`"),
        (quote!(prefix(author_id, author_id)), "`author_id` is listed twice in this `prefix(..)`"),
        (quote!(prefix(a, b), prefix(a, b)), "`prefix(a, b)` is declared twice"),
        (quote!(prefx(author_id)), "did you mean `prefix`?"),
        (quote!(prefix(id)), "`id` is a sort key of every order of `Post`"),
    ];
    for (option, expected) in cases {
        let error = one(model(option.clone()));
        assert!(error.contains(expected), "`{option}`: {error}");
    }
    // A misspelled `prefix(..)` declares no order (a misspelled `order(..)` may): the rules
    // about a model without orders still apply.
    let errors = errors(quote! {
        #[diesel(table_name = posts)]
        #[keyset(prefixes(author_id))]
        struct Post { #[tiebreaker] id: i64 }
    });
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[0].contains("did you mean `prefix`?"), "{errors:?}");
    assert!(errors[1].contains("`#[tiebreaker]` needs a sort direction"), "{errors:?}");
}

/// A column that some orders sort by and others do not is no mistake; one every order sorts by
/// is, at the column; a prefix whose columns each order sorts by one of is, at the prefix.
#[test]
fn prefix_sorted_by_every_order() {
    let orders = quote! {
        #[diesel(table_name = posts)]
        #[keyset(order(top: score desc, id desc), order(new: created_at desc, id desc))]
    };
    let fields = quote!(
        struct Post {
            #[tiebreaker]
            id: i64,
            score: i32,
            created_at: i64,
        }
    );
    assert_eq!(errors(quote!(#orders #[keyset(prefix(score))] #fields)), Vec::<String>::new());
    let error = errors(quote!(#orders #[keyset(prefix(score, created_at))] #fields));
    assert_eq!(error.len(), 1, "{error:?}");
    assert!(error[0].contains("every order of `Post` sorts by a column of"), "{error:?}");
    let error = errors(quote!(#orders #[keyset(prefix(id))] #fields));
    assert!(error[0].contains("remove `id` from `prefix(..)`"), "{error:?}");
}

/// A model with a mistake still marks its prefixes, so that its feeds add no error of their own
/// to the real one; and still checks that their columns are the table's.
#[test]
fn invalid_model_still_marks_its_prefixes() {
    let output = crate::derive_keyset(quote! {
        #[diesel(table_name = posts)]
        #[keyset(prefix(author_id))]
        struct Post { #[sort(dsec)] created_at: i64, #[sort(desc)] #[tiebreaker] id: i64 }
    })
    .to_string();
    assert!(output.contains("compile_error"), "{output}");
    let mark = "impl :: keyset_runtime :: __private :: Prefix < posts :: author_id > for Post { }";
    assert!(output.contains(mark), "{output}");
    assert!(
        output.contains("assert_prefix_is_column :: < __KeysetTable , author_id >"),
        "{output}"
    );
}
