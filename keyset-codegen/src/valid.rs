//! The rules that make a sort order a total order, checked before any code is generated. Each rule
//! says why it exists; each error says what to write instead.

use quote::ToTokens;

use crate::ctxt::Ctxt;
use crate::model::{Model, SortKey};

pub fn check(cx: &mut Ctxt, model: &Model) {
    check_generics(cx, model);
    if check_has_keys(cx, model) {
        check_tiebreaker_present(cx, model);
        check_tiebreakers_trailing(cx, model);
        check_unique_tiebreaker(cx, model);
    }
    for key in &model.keys {
        check_comparable(cx, key);
        check_nulls(cx, key);
    }
}

/// The cursor struct and the SQL are generated for one table and concrete column types; a type
/// parameter could stand for anything, so the order could not be checked.
fn check_generics(cx: &mut Ctxt, model: &Model) {
    if !model.generics.params.is_empty() {
        cx.error_spanned_by(
            model.generics,
            "`#[derive(Keyset)]` does not support generic structs: the cursor and the SQL are \
             generated for one table and concrete column types; derive it on a concrete struct",
        );
    }
}

/// Keyset pagination needs something to seek on.
fn check_has_keys(cx: &mut Ctxt, model: &Model) -> bool {
    if model.keys.is_empty() {
        cx.error_spanned_by(
            model.ident,
            "`#[derive(Keyset)]` needs at least one `#[sort(..)]` field, ending with the primary \
             key as tiebreaker: e.g. `#[sort(desc)] created_at: NaiveDateTime` and \
             `#[sort(desc)] #[tiebreaker] id: i64`",
        );
        return false;
    }
    true
}

/// Without a unique last key, rows that tie on every sort value straddle a page boundary and are
/// skipped or repeated.
fn check_tiebreaker_present(cx: &mut Ctxt, model: &Model) {
    if model.tiebreakers().next().is_none() {
        let last = model.keys.last().expect("checked non-empty");
        cx.syn_error(syn::Error::new(
            last.sort.span,
            format!(
                "the sort order is not provably unique: the last `#[sort]` field must be the \
                 `#[tiebreaker]`; add `#[tiebreaker]` to the primary key column, e.g. \
                 `#[sort({})] #[tiebreaker] id: i64` (rows that tie on `{}` would otherwise be \
                 skipped or repeated across pages)",
                last.direction().sql().to_lowercase(),
                last.ident,
            ),
        ));
    }
}

/// Keys after the tiebreaker would never be consulted (the tiebreaker already decides), and keys
/// before it that are not tiebreakers must come first: the tiebreaker set is the trailing keys.
fn check_tiebreakers_trailing(cx: &mut Ctxt, model: &Model) {
    let Some(first) = model.keys.iter().position(|key| key.tiebreaker.is_some()) else {
        return;
    };
    let later_plain: Vec<&SortKey> =
        model.keys[first..].iter().filter(|key| key.tiebreaker.is_none()).collect();
    if let Some(after) = later_plain.last() {
        for key in model.keys[first..].iter().filter(|key| key.tiebreaker.is_some()) {
            let span = key.tiebreaker.as_ref().expect("filtered").span;
            cx.syn_error(syn::Error::new(
                span,
                format!(
                    "`#[tiebreaker]` must be on the last sort key(s), but `{}` is sorted after \
                     `{}`: move the tiebreaker field `{}` below `{}` (sort keys are ordered as \
                     the fields are)",
                    after.ident, key.ident, key.ident, after.ident,
                ),
            ));
        }
    }
}

/// A nullable column is not a unique key; `unique` vouches for one column, not for a set.
fn check_unique_tiebreaker(cx: &mut Ctxt, model: &Model) {
    let tiebreakers: Vec<&SortKey> = model.tiebreakers().collect();
    for key in &tiebreakers {
        if key.option_inner().is_some() {
            cx.error_spanned_by(
                key.ty,
                format!(
                    "the tiebreaker `{}` is an `Option`: a nullable column cannot be a unique key \
                     (NULLs do not compare equal); use the primary key, which is never NULL",
                    key.ident
                ),
            );
        }
        let tiebreaker = key.tiebreaker.as_ref().expect("filtered");
        if tiebreaker.unique && tiebreakers.len() > 1 {
            cx.syn_error(syn::Error::new(
                tiebreaker.span,
                "`#[tiebreaker(unique)]` vouches for one unique column; a tiebreaker made of \
                 several columns must be the table's composite primary key: write `#[tiebreaker]` \
                 on each of its columns, in the primary key's order",
            ));
        }
    }
}

/// The key's value is compared with its column in SQL, so the field must hold the column's value.
fn check_comparable(cx: &mut Ctxt, key: &SortKey) {
    if let Some(diesel_key) = &key.not_a_column {
        cx.error_spanned_by(
            diesel_key,
            format!(
                "`{}` cannot be a sort key: with `#[diesel({diesel_key})]` the field is not a plain \
                 column value that SQL can compare; sort by a plain column field instead",
                key.ident
            ),
        );
    }
}

/// `x < NULL` is never true and engines disagree on where NULLs sort, so a nullable key must say
/// where its NULLs go, and a non-nullable one has no NULLs to place.
fn check_nulls(cx: &mut Ctxt, key: &SortKey) {
    let dir = key.direction().sql().to_lowercase();
    match (key.option_inner(), &key.sort.nulls) {
        (Some(_), None) if key.tiebreaker.is_none() => cx.syn_error(syn::Error::new(
            key.sort.span,
            format!(
                "`{}` is an `Option`, so its NULL placement must be explicit: write \
                 `#[sort({dir}, nulls = last)]` or `#[sort({dir}, nulls = first)]`",
                key.ident
            ),
        )),
        (Some(_), Some((_, span))) => cx.syn_error(syn::Error::new(
            *span,
            format!(
                "nullable sort keys (`{}: {}`) are not supported yet: sort by non-nullable \
                 columns, or filter out NULLs and use the inner type",
                key.ident,
                key.ty.to_token_stream()
            ),
        )),
        (None, Some((_, span))) => cx.syn_error(syn::Error::new(
            *span,
            format!(
                "`{}` is not an `Option`, so it has no NULLs to place: write `#[sort({dir})]`",
                key.ident
            ),
        )),
        _ => {}
    }
}
