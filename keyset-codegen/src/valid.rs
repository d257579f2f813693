//! The rules that make a sort order a total order, checked before any code is generated. Each rule
//! says why it exists; each error says what to write instead.
//!
//! Two rules need the types and are generated as checks instead (see `expand`): the tiebreaker is
//! the table's primary key, and each field's type matches its column.

use quote::ToTokens;

use crate::ctxt::Ctxt;
use crate::model::{Model, SortKey};

pub fn check(cx: &mut Ctxt, model: &Model) {
    check_generics(cx, model);
    // A `#[tiebreaker]` without `#[sort]` is already an error that says to add the direction; the
    // rules about missing keys would only repeat it.
    if !model.unsorted_tiebreaker && check_has_keys(cx, model) {
        check_tiebreaker_present(cx, model);
    }
    check_tiebreakers_trailing(cx, model);
    check_unique_tiebreaker(cx, model);
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
             generated for one table and concrete column types; derive it on a struct without \
             type, lifetime or const parameters",
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
    if model.tiebreakers().next().is_some() {
        return;
    }
    let Some(last) = model.keys.last() else { return };
    let dir =
        if last.sort.parsed { last.direction().sql().to_lowercase() } else { "desc".to_owned() };
    cx.error_spanned_by(
        &last.sort.tokens,
        format!(
            "the sort order is not provably unique: no field is marked `#[tiebreaker]`, so rows \
             that tie on every sort key would be skipped or repeated across pages; end the sort \
             keys with the table's primary key marked `#[tiebreaker]`, e.g. \
             `#[sort({dir})] #[tiebreaker] id: i64`"
        ),
    );
}

/// Keys after the tiebreaker would never be consulted (the tiebreaker already decides), so the
/// tiebreaker set must be the trailing keys. Reported at each `#[tiebreaker]` that has a plain
/// sort key after it, naming the last such key so the fix is one move.
fn check_tiebreakers_trailing(cx: &mut Ctxt, model: &Model) {
    for (index, key) in model.keys.iter().enumerate() {
        let Some(tiebreaker) = &key.tiebreaker else { continue };
        let Some(after) = model.keys[index + 1..].iter().rfind(|later| later.tiebreaker.is_none())
        else {
            continue;
        };
        cx.error_spanned_by(
            &tiebreaker.tokens,
            format!(
                "`#[tiebreaker]` must be on the last sort key(s), but `{after}` is sorted after \
                 `{key}`: keys sort in field order, so move the field `{key}` below `{after}`, \
                 or drop `#[sort(..)]` from `{after}`",
                after = after.ident,
                key = key.ident,
            ),
        );
    }
}

/// A nullable column is not a unique key; `unique` vouches for one column, not for a set.
fn check_unique_tiebreaker(cx: &mut Ctxt, model: &Model) {
    let tiebreakers: Vec<&SortKey> = model.tiebreakers().collect();
    for key in &tiebreakers {
        if let Some(inner) = key.option_inner() {
            cx.error_spanned_by(
                key.ty,
                format!(
                    "the tiebreaker `{ident}` is an `Option`: a nullable column cannot be a unique \
                     key (NULLs do not compare equal, so rows with NULL would be skipped); put \
                     `#[tiebreaker]` on the primary key, which is never NULL, or make this column \
                     `NOT NULL` and write `{ident}: {inner}`",
                    ident = key.ident,
                    inner = type_name(inner),
                ),
            );
        }
        let Some(tiebreaker) = &key.tiebreaker else { continue };
        if tiebreaker.unique && tiebreakers.len() > 1 {
            cx.error_spanned_by(
                &tiebreaker.tokens,
                "`#[tiebreaker(unique)]` vouches for one unique column, but this sort order has \
                 several tiebreaker fields: keep `#[tiebreaker(unique)]` on the one unique column \
                 and remove `#[tiebreaker]` from the others, or, for a composite primary key, \
                 write plain `#[tiebreaker]` on each of its columns, in the key's order",
            );
        }
    }
}

/// The key's value is compared with its column in SQL, so the field must hold the column's value.
fn check_comparable(cx: &mut Ctxt, key: &SortKey) {
    if let Some(diesel_key) = &key.not_a_column {
        cx.error_spanned_by(
            diesel_key,
            format!(
                "`{ident}` cannot be a sort key: with `#[diesel({diesel_key})]` it does not hold the \
                 value of one column, so SQL cannot compare it with the cursor; remove \
                 `#[sort(..)]` from `{ident}` and sort by fields that map to a column, e.g. \
                 `#[sort(desc)] created_at: NaiveDateTime`",
                ident = key.ident,
            ),
        );
    }
}

/// `x < NULL` is never true and engines disagree on where NULLs sort, so a nullable key must say
/// where its NULLs go, and a non-nullable one has no NULLs to place. The runtime cannot page over
/// NULLs yet, so a nullable key that says where they go is still refused rather than accepted
/// with rows silently missing.
fn check_nulls(cx: &mut Ctxt, key: &SortKey) {
    if !key.sort.parsed || (key.tiebreaker.is_some() && key.option_inner().is_some()) {
        // The attribute's own error, or `check_unique_tiebreaker`'s, already covers this field.
        return;
    }
    let ident = key.ident;
    let dir = key.direction().sql().to_lowercase();
    match (key.option_inner(), &key.sort.nulls) {
        (Some(_), None) => cx.error_spanned_by(
            &key.sort.tokens,
            format!(
                "`{ident}` is an `Option`, so its NULL placement must be explicit: write \
                 `#[sort({dir}, nulls = last)]` or `#[sort({dir}, nulls = first)]`"
            ),
        ),
        // A nullable key with its placement: the runtime pins that placement in the ORDER BY and
        // handles NULL cursor values (see `keyset_runtime::sql::Nullable`).
        (Some(_), Some(_)) => {}
        (None, Some((_, span))) => cx.syn_error(syn::Error::new(
            *span,
            format!(
                "`{ident}` is not an `Option`, so it has no NULLs to place: write `#[sort({dir})]`"
            ),
        )),
        (None, None) => {}
    }
}

/// A type as a user writes it, `Option<i64>` rather than the token stream's `Option < i64 >`.
fn type_name(ty: &syn::Type) -> String {
    let spaced = ty.to_token_stream().to_string();
    let mut out = String::with_capacity(spaced.len());
    let mut chars = spaced.chars().peekable();
    while let Some(ch) = chars.next() {
        let next = chars.peek().copied();
        let prev = out.chars().last();
        let tight = |c: Option<char>| {
            matches!(c, Some('<' | '>' | ':' | ',' | ';' | '(' | ')' | '[' | ']'))
        };
        if ch == ' ' && (tight(next) || matches!(prev, Some('<' | ':' | '&' | '(' | '['))) {
            continue;
        }
        out.push(ch);
        if ch == ',' && next != Some(' ') {
            out.push(' ');
        }
    }
    out
}
