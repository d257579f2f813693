//! The rules of a joined table's keys (`#[diesel(select_expression = authors::name)]`).
//!
//! A joined column can sort, and an order of joined keys seeks when a page can walk the joined
//! table's index and, for each joined row, the model's rows by an index of the model's table:
//! the joined keys lead the order, come from one table, and end with its primary key (that
//! needs the types: `expand::checks` generates it), and the model declares the column that
//! joins them as an equality prefix, `#[keyset(prefix(author_id))]`, which leads the index each
//! joined row's rows are read by. Any other order of joined keys gives no index walk: each page
//! reads every row the join matches past the cursor and sorts them. Such an order is kept only
//! where the struct says so, `#[keyset(reads_and_sorts)]`.

use super::Declared;
use crate::ctxt::Ctxt;
use crate::model::{Model, SortKey};

const OPT_IN: &str = "or write `#[keyset(reads_and_sorts)]` on the struct to keep this order, \
     whose pages read every row the join matches past the cursor and sort them";

pub(super) fn check_joined(cx: &mut Ctxt, model: &Model) {
    let orders = std::iter::once((&model.keys[..], Declared::Fields))
        .chain(model.orders.iter().map(|order| (&order.keys[..], Declared::Order(&order.name))));
    let joined: Vec<(&[SortKey], Declared)> =
        orders.filter(|(keys, _)| keys.iter().any(|key| key.joined.is_some())).collect();
    if let Some(span) = model.reads_and_sorts {
        if joined.is_empty() {
            cx.syn_error(syn::Error::new(
                span,
                "`reads_and_sorts` keeps orders of a joined table's columns, and no order of this \
                 struct sorts by one: remove it",
            ));
        }
        return;
    }
    for (keys, declared) in &joined {
        check_lead(cx, model, keys, *declared);
    }
    // An order of joined keys only has no rows of the model's to read per joined row (and no
    // tiebreaker of the model's table, which the derive says).
    let reads_own = |(keys, _): &&(&[SortKey], Declared)| keys.iter().any(|k| k.joined.is_none());
    if let (Some((keys, _)), true) = (joined.iter().find(reads_own), model.prefixes.is_empty()) {
        let Some(first) = keys.iter().find(|key| key.joined.is_some()) else { return };
        let joined_table = first.joined_table().unwrap_or_default();
        cx.error_spanned_by(
            &first.sort.tokens,
            format!(
                "`{ident}` sorts by `{column}` of the joined table `{joined_table}`: a page walks \
                 an index of `{joined_table}` and reads the `{table}` of each of its rows by an \
                 index led by the column that joins them, which the struct declares as an \
                 equality prefix: write `#[keyset(prefix(author_id))]` with that column of \
                 `{table}`; {OPT_IN}",
                ident = first.ident,
                column = first.column_name(),
                table = model.table_name(),
            ),
        );
    }
}

/// The joined keys lead the order and come from one table.
fn check_lead(cx: &mut Ctxt, model: &Model, keys: &[SortKey], declared: Declared) {
    let lead = keys.iter().take_while(|key| key.joined.is_some()).count();
    let lead_table = keys.first().and_then(SortKey::joined_table);
    for (i, key) in keys.iter().enumerate() {
        if key.joined.is_none() || (i < lead && key.joined_table() == lead_table) {
            continue;
        }
        let where_ = match declared {
            Declared::Fields => "in the struct's field order".to_owned(),
            Declared::Order(name) => format!("in the order `{name}`"),
        };
        let why = if i < lead {
            format!(
                "after the keys of `{}`: an order seeks on the columns of one joined table",
                lead_table.unwrap_or_default()
            )
        } else {
            format!(
                "after `{}` of `{}`: an order seeks on a joined table's columns only when they \
                 lead it",
                keys[i - 1].column_name(),
                model.table_name()
            )
        };
        cx.error_spanned_by(
            &key.sort.tokens,
            format!(
                "`{ident}` sorts by `{column}` of the joined table `{joined}` {where_}, {why} \
                 (a page walks the joined table's index, then the `{table}` of each of its rows \
                 by an index of `{table}`); put the keys of one joined table first, ending with \
                 its primary key, {OPT_IN}",
                ident = key.ident,
                column = key.column_name(),
                joined = key.joined_table().unwrap_or_default(),
                table = model.table_name(),
            ),
        );
        return;
    }
}
