use diesel::prelude::*;
use keyset_runtime::{Keyset, PageRequest, Paginate};

diesel::table! {
    tasks (id) {
        id -> BigInt,
        due -> Nullable<BigInt>,
    }
}

// A nullable key: where the row's value is NULL decides the statement, which a subquery does not
// say before it runs. `at_row(&task)` serves this order.
#[derive(Queryable, Selectable, Keyset)]
struct Task {
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
