use diesel::prelude::*;
use keyset_runtime::{Keyset, PageRequest, Paginate};

diesel::table! {
    tasks (id) {
        id -> BigInt,
        score -> BigInt,
        due -> Nullable<BigInt>,
    }
}

// A nullable key behind another: its NULLs lie inside the leading key's tie groups, where the
// row's id does not say which of its regions a statement reads. (A nullable *leading* key is
// served.) `at_row(&task)` serves this order.
#[derive(Queryable, Selectable, Keyset)]
struct Task {
    #[sort(desc)]
    score: i64,
    #[sort(asc, nulls = last)]
    due: Option<i64>,
    #[sort(asc)]
    #[tiebreaker]
    id: i64,
}

fn main() {
    let query = tasks::table.select(Task::as_select());
    let _ = query.paginate(&PageRequest::first(20)).unwrap().at_row_id(7);
}
