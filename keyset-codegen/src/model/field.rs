//! One field's attributes, ours and Diesel's, read into [`FieldAttrs`], each mistake recorded.

use syn::{Field, Ident, Type};

use super::SortKey;
use crate::attr::{self, DieselField, Nulls, SortAttr, TiebreakerAttr};
use crate::ctxt::Ctxt;
use crate::spelling::misspelling_of;

/// What our attributes and Diesel's say about one field.
pub(super) struct FieldAttrs<'a> {
    pub(super) ident: &'a Ident,
    pub(super) ty: &'a Type,
    pub(super) column: Ident,
    pub(super) sort: Option<SortAttr>,
    pub(super) tiebreaker: Option<TiebreakerAttr>,
    pub(super) not_a_column: Option<Ident>,
    pub(super) joined: Option<syn::Path>,
}

impl<'a> FieldAttrs<'a> {
    /// Reads one named field's attributes, recording every mistake in them.
    pub(super) fn from_field(cx: &mut Ctxt, field: &'a Field) -> Option<FieldAttrs<'a>> {
        let mut sort = None;
        let mut tiebreaker = None;
        let mut diesel = DieselField::default();
        for attr in &field.attrs {
            if attr.path().is_ident("sort") {
                if let Some(first) = &sort {
                    cx.error_spanned_by(attr, duplicate_sort(first));
                    continue;
                }
                match SortAttr::parse(attr) {
                    Ok(parsed) => sort = Some(parsed),
                    // Still a sort key for the rules below; the direction is unknown but the
                    // error is recorded, so expansion never runs with this placeholder.
                    Err(err) => {
                        cx.syn_error(err);
                        sort = Some(SortAttr::unparsed(attr));
                    }
                }
            } else if attr.path().is_ident("tiebreaker") {
                if tiebreaker.is_some() {
                    cx.error_spanned_by(
                        attr,
                        "this field already has a `#[tiebreaker]`: keep one, `#[tiebreaker]` or \
                         `#[tiebreaker(unique)]`",
                    );
                    continue;
                }
                match TiebreakerAttr::parse(attr) {
                    Ok(parsed) => tiebreaker = Some(parsed),
                    Err(err) => {
                        cx.syn_error(err);
                        tiebreaker = Some(TiebreakerAttr::unparsed(attr));
                    }
                }
            } else if attr.path().is_ident("keyset") {
                cx.error_spanned_by(
                    attr,
                    "`#[keyset(..)]` goes on the struct, not on a field: write \
                     `#[keyset(max_token_len = 4096)]` above `struct ..`",
                );
            } else if attr.path().is_ident("diesel") {
                if let Err(err) = attr::parse_diesel_field(attr, &mut diesel) {
                    cx.syn_error(err);
                }
            } else if let Some(meant) = misspelled(attr, &["sort", "tiebreaker", "keyset"]) {
                // `#[srot(desc)]`, `#[tiebraker]`: rustc reports them and suggests the right
                // name. The field counts as having the attribute meant, so that no rule reports
                // its absence ("missing tiebreaker") as if it were another mistake.
                cx.left_to_rustc(misspelled_reason(attr, meant));
                match meant {
                    "sort" if sort.is_none() => sort = Some(SortAttr::unparsed(attr)),
                    "tiebreaker" if tiebreaker.is_none() => {
                        tiebreaker = Some(TiebreakerAttr::unparsed(attr));
                    }
                    _ => {}
                }
            }
        }
        let ident = field.ident.as_ref()?;
        // `select_expression = authors::name`: the column `name` of the table module `authors`.
        let (column, joined) = match diesel.column_path {
            Some(mut path) => {
                let column = path.segments.pop().map(|pair| pair.into_value().ident);
                path.segments.pop_punct();
                (column, Some(path))
            }
            None => (None, None),
        };
        Some(FieldAttrs {
            ident,
            ty: &field.ty,
            column: column.or(diesel.column_name).unwrap_or_else(|| ident.clone()),
            sort,
            tiebreaker,
            not_a_column: diesel.not_a_column,
            joined,
        })
    }

    /// The field as a sort key sorted by `sort`.
    pub(super) fn key(&self, sort: SortAttr) -> SortKey<'a> {
        SortKey {
            ident: self.ident,
            ty: self.ty,
            column: self.column.clone(),
            sort,
            tiebreaker: self.tiebreaker.clone(),
            not_a_column: self.not_a_column.clone(),
            joined: self.joined.clone(),
        }
    }
}

/// Which of `names` the attribute's name misspells (`srot` for `sort`, `Sort`), if any: an
/// attribute no derive knows, which rustc reports. Other derives' attributes (`serde`, `doc`)
/// are not near any of ours.
pub(super) fn misspelled(attr: &syn::Attribute, names: &[&'static str]) -> Option<&'static str> {
    let word = attr.path().get_ident()?.to_string();
    if names.contains(&word.as_str()) {
        return None;
    }
    names.iter().copied().find(|name| misspelling_of(&word, name))
}

/// Why a misspelled attribute makes the model invalid, in words, for the migration writer (the
/// derive leaves it to rustc): `` `#[srot]` is not an attribute: did you mean `#[sort]`? ``.
pub(super) fn misspelled_reason(attr: &syn::Attribute, meant: &str) -> String {
    let word = attr.path().get_ident().map(Ident::to_string).unwrap_or_default();
    format!("`#[{word}]` is not an attribute: did you mean `#[{meant}]`?")
}

/// "already has `#[sort(desc)]`": names the first so the user knows which one stays.
fn duplicate_sort(first: &SortAttr) -> String {
    if !first.parsed {
        return "this field already has a `#[sort(..)]`: a field is one sort key with one direction; \
                keep one `#[sort(..)]`"
            .to_owned();
    }
    let mut args = first.direction.sql().to_lowercase();
    match first.nulls {
        Some((Nulls::First, _)) => args.push_str(", nulls = first"),
        Some((Nulls::Last, _)) => args.push_str(", nulls = last"),
        None => {}
    }
    format!(
        "this field already has `#[sort({args})]`: a field is one sort key with one direction; \
         keep one `#[sort(..)]`"
    )
}
