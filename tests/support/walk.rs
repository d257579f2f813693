//! Walking a table page by page, in either direction, and the checks every walk must pass.

use keyset_runtime::{Keyset, Page, PageQuery, PageRequest};

/// More pages than any walk in the suites needs: a walk that takes more is looping.
const MAX_PAGES: usize = 5_000;

/// The cursors of `rows`: unique per row (they include the tiebreaker), so comparing them compares
/// the rows' identities and order.
pub fn cursors<M: Keyset>(rows: &[M]) -> Vec<M::Cursor> {
    rows.iter().map(M::cursor).collect()
}

/// Loads one page of `query()` for `request`: of the model, or of the tuple a join selects.
pub fn page<Conn, Q>(
    conn: &mut Conn,
    query: &impl Fn() -> Q,
    request: &PageRequest,
) -> Page<Q::Item>
where
    Q: PageQuery<'static, Conn>,
{
    query()
        .paginate(request)
        .expect("valid request")
        .max_limit(u32::MAX)
        .load_page(conn)
        .expect("page loads")
}

/// Pages forward from the first page to the end, following `next_cursor`, and returns every row.
/// Checks on the way that every page but the last is full and has a `next_cursor`, that only the
/// last page lacks one, and that only the first page lacks a `prev_cursor`.
pub fn forward<Conn, Q>(conn: &mut Conn, limit: u32, query: impl Fn() -> Q) -> Vec<Q::Item>
where
    Q: PageQuery<'static, Conn>,
{
    let mut rows = Vec::new();
    let mut request = PageRequest::first(limit);
    for index in 0..MAX_PAGES {
        let page = page(conn, &query, &request);
        assert!(page.items.len() <= limit as usize, "page {index} holds more than the limit");
        assert_eq!(page.has_prev(), index > 0, "prev_cursor of page {index}");
        if page.has_next() {
            assert_eq!(page.items.len(), limit as usize, "a page with a next page is full");
        }
        rows.extend(page.items);
        match page.next_cursor {
            Some(token) => {
                assert!(!token.is_empty(), "a token is never the empty string");
                request = PageRequest::after(token, limit);
            }
            None => return rows,
        }
    }
    panic!("the forward walk did not end after {MAX_PAGES} pages: it is going round in circles")
}

/// Pages backward from the last page to the start, following `prev_cursor`, and returns every
/// row in the model's order. The mirror image of [`forward`]'s checks.
pub fn backward<Conn, Q>(conn: &mut Conn, limit: u32, query: impl Fn() -> Q) -> Vec<Q::Item>
where
    Q: PageQuery<'static, Conn>,
{
    let mut pages = Vec::new();
    let mut request = PageRequest::last(limit);
    for index in 0..MAX_PAGES {
        let page = page(conn, &query, &request);
        assert!(
            page.items.len() <= limit as usize,
            "page {index} from the end holds more than the limit"
        );
        assert_eq!(page.has_next(), index > 0, "next_cursor of page {index} from the end");
        let prev = page.prev_cursor.clone();
        if prev.is_some() {
            assert_eq!(page.items.len(), limit as usize, "a page with a previous page is full");
        }
        pages.push(page.items);
        match prev {
            Some(token) => request = PageRequest::before(token, limit),
            None => return pages.into_iter().rev().flatten().collect(),
        }
    }
    panic!("the backward walk did not end after {MAX_PAGES} pages: it is going round in circles")
}
