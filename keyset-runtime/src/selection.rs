//! What a paged query selects, read from its SQL type: the model alone (`Post::as_select()`), or
//! the model first in a tuple of selections (`(Post::as_select(), Author::as_select())`, a join
//! listing posts with their authors). The page's cursor is taken from the model; the rest of a
//! row rides along. Diesel's types say which Rust type each selection loads as
//! (`Selectable`), so a page of a join is `Page<(Post, Author)>`, and with
//! `Option::<Author>::as_select()` on a left join, `Page<(Post, Option<Author>)>`.

use diesel::backend::Backend;
use diesel::dsl::AsSelect as SelectBy;
use diesel::Selectable;

/// The model a query selects, and what each of its rows loads as. Implemented for
/// `SelectBy<Model, DB>` (what `Model::as_select()` is) and for tuples whose first element is
/// one, followed by up to 31 other `as_select()` selections.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not select a model to page",
    label = "`paginate` needs a query whose `.select(..)` is `Model::as_select()`, or a tuple whose first element is",
    note = "select the model whose order pages the listing first, e.g. `.select((Post::as_select(), Author::as_select()))`; the other elements of the tuple must be `as_select()` selections too (`Option::<Author>::as_select()` for a left join)"
)]
pub trait SelectsModel {
    /// The selected model, whose sort order pages the query.
    type Model;
    /// What one row loads as: the model, or the tuple of what each selection loads as.
    type Item: 'static;
    /// The backend the selection is written for: what lets a call that replaces the selection
    /// (a count) still infer `Post::as_select()`'s backend from the connection.
    type Backend: Backend;
    /// Whether the model is the whole selection: then its columns are the only output columns
    /// (a tuple adds others, whose names may repeat the model's, `id` beside `id`).
    const ALONE: bool;
    /// The model within a row.
    fn model(item: &Self::Item) -> &Self::Model;
}

/// A selection that rides along with the model in a tuple: `Author::as_select()`, or
/// `Option::<Author>::as_select()` for the nullable side of a left join.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot ride along with the model in a paged tuple",
    note = "each element after the model must be an `as_select()` selection, e.g. `Author::as_select()` or `Option::<Author>::as_select()`: derive `Selectable` for a struct of the columns you need"
)]
pub trait Related<DB: Backend> {
    /// What it loads as.
    type Item: 'static;
}

impl<T: Selectable<DB> + 'static, DB: Backend> SelectsModel for SelectBy<T, DB> {
    type Model = T;
    type Item = T;
    type Backend = DB;
    const ALONE: bool = true;
    fn model(item: &T) -> &T {
        item
    }
}

impl<U: Selectable<DB> + 'static, DB: Backend> Related<DB> for SelectBy<U, DB> {
    type Item = U;
}

/// `SelectsModel` for the tuple of the model's selection and the related ones named, then for
/// each shorter tuple.
macro_rules! tuple_selections {
    () => {};
    ($first:ident $(, $related:ident)*) => {
        impl<T: Selectable<DB> + 'static, DB: Backend, $first: Related<DB>, $($related: Related<DB>),*>
            SelectsModel for (SelectBy<T, DB>, $first, $($related,)*)
        {
            type Model = T;
            type Item = (T, $first::Item, $($related::Item,)*);
            type Backend = DB;
            const ALONE: bool = false;
            fn model(item: &Self::Item) -> &T {
                &item.0
            }
        }
        tuple_selections!($($related),*);
    };
}

// Up to 32 selections in all, the most Diesel loads with its `32-column-tables` feature (16
// without it).
tuple_selections!(
    R1, R2, R3, R4, R5, R6, R7, R8, R9, R10, R11, R12, R13, R14, R15, R16, R17, R18, R19, R20, R21,
    R22, R23, R24, R25, R26, R27, R28, R29, R30, R31
);
