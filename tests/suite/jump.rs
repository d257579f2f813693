//! The expensive path, for the rare grid that needs it: a total count and a jump to page `n` by
//! OFFSET, whose tokens then page on by keyset.

use diesel::prelude::*;
use keyset_runtime::{Error, PageRequest, Paginate, RequestError};
use keyset_tests::models::{Newest, TopScore};
use keyset_tests::schema::posts;
use keyset_tests::walk::{self, cursors};

use super::db;

/// Page `n` of size `k` is rows `(n-1)k .. nk` of the whole order, for orders of every shape,
/// and its tokens lead to its neighbours by keyset.
#[test]
fn page_n_is_the_nth_slice_of_the_order_and_its_tokens_page_on() {
    let mut conn = db::seeded(103);
    let all = walk::forward(&mut conn, 1000, || posts::table.select(TopScore::as_select()));
    let query = || posts::table.select(TopScore::as_select());
    for number in 1..=11u32 {
        let page = walk::page(&mut conn, &query, &PageRequest::page_number(number, 10));
        let start = ((number - 1) * 10) as usize;
        let slice = &all[start.min(all.len())..(start + 10).min(all.len())];
        assert_eq!(cursors(&page.items), cursors(slice), "page {number}");
        assert_eq!(page.has_next(), start + 10 < all.len(), "next_cursor of page {number}");
        assert_eq!(page.has_prev(), number > 1, "prev_cursor of page {number}");
        if let Some(token) = page.next_cursor {
            let next = walk::page(&mut conn, &query, &PageRequest::after(token, 10));
            let end = (start + 20).min(all.len());
            assert_eq!(cursors(&next.items), cursors(&all[start + 10..end]), "after page {number}");
        }
        if let Some(token) = page.prev_cursor {
            let prev = walk::page(&mut conn, &query, &PageRequest::before(token, 10));
            assert_eq!(
                cursors(&prev.items),
                cursors(&all[start - 10..start]),
                "before page {number}"
            );
        }
    }
}

/// (A page past the end, and page numbers at the extremes: `edges.rs`.)
#[test]
fn page_number_zero_is_refused() {
    let mut conn = db::seeded(1);
    let zero = posts::table
        .select(Newest::as_select())
        .paginate(&PageRequest::page_number(0, 10))
        .and_then(|paginated| paginated.load_page(&mut conn))
        .expect_err("refused");
    assert!(matches!(zero, Error::Request(RequestError::ZeroPageNumber)), "{zero}");
    assert!(zero.is_client_error());
}

/// The count is of the query's rows, with its filters, whatever the page.
#[test]
fn total_count_counts_the_filtered_query_not_the_page() {
    let mut conn = db::seeded(120);
    let author = 3;
    let expected: i64 =
        posts::table.filter(posts::author_id.eq(author)).count().get_result(&mut conn).unwrap();
    assert!(expected > 5 && expected < 120);
    let query = || posts::table.filter(posts::author_id.eq(author)).select(Newest::as_select());
    let first = query().paginate(&PageRequest::first(5)).unwrap();
    assert_eq!(first.total_count(&mut conn).unwrap(), expected);
    // Counted alone, the connection's backend is the selection's (no `SelectableHelper<Pg>`
    // spelled out).
    let all = posts::table
        .select(Newest::as_select())
        .paginate(&PageRequest::first(5))
        .unwrap()
        .total_count(&mut conn)
        .unwrap();
    assert_eq!(all, 120);
    let page = first.load_page(&mut conn).unwrap();
    let token = page.next_cursor.unwrap();
    let later = query().paginate(&PageRequest::after(token, 5)).unwrap();
    assert_eq!(
        later.total_count(&mut conn).unwrap(),
        expected,
        "the cursor does not narrow the count"
    );
}
