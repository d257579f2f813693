//! A named order of `#[keyset(order(..))]`, its keys looked up among the fields.

use syn::Ident;

use super::field::FieldAttrs;
use super::NamedOrder;
use crate::attr::{OrderAttr, SortAttr};
use crate::ctxt::Ctxt;
use crate::spelling::{closest, edits};

impl<'a> NamedOrder<'a> {
    /// The order's keys, looked up among the fields; a key that names no field is an error, at
    /// the key, listing the fields there are.
    pub(super) fn new(
        cx: &mut Ctxt,
        order: OrderAttr,
        fields: &[FieldAttrs<'a>],
    ) -> Option<NamedOrder<'a>> {
        let mut keys = Vec::new();
        let mut complete = true;
        for key in order.keys {
            let Some(field) = fields.iter().find(|field| *field.ident == key.field) else {
                complete = false;
                let names: Vec<String> = fields.iter().map(|f| format!("`{}`", f.ident)).collect();
                let word = key.field.to_string();
                let by_column = fields.iter().find(|f| {
                    let column = f.column.to_string();
                    edits(&word, column.trim_start_matches("r#")) <= 2
                });
                let hint = match (closest(&word, fields.iter().map(|f| f.ident)), by_column) {
                    (Some(near), _) => format!("did you mean `{near}`? "),
                    (None, Some(field)) => format!(
                        "did you mean `{}`, the field of the column `{}`? ",
                        field.ident, field.column
                    ),
                    (None, None) => String::new(),
                };
                cx.error_spanned_by(
                    &key.field,
                    format!(
                        "`{}` is not a field of this struct: {hint}an order sorts by the struct's \
                         fields ({}), by their names, not their columns",
                        key.field,
                        names.join(", "),
                    ),
                );
                continue;
            };
            let sort = SortAttr {
                tokens: key.tokens,
                direction: key.direction,
                nulls: key.nulls,
                parsed: true,
            };
            keys.push(field.key(sort));
        }
        complete.then(|| NamedOrder { variant: variant_name(&order.name), name: order.name, keys })
    }

    /// The order's name without a raw identifier's `r#`.
    pub fn name(&self) -> String {
        self.name.to_string().trim_start_matches("r#").to_owned()
    }
}

/// `new` → `New`, `most_read` → `MostRead`, at the name's span (the parser refused every name
/// whose variant is no identifier).
fn variant_name(name: &Ident) -> Ident {
    let text = name.to_string();
    Ident::new(&crate::spelling::variant_of(text.trim_start_matches("r#")), name.span())
}
