//! The pages the starts bench times over `bench_orders` ([`crate::order_seed`]), beside the
//! orders bench's token pages ([`crate::order_pages`]): for each order and backend,
//!
//! - `start`: the page from a row's leading value, through the public API
//!   (`allow_starts().start_at(..)`, or `start_past`), as a handler of `?from=` runs it;
//! - `at_row`: the page that opens at a row the caller holds (`at_row(&row)`);
//! - `around`: what a handler of `?around=<id>` runs: the page at the row of that primary key,
//!   `at_row_id(id)`, the row's values read inside the page's statements.

use keyset_runtime::{Page, PageRequest, Paginate};

use crate::pages::PAGE;
use crate::schema::{Newest, NewestOldId, Published};

/// One order's starts on one backend: `$model`'s pages, `$leading` its leading key's field.
macro_rules! start_pages {
    ($module:ident, $model:ident, $leading:ident) => {
        pub mod $module {
            use super::*;
            use pages::$module::all;

            /// The page from `row`'s leading value: at it (`inclusive`), or strictly past it.
            pub fn start(conn: &mut Conn, row: &$model, inclusive: bool) -> Page<$model> {
                let listing = all().paginate(&PageRequest::first(PAGE)).expect("a valid request");
                let listing = listing.allow_starts();
                let value = row.$leading.clone();
                let listing =
                    if inclusive { listing.start_at(value) } else { listing.start_past(value) };
                listing
                    .expect("a first page takes a start")
                    .load_page(conn)
                    .expect("the page loads")
            }

            /// The page that opens at `row`.
            pub fn at_row(conn: &mut Conn, row: &$model) -> Page<$model> {
                let listing = all().paginate(&PageRequest::first(PAGE)).expect("a valid request");
                listing.at_row(row).load_page(conn).expect("the page loads")
            }

            /// The page at the row of primary key `row_id`, read in its statements.
            pub fn around(conn: &mut Conn, row_id: i64) -> Page<$model> {
                let listing = all().paginate(&PageRequest::first(PAGE)).expect("a valid request");
                let listing = listing.at_row_id(row_id).expect("a row's cursor");
                listing.load_page(conn).expect("the page loads")
            }
        }
    };
}

/// The three orders' starts on one backend.
macro_rules! backend_starts {
    ($(#[$attr:meta])* $module:ident) => {
        $(#[$attr])*
        pub mod $module {
            use super::*;
            use crate::order_pages::$module as pages;
            use pages::Conn;

            start_pages!(newest, Newest, created_at);
            start_pages!(mixed, NewestOldId, created_at);
            start_pages!(published, Published, published_at);
        }
    };
}

backend_starts!(sqlite);
backend_starts!(
    #[cfg(feature = "postgres")]
    postgres
);
backend_starts!(
    #[cfg(feature = "mysql")]
    mysql
);
