//! A model the derive refuses, or a source that does not parse, writes no migration: the writer
//! read the other models only, and a migration written from them would drop the refused model's
//! indexes (a build that fails to compile would write an outage, and the fix would write the
//! indexes back). Each test starts from a valid model whose migration is written, breaks it in
//! one of the ways the derive refuses, and checks that the writer, `check` and a build in
//! either mode write nothing and say why.

use super::*;

const VALID: &str = r#"
    #[derive(Queryable, Selectable, Keyset)]
    #[diesel(table_name = posts)]
    #[keyset(order(due: due asc nulls last, id asc), order(top: score desc, id desc))]
    pub struct Post {
        #[sort(desc)] created_at: NaiveDateTime,
        #[sort(desc)] #[tiebreaker] id: i64,
        score: i32,
        due: Option<NaiveDateTime>,
    }
"#;

/// `VALID` with `from` replaced by `to`, which must occur in it.
fn broken(from: &str, to: &str) -> String {
    assert!(VALID.contains(from), "`{from}` is not in the model");
    VALID.replace(from, to)
}

/// The model's migration written, then `source` in its place: nothing is written, and every
/// way of running the writer says why, with each of `reasons`.
fn writes_nothing(name: &str, source: &str, reasons: &[&str]) {
    let scratch = Scratch::new(&format!("refused-{name}"));
    scratch.model(VALID);
    let migrations = scratch.migrations(Backend::Postgres);
    assert_eq!(migrations.write().unwrap().folders.len(), 1);
    let before = scratch.folders();

    scratch.model(source);
    let says_why = |text: &str| {
        assert!(text.contains("models.rs"), "names the file: {text}");
        for reason in reasons {
            assert!(text.contains(reason), "says `{reason}`: {text}");
        }
    };
    let err = migrations.write().unwrap_err();
    let MigrationError::Refused { refusals } = &err else { panic!("{err:?}") };
    assert_eq!(refusals.len(), 1, "{refusals:?}");
    assert!(refusals[0].file.ends_with("src/models.rs"), "{refusals:?}");
    let parses = syn::parse_file(source).is_ok();
    assert_eq!(refusals[0].model.as_deref(), parses.then_some("Post"), "{refusals:?}");
    let err = err.to_string();
    says_why(&err);
    assert!(err.contains("wrote and checked no migration"), "{err}");
    assert_eq!(scratch.folders(), before, "write wrote nothing");
    let err = migrations.check().unwrap_err();
    assert!(matches!(err, MigrationError::Refused { .. }), "{err:?}");
    let err = err.to_string();
    says_why(&err);
    assert!(!err.contains("DROP") && !err.contains("- CREATE"), "no drop proposed: {err}");
    assert!(migrations.changes().is_err() && migrations.wanted().is_err());

    // A build in write mode warns (the compiler reports the model) and writes nothing.
    let (result, out) = build_script(&migrations, Mode::Write);
    result.unwrap();
    assert!(out.contains("cargo:warning=keyset wrote no migration"), "{out}");
    says_why(&out);
    assert!(!out.contains("keyset wrote the migration"), "{out}");
    assert_eq!(scratch.folders(), before, "the build wrote nothing");
    // A build in check mode cannot vouch for the migrations: it fails, and says why.
    let (result, _) = build_script(&migrations, Mode::Check);
    says_why(&result.unwrap_err().to_string());

    // Fixed: the migrations were right all along.
    scratch.model(VALID);
    assert_eq!(migrations.write().unwrap(), Written::default());
    migrations.check().unwrap();
    assert_eq!(scratch.folders(), before);
}

#[test]
fn missing_tiebreaker_in_the_field_order() {
    writes_nothing(
        "tiebreaker",
        &broken("#[sort(desc)] #[tiebreaker] id", "#[sort(desc)] id"),
        &["`Post`", "the sort order is not provably unique"],
    );
}

#[test]
fn missing_tiebreaker_in_a_named_order() {
    writes_nothing(
        "order-tiebreaker",
        &broken("order(top: score desc, id desc)", "order(top: score desc)"),
        &["`Post`", "the order `top` is not provably unique"],
    );
}

/// The issue's case: a build that failed on this model wrote four `DROP INDEX` lines.
#[test]
fn option_key_without_null_placement_in_a_named_order() {
    writes_nothing(
        "order-nulls",
        &broken("due asc nulls last", "due asc"),
        &["`Post`", "`due` is an `Option`, so its NULL placement must be explicit"],
    );
}

#[test]
fn option_key_without_null_placement_in_the_field_order() {
    writes_nothing(
        "field-nulls",
        &broken("created_at: NaiveDateTime", "created_at: Option<NaiveDateTime>"),
        &["`created_at` is an `Option`, so its NULL placement must be explicit"],
    );
}

#[test]
fn null_placement_on_a_key_that_is_not_an_option() {
    writes_nothing(
        "needless-nulls",
        &broken("#[sort(desc)] created_at", "#[sort(desc, nulls = last)] created_at"),
        &["`created_at` is not an `Option`, so it has no NULLs to place"],
    );
}

#[test]
fn unknown_field_in_a_named_order() {
    writes_nothing(
        "unknown-field",
        &broken("score desc", "scroe desc"),
        &["`scroe` is not a field of this struct: did you mean `score`?"],
    );
}

#[test]
fn misspelled_sort_direction() {
    writes_nothing(
        "direction",
        &broken("#[sort(desc)] created_at", "#[sort(dsec)] created_at"),
        &["unknown `#[sort]` argument `dsec`: did you mean `desc`?"],
    );
}

#[test]
fn unknown_keyset_option() {
    writes_nothing(
        "option",
        &broken("#[keyset(order(due", "#[keyset(ordre(due"),
        &["unknown `#[keyset]` option `ordre`: did you mean `order`?"],
    );
}

/// rustc reports a misspelled attribute, and the derive adds nothing of its own; the writer
/// still names it.
#[test]
fn misspelled_attribute_left_to_rustc() {
    writes_nothing(
        "misspelled",
        &broken("#[tiebreaker] id", "#[tiebraker] id"),
        &["`Post`", "`#[tiebraker]` is not an attribute: did you mean `#[tiebreaker]`?"],
    );
}

#[test]
fn duplicate_order_names() {
    writes_nothing(
        "duplicate-order",
        &broken("order(top:", "order(due:"),
        &["the order `due` is declared twice"],
    );
}

#[test]
fn tiebreaker_before_another_key() {
    writes_nothing(
        "trailing",
        &broken("order(top: score desc, id desc)", "order(top: id desc, score desc)"),
        &["the tiebreaker `id` must be the last key of the order `top`"],
    );
}

#[test]
fn a_column_sorted_twice() {
    writes_nothing(
        "twice",
        &broken("order(top: score desc, id desc)", "order(top: score desc, score asc, id desc)"),
        &["`score` is listed twice in the order `top`"],
    );
}

#[test]
fn nullable_tiebreaker() {
    writes_nothing(
        "nullable-tiebreaker",
        &broken("#[tiebreaker] id: i64", "#[tiebreaker] id: Option<i64>"),
        &["the tiebreaker `id` is an `Option`"],
    );
}

#[test]
fn generic_struct() {
    writes_nothing(
        "generic",
        &broken("pub struct Post {", "pub struct Post<T> {"),
        &["`#[derive(Keyset)]` does not support generic structs"],
    );
}

/// Not a struct: the derive refuses an enum, so it is a refused model, not a model gone.
#[test]
fn an_enum() {
    writes_nothing(
        "enum",
        "#[derive(Keyset)] #[diesel(table_name = posts)] pub enum Post { Draft }",
        &["`Post`", "works on a struct with named fields, not on an enum"],
    );
}

#[test]
fn a_source_that_does_not_parse() {
    writes_nothing(
        "unparsable",
        &broken("pub struct Post {", "pub struct Post { fn"),
        &["does not parse as Rust"],
    );
}

/// A refused model in one file stops the whole run: the other file's changed model is not
/// written either, since the writer cannot tell what the refused one needs.
#[test]
fn a_refused_model_stops_the_run_for_every_file() {
    let scratch = Scratch::new("refused-other-file");
    scratch.model(VALID);
    let migrations = scratch.migrations(Backend::Sqlite);
    migrations.write().unwrap();
    let before = scratch.folders();
    scratch.model(&broken("#[sort(desc)] created_at", "#[sort(asc)] created_at"));
    fs::write(scratch.0.join("src/drafts.rs"), COMMENTS.replace("#[tiebreaker] ", "")).unwrap();
    let err = migrations.write().unwrap_err();
    let MigrationError::Refused { refusals } = &err else { panic!("{err:?}") };
    assert_eq!(refusals.len(), 1, "only the refused model is named: {refusals:?}");
    assert!(refusals[0].file.ends_with("src/drafts.rs"), "{refusals:?}");
    assert_eq!(refusals[0].model.as_deref(), Some("Comment"));
    assert_eq!(scratch.folders(), before);
    // Once it is fixed, the change is written.
    fs::write(scratch.0.join("src/drafts.rs"), COMMENTS).unwrap();
    let written = migrations.table_created_elsewhere("comments").write().unwrap();
    assert_eq!(written.folders.len(), 1);
    let up = read(&written.folders[0].join("up.sql"));
    assert!(up.contains("posts_keyset_created_at_asc_id_desc"), "{up}");
}
