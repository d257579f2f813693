//! The rule of `#[keyset(prefix(..))]`: a prefix leads the index of an order, so it is made of
//! other columns than the order's keys (an index holds a column once). An order that sorts by a
//! prefix column gets no index of that prefix (see `Index::for_model`); a prefix that leads no
//! order's index at all is refused, since it would declare an index that is never written.

use syn::Ident;

use crate::ctxt::Ctxt;
use crate::model::{Model, SortKey};

pub(super) fn check_prefixes(cx: &mut Ctxt, model: &Model) {
    let orders: Vec<&[SortKey]> = model.indexed_orders().collect();
    if orders.is_empty() {
        return;
    }
    let sorts_by = |keys: &[SortKey], column: &Ident| keys.iter().any(|key| key.column == *column);
    for prefix in &model.prefixes {
        let leads = |keys: &&[SortKey]| !prefix.iter().any(|column| sorts_by(keys, column));
        if orders.iter().any(leads) {
            continue;
        }
        let sorted_by_all: Vec<&Ident> = prefix
            .iter()
            .filter(|column| orders.iter().all(|keys| sorts_by(keys, column)))
            .collect();
        let ident = model.ident;
        for column in &sorted_by_all {
            let shown = column.to_string();
            let shown = shown.trim_start_matches("r#");
            cx.error_spanned_by(
                column,
                format!(
                    "`{shown}` is a sort key of every order of `{ident}`: an equality prefix is \
                     made of other columns than the order's keys, since it leads an index of \
                     the order's keys and an index holds a column once; remove `{column}` from \
                     `prefix(..)`. A listing that filters on `{shown} = ..` and sorts by \
                     `{shown}` first needs no prefix: its order's index already leads with it"
                ),
            );
        }
        if sorted_by_all.is_empty() {
            let words: Vec<String> = prefix.iter().map(Ident::to_string).collect();
            cx.error_spanned_by(
                &prefix[0],
                format!(
                    "every order of `{ident}` sorts by a column of `prefix({})`, so it leads no \
                     index: an equality prefix is made of other columns than the order's keys, \
                     since an index holds a column once; remove the sorted columns from this \
                     prefix",
                    words.join(", ")
                ),
            );
        }
    }
}
