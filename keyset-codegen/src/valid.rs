//! The rules that make a sort order a total order, checked before any code is generated. Each rule
//! says why it exists; each error says what to write instead.
//!
//! Three rules need the types and are generated as checks instead (see `expand`): the tiebreaker
//! is the table's primary key, each field's type matches its column, and a joined table's keys
//! end with its primary key.

use quote::ToTokens;

use crate::ctxt::Ctxt;
use crate::model::{Model, SortKey};

mod joined;
mod prefix;

pub fn check(cx: &mut Ctxt, model: &Model) {
    check_generics(cx, model);
    // A `#[tiebreaker]` without `#[sort]` is already an error that says to add the direction; the
    // rules about missing keys would only repeat it.
    if !model.unsorted_tiebreaker && check_has_keys(cx, model) && !model.keys.is_empty() {
        check_tiebreaker_present(cx, model, &model.keys, Declared::Fields);
    }
    check_order(cx, &model.keys, Declared::Fields);
    check_order_names(cx, model);
    check_type_names(cx, model);
    for order in &model.orders {
        let declared = Declared::Order(&order.name);
        check_tiebreaker_present(cx, model, &order.keys, declared);
        check_order(cx, &order.keys, declared);
    }
    // Rules about a field, not about its place in an order: once per field.
    let mut seen = Vec::new();
    let every_key = model.keys.iter().chain(model.orders.iter().flat_map(|order| &order.keys));
    for key in every_key {
        if !seen.contains(&key.ident) {
            seen.push(key.ident);
            check_comparable(cx, key);
            check_nullable_tiebreaker(cx, key);
            check_joined_tiebreaker(cx, model, key);
        }
    }
    prefix::check_prefixes(cx, model);
    joined::check_joined(cx, model);
}

/// Where a list of sort keys was declared: by the fields' `#[sort(..)]`, or as a named order. The
/// rules are the same; the fix an error suggests differs.
#[derive(Clone, Copy)]
enum Declared<'a> {
    Fields,
    Order(&'a syn::Ident),
}

/// The rules every order obeys, wherever it was declared.
fn check_order(cx: &mut Ctxt, keys: &[SortKey], declared: Declared) {
    check_tiebreakers_trailing(cx, keys, declared);
    check_unique_tiebreaker(cx, keys);
    check_columns_once(cx, keys, declared);
    for key in keys {
        check_nulls(cx, key, declared);
    }
}

/// Clients choose an order by its name, and the generated enum has a variant per name.
fn check_order_names(cx: &mut Ctxt, model: &Model) {
    for (index, order) in model.orders.iter().enumerate() {
        let earlier = &model.orders[..index];
        if let Some(first) = earlier.iter().find(|first| first.name() == order.name()) {
            cx.error_spanned_by(
                &order.name,
                format!(
                    "the order `{name}` is declared twice: give each order its own name, or remove \
                     one (the first reads `{first}`)",
                    name = order.name(),
                    first = key_list(&first.keys),
                ),
            );
        } else if let Some(first) = earlier.iter().find(|first| first.variant == order.variant) {
            cx.error_spanned_by(
                &order.name,
                format!(
                    "the orders `{}` and `{}` would both be the variant `{}::{}`: rename one",
                    first.name(),
                    order.name(),
                    model.order_enum,
                    order.variant,
                ),
            );
        }
    }
}

/// A name given to a generated type names something generated, and two generated types (or one
/// and the struct) cannot share a name in one module.
fn check_type_names(cx: &mut Ctxt, model: &Model) {
    let named_only = model.keys.is_empty() && model.declared_orders > 0;
    if model.cursor_named && named_only {
        cx.error_spanned_by(
            &model.cursor,
            format!(
                "`cursor` names the cursor of the order that the fields' `#[sort(..)]` declare, \
                 but no field has `#[sort(..)]`: each named order's cursor is hidden; remove \
                 `cursor = {}`",
                model.cursor,
            ),
        );
    }
    if model.order_enum_named && model.declared_orders == 0 {
        cx.error_spanned_by(
            &model.order_enum,
            format!(
                "`order_enum` names the enum of the named orders, but this struct declares none: \
                 remove `order_enum = {}`, or declare an order, e.g. \
                 `#[keyset(order(new: created_at desc, id desc))]`",
                model.order_enum,
            ),
        );
    }
    // Each type, what it is, and the option that named it (none for a default name).
    let mut names = vec![(model.ident, "the struct", None)];
    if !named_only {
        names.push((&model.cursor, "the cursor", model.cursor_named.then_some("cursor")));
    }
    if model.declared_orders > 0 {
        let option = model.order_enum_named.then_some("order_enum");
        names.push((&model.order_enum, "the enum of the orders", option));
    }
    for (index, later) in names.iter().enumerate() {
        let Some(earlier) = names[..index].iter().find(|earlier| earlier.0 == later.0) else {
            continue;
        };
        // Reported at the name the user wrote, which they can change.
        let (named, other) = if later.2.is_some() { (later, earlier) } else { (earlier, later) };
        let Some(option) = named.2 else { continue };
        cx.error_spanned_by(
            named.0,
            format!(
                "{what} would be named `{name}`, as {other} is: a module holds one type of each \
                 name; give `{option} = ..` another name",
                what = named.1,
                name = named.0,
                other = other.1,
            ),
        );
    }
}

/// `score desc, id desc`, as an order's keys are written.
fn key_list(keys: &[SortKey]) -> String {
    let words: Vec<String> = keys
        .iter()
        .map(|key| format!("{} {}", key.ident, key.direction().sql().to_lowercase()))
        .collect();
    words.join(", ")
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
    if model.keys.is_empty() && model.declared_orders == 0 {
        cx.error_spanned_by(
            model.ident,
            "`#[derive(Keyset)]` needs at least one `#[sort(..)]` field, ending with the primary \
             key as tiebreaker: e.g. `#[sort(desc)] created_at: NaiveDateTime` and \
             `#[sort(desc)] #[tiebreaker] id: i64`; or name orders on the struct, \
             `#[keyset(order(new: created_at desc, id desc))]`",
        );
        return false;
    }
    true
}

/// Without a unique last key, rows that tie on every sort value straddle a page boundary and are
/// skipped or repeated.
fn check_tiebreaker_present(cx: &mut Ctxt, model: &Model, keys: &[SortKey], declared: Declared) {
    if keys.iter().any(|key| key.tiebreaker.is_some()) {
        return;
    }
    let Some(last) = keys.last() else { return };
    let dir =
        if last.sort.parsed { last.direction().sql().to_lowercase() } else { "desc".to_owned() };
    let message = match declared {
        Declared::Fields => format!(
            "the sort order is not provably unique: no field is marked `#[tiebreaker]`, so rows \
             that tie on every sort key would be skipped or repeated across pages; end the sort \
             keys with the table's primary key marked `#[tiebreaker]`, e.g. \
             `#[sort({dir})] #[tiebreaker] id: i64`"
        ),
        // The order ends with a field no attribute calls unique: the primary key, as a rule,
        // which only `#[tiebreaker]` says it is.
        Declared::Order(name) if model.tiebreakers.is_empty() => format!(
            "the order `{name}` is not provably unique: it ends with `{last}`, but no field is \
             marked `#[tiebreaker]`, so nothing says that `{last}` is unique; if it is the \
             table's primary key, mark the field: `#[tiebreaker] {last}: ..` (each field of a \
             composite key, in its order); else end the order with the primary key's field, \
             marked so",
            last = last.ident,
        ),
        Declared::Order(name) => format!(
            "the order `{name}` is not provably unique: it does not end with a `#[tiebreaker]` \
             field, so rows that tie on every key would be skipped or repeated across pages; end \
             it with {them}: `order({name}: {keys}{ending})`",
            them = if model.tiebreakers.len() > 1 {
                "the `#[tiebreaker]` fields"
            } else {
                "the `#[tiebreaker]` field"
            },
            keys = key_list(keys),
            ending = model
                .tiebreakers
                .iter()
                .map(|field| format!(", {field} {dir}"))
                .collect::<String>(),
        ),
    };
    cx.error_spanned_by(&last.sort.tokens, message);
}

/// Keys after the tiebreaker would never be consulted (the tiebreaker already decides), so the
/// tiebreaker set must be the trailing keys. Reported at each `#[tiebreaker]` that has a plain
/// sort key after it, naming the last such key so the fix is one move.
fn check_tiebreakers_trailing(cx: &mut Ctxt, keys: &[SortKey], declared: Declared) {
    for (index, key) in keys.iter().enumerate() {
        let Some(tiebreaker) = &key.tiebreaker else { continue };
        let Some(after) = keys[index + 1..].iter().rfind(|later| later.tiebreaker.is_none()) else {
            continue;
        };
        let (after, key) = (after.ident, key.ident);
        match declared {
            Declared::Fields => cx.error_spanned_by(
                &tiebreaker.tokens,
                format!(
                    "`#[tiebreaker]` must be on the last sort key(s), but `{after}` is sorted after \
                     `{key}`: keys sort in field order, so move the field `{key}` below `{after}`, \
                     or drop `#[sort(..)]` from `{after}`"
                ),
            ),
            Declared::Order(name) => cx.error_spanned_by(
                &keys[index].sort.tokens,
                format!(
                    "the tiebreaker `{key}` must be the last key of the order `{name}`, but `{after}` \
                     comes after it: keys after a unique key are never consulted; list `{key}` last"
                ),
            ),
        }
    }
}

/// A column sorted twice says nothing the first time did not, and names it twice in the index:
/// two fields mapped to one column with `#[diesel(column_name = ..)]`, or a field listed twice.
fn check_columns_once(cx: &mut Ctxt, keys: &[SortKey], declared: Declared) {
    for (index, key) in keys.iter().enumerate() {
        let column = key.column_name();
        let Some(first) = keys[..index].iter().find(|first| first.column_name() == column) else {
            continue;
        };
        let message = if first.ident == key.ident {
            match declared {
                Declared::Fields => continue,
                Declared::Order(name) => format!(
                    "`{field}` is listed twice in the order `{name}`: a column sorts once; remove \
                     this one",
                    field = key.ident,
                ),
            }
        } else {
            format!(
                "`{field}` sorts by the column `{column}`, which the field `{first}` already sorts \
                 by: a column sorts once; remove one of the two keys, or point `{field}` at another column \
                 with `#[diesel(column_name = ..)]`",
                field = key.ident,
                first = first.ident,
            )
        };
        cx.error_spanned_by(&key.sort.tokens, message);
    }
}

/// A nullable column is not a unique key; `unique` vouches for one column, not for a set.
fn check_unique_tiebreaker(cx: &mut Ctxt, keys: &[SortKey]) {
    let tiebreakers = keys.iter().filter(|key| key.tiebreaker.is_some()).count();
    for key in keys {
        let Some(tiebreaker) = &key.tiebreaker else { continue };
        if tiebreaker.unique && tiebreakers > 1 {
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

/// A nullable column is not a unique key: NULLs do not compare equal.
fn check_nullable_tiebreaker(cx: &mut Ctxt, key: &SortKey) {
    let (Some(_), Some(inner)) = (&key.tiebreaker, key.option_inner()) else { return };
    cx.error_spanned_by(
        key.ty,
        format!(
            "the tiebreaker `{ident}` is an `Option`: a nullable column cannot be a unique \
             key (NULLs do not compare equal, so rows with NULL would be skipped); put \
             `#[tiebreaker]` on the primary key, which is never NULL, or make this column \
             `NOT NULL` (in a migration, then regenerate the schema, so that `table!` declares \
             it without `Nullable<..>`) and write `{ident}: {inner}`",
            ident = key.ident,
            inner = type_name(inner),
        ),
    );
}

/// A column of a joined table can sort, but not break ties: the tiebreaker is unique among the
/// model's rows only as a column of the model's table (its primary key), which a many-to-one join
/// keeps unique. A joined table's key repeats once per row that joins it.
fn check_joined_tiebreaker(cx: &mut Ctxt, model: &Model, key: &SortKey) {
    let (Some(tiebreaker), Some(joined)) = (&key.tiebreaker, &key.joined) else {
        return;
    };
    cx.error_spanned_by(
        &tiebreaker.tokens,
        format!(
            "the tiebreaker `{ident}` is the column `{column}` of `{joined}`, another table: a \
             tiebreaker must be unique among the rows of `{table}`, and a joined column repeats \
             for every row that joins it; sort by `{ident}` and put `#[tiebreaker]` on the \
             primary key of `{table}`, e.g. `#[sort(asc)] #[tiebreaker] id: i64`",
            ident = key.ident,
            column = key.column_name(),
            joined = joined.to_token_stream().to_string().replace(' ', ""),
            table = model.table_name(),
        ),
    );
}

/// The key's value is compared with its column in SQL, so the field must hold the column's value.
fn check_comparable(cx: &mut Ctxt, key: &SortKey) {
    if let Some(diesel_key) = &key.not_a_column {
        // An expression is refused, a bare column (of this table or a joined one) is not.
        let columns = match diesel_key == "select_expression" {
            true => " (a bare column is one: `select_expression = authors::name`)",
            false => "",
        };
        cx.error_spanned_by(
            diesel_key,
            format!(
                "`{ident}` cannot be a sort key: with `#[diesel({diesel_key})]` it does not hold the \
                 value of one column, so SQL cannot compare it with the cursor, nor an index serve \
                 it; remove `#[sort(..)]` from `{ident}` and sort by fields that map to a \
                 column{columns}, e.g. `#[sort(desc)] created_at: NaiveDateTime`",
                ident = key.ident,
            ),
        );
    }
}

/// `x < NULL` is never true and engines disagree on where NULLs sort, so a nullable key must say
/// where its NULLs go, and a non-nullable one has no NULLs to place. The runtime cannot page over
/// NULLs yet, so a nullable key that says where they go is still refused rather than accepted
/// with rows silently missing.
fn check_nulls(cx: &mut Ctxt, key: &SortKey, declared: Declared) {
    if !key.sort.parsed || (key.tiebreaker.is_some() && key.option_inner().is_some()) {
        // The attribute's own error, or `check_nullable_tiebreaker`'s, already covers this field.
        return;
    }
    let ident = key.ident;
    let dir = key.direction().sql().to_lowercase();
    let (with_nulls, without) = match declared {
        Declared::Fields => (
            format!("`#[sort({dir}, nulls = last)]` or `#[sort({dir}, nulls = first)]`"),
            format!("`#[sort({dir})]`"),
        ),
        Declared::Order(_) => (
            format!("`{ident} {dir} nulls last` or `{ident} {dir} nulls first`"),
            format!("`{ident} {dir}`"),
        ),
    };
    match (key.option_inner(), &key.sort.nulls) {
        (Some(_), None) => cx.error_spanned_by(
            &key.sort.tokens,
            format!("`{ident}` is an `Option`, so its NULL placement must be explicit: write {with_nulls}"),
        ),
        // A nullable key with its placement: the runtime pins that placement in the ORDER BY and
        // handles NULL cursor values (see `Nullable` in keyset-runtime's `sql` module).
        (Some(_), Some(_)) => {}
        (None, Some((_, span))) => cx.syn_error(syn::Error::new(
            *span,
            format!(
                "`{ident}` is not an `Option`, so it has no NULLs to place: write {without}; if its \
                 column is nullable, make the field an `Option<..>`"
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
