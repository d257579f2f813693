//! Property tests of a listing's edges (see `edges.rs` for the fixed cases): walks whose rows
//! past the page are all deleted mid-walk, page numbers and limits at the extremes, and keys
//! around the token limit. The tables, connection and runner are the other property tests'.

use std::fmt::Debug;

use diesel::prelude::*;
use keyset_runtime::{Error, Keyset, PageQuery, PageRequest, Paginate, RequestError};
use keyset_tests::models::{
    Newest, RankDescNullsLast, TitleShortTokens, TopScore, SHORT_TOKEN_TITLE_BYTES,
};
use keyset_tests::order::{key, plain};
use keyset_tests::schema::posts;
use keyset_tests::walk::cursors;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use super::props::{fill, run, sorted, table, MAX_ROWS};
use crate::Conn;

fn load<Q: PageQuery<'static, Conn, Item = <Q as keyset_runtime::Paginate>::Model>>(
    conn: &mut Conn,
    query: &impl Fn() -> Q,
    request: &PageRequest,
) -> Result<keyset_runtime::Page<Q::Model>, TestCaseError> {
    query()
        .paginate(request)
        .and_then(|paginated| paginated.max_limit(u32::MAX).load_page(conn))
        .map_err(|err| TestCaseError::fail(format!("{request:?}: {err}")))
}

/// Walks `pages` pages from one end (`forward`: from the first page on; else from the last page
/// back), deletes every row beyond the page reached, and loads the next page that way: it is
/// empty, and its token back leads over exactly the rows that are left, in order.
fn check_emptied<Q>(
    conn: &mut Conn,
    expected: &[Q::Model],
    query: impl Fn() -> Q,
    id: fn(&Q::Model) -> i64,
    (limit, pages, forward): (u32, usize, bool),
) -> Result<(), TestCaseError>
where
    Q: PageQuery<'static, Conn, Item = <Q as keyset_runtime::Paginate>::Model>,
    <Q::Model as Keyset>::Cursor: Debug + PartialEq,
{
    let l = limit as usize;
    let n = expected.len();
    let mut page = load(
        conn,
        &query,
        &if forward { PageRequest::first(limit) } else { PageRequest::last(limit) },
    )?;
    let mut range = if forward { 0..n.min(l) } else { n.saturating_sub(l)..n };
    for _ in 0..pages {
        let token = if forward { page.next_cursor.clone() } else { page.prev_cursor.clone() };
        let Some(token) = token else { break };
        page = load(
            conn,
            &query,
            &if forward {
                PageRequest::after(token, limit)
            } else {
                PageRequest::before(token, limit)
            },
        )?;
        range = if forward {
            range.end..n.min(range.end + l)
        } else {
            range.start.saturating_sub(l)..range.start
        };
    }
    prop_assert_eq!(cursors(&page.items), cursors(&expected[range.clone()]));
    let (token, beyond) = if forward {
        (page.next_cursor.clone(), &expected[range.end..])
    } else {
        (page.prev_cursor.clone(), &expected[..range.start])
    };
    let Some(token) = token else { return Ok(()) };
    let ids: Vec<i64> = beyond.iter().map(id).collect();
    diesel::delete(posts::table.filter(posts::id.eq_any(ids))).execute(conn).expect("delete");
    let left = if forward { &expected[..range.end] } else { &expected[range.start..] };

    let empty = load(
        conn,
        &query,
        &if forward { PageRequest::after(token, limit) } else { PageRequest::before(token, limit) },
    )?;
    prop_assert!(empty.items.is_empty(), "the rows beyond were deleted");
    let (ahead, mut back) = if forward {
        (empty.next_cursor, empty.prev_cursor)
    } else {
        (empty.prev_cursor, empty.next_cursor)
    };
    prop_assert_eq!(ahead, None, "nothing lies ahead of an emptied page");
    prop_assert!(back.is_some() || left.is_empty(), "an emptied page leads back");
    // Walking back from the emptied page reads every row that is left, once, in order.
    let mut read = Vec::new();
    while let Some(token) = back {
        let page = load(
            conn,
            &query,
            &if forward {
                PageRequest::before(token, limit)
            } else {
                PageRequest::after(token, limit)
            },
        )?;
        prop_assert!(!page.items.is_empty() && page.items.len() <= l);
        back = if forward { page.prev_cursor } else { page.next_cursor };
        read.push(cursors(&page.items));
        prop_assert!(read.len() <= MAX_ROWS + 1, "the walk back does not end");
    }
    if forward {
        read.reverse();
    }
    prop_assert_eq!(read.concat(), cursors(left));
    Ok(())
}

fn walk_shape() -> impl Strategy<Value = (u32, usize, bool)> {
    (1..=6u32, 0..8usize, any::<bool>())
}

#[test]
fn a_walk_whose_rows_beyond_are_deleted_still_leads_back_over_the_rest() {
    run((table(), walk_shape()), |conn, (rows, shape)| {
        fill(conn, &rows);
        let expected = sorted(conn, posts::table.select(Newest::as_select()), |a: &Newest, b| {
            plain(&a.created_at, &b.created_at, true).then(plain(&a.id, &b.id, true))
        });
        check_emptied(
            conn,
            &expected,
            || posts::table.select(Newest::as_select()),
            |r| r.id,
            shape,
        )?;
        fill(conn, &rows);
        let cmp = |a: &TopScore, b: &TopScore| {
            plain(&a.score, &b.score, false)
                .then(plain(&a.created_at, &b.created_at, true))
                .then(plain(&a.id, &b.id, false))
        };
        let expected = sorted(conn, posts::table.select(TopScore::as_select()), cmp);
        check_emptied(
            conn,
            &expected,
            || posts::table.select(TopScore::as_select()),
            |r| r.id,
            shape,
        )?;
        fill(conn, &rows);
        let expected = sorted(
            conn,
            posts::table.select(RankDescNullsLast::as_select()),
            |a: &RankDescNullsLast, b| {
                key(&a.rank, &b.rank, true, false).then(plain(&a.id, &b.id, true))
            },
        );
        check_emptied(
            conn,
            &expected,
            || posts::table.select(RankDescNullsLast::as_select()),
            |r| r.id,
            shape,
        )
    });
}

fn extreme() -> impl Strategy<Value = u32> {
    prop_oneof![4 => 0..=6u32, 1 => Just(u32::MAX), 1 => Just(u32::MAX - 1), 1 => Just(1 << 31), 2 => any::<u32>()]
}

/// Page `number` of `limit` rows (clamped to `max_limit`) is the slice of the order at OFFSET
/// `(number - 1) * limit` when that fits a BIGINT, empty past the end, and refused otherwise:
/// never the first page in disguise, never a panic.
#[test]
fn page_numbers_and_limits_at_the_extremes() {
    run((table(), extreme(), extreme(), extreme()), |conn, (rows, number, limit, max_limit)| {
        fill(conn, &rows);
        let expected =
            cursors(&sorted(conn, posts::table.select(Newest::as_select()), |a: &Newest, b| {
                plain(&a.created_at, &b.created_at, true).then(plain(&a.id, &b.id, true))
            }));
        let n = expected.len();
        let served = limit.min(max_limit.max(1));
        let result = posts::table
            .select(Newest::as_select())
            .paginate(&PageRequest::page_number(number, limit))
            .and_then(|paginated| paginated.max_limit(max_limit).load_page(conn));
        let offset = (i128::from(number) - 1) * i128::from(served);
        match result {
            _ if number == 0 => {
                prop_assert!(matches!(result, Err(Error::Request(RequestError::ZeroPageNumber))))
            }
            _ if limit == 0 => {
                prop_assert!(matches!(result, Err(Error::Request(RequestError::ZeroLimit))))
            }
            Err(Error::Request(RequestError::PageNumberTooLarge { number: got, limit: of })) => {
                prop_assert_eq!((got, of), (number, served));
                prop_assert!(
                    offset > i128::from(i64::MAX),
                    "refused an offset that fits: {}",
                    offset
                );
            }
            Err(other) => {
                return Err(TestCaseError::fail(format!("page {number} of {limit}: {other}")))
            }
            Ok(page) => {
                prop_assert!(offset <= i128::from(i64::MAX));
                let start = (offset as u128).min(n as u128) as usize;
                let end = (offset as u128 + u128::from(served)).min(n as u128) as usize;
                prop_assert_eq!(cursors(&page.items), expected[start..end].to_vec());
                prop_assert_eq!(page.has_next(), end < n);
                prop_assert_eq!(page.has_prev(), number > 1);
            }
        }
        Ok(())
    });
}

/// Titles of 30 to 48 bytes, around the longest a [`TitleShortTokens`] token holds (41), of one-
/// to four-byte characters. Distinct under any collation: a distinct number leads each.
fn titles() -> impl Strategy<Value = Vec<String>> {
    let chars = prop::sample::select(&["a", "b", "z", "é", "日", "\u{1F600}"][..]);
    let title = (30..=48usize, prop::collection::vec(chars, 48));
    prop::collection::vec(title, 0..=MAX_ROWS).prop_map(|titles| {
        titles
            .into_iter()
            .enumerate()
            .map(|(index, (target, chars))| {
                let mut title = format!("{index:02}");
                for ch in chars {
                    if title.len() + ch.len() > target {
                        break;
                    }
                    title.push_str(ch);
                }
                title
            })
            .collect()
    })
}

/// The characters a title's token takes: header, length prefix and bytes, in base64.
fn token_len(title: &str) -> usize {
    let bytes = 6 + 1 + title.len();
    bytes / 3 * 4 + [0, 2, 3][bytes % 3]
}

/// A forward walk over titles near the token limit: a page loads exactly when every token it
/// issues fits, its tokens then lead on, and otherwise it is the server's `KeysTooLong`, never a
/// client error and never a token the listing would refuse.
#[test]
fn keys_near_the_token_limit_travel_or_are_the_servers_error() {
    run((titles(), 1..=4u32), |conn, (titles, limit)| {
        let rows: Vec<_> = titles
            .iter()
            .enumerate()
            .map(|(index, title)| {
                let mut post = keyset_tests::seed::post(index as i64 + 1);
                post.title = title.clone();
                post.author_id = 1 + index as i64 % 3;
                post
            })
            .collect();
        fill(conn, &rows);
        let query = || posts::table.select(TitleShortTokens::as_select());
        let expected = posts::table
            .order(posts::title.asc())
            .select(TitleShortTokens::as_select())
            .load(conn)
            .expect("oracle loads");
        let fits =
            |row: &TitleShortTokens| token_len(&row.title) <= TitleShortTokens::MAX_TOKEN_LEN;
        let l = limit as usize;
        let mut request = PageRequest::first(limit);
        let mut start = 0;
        loop {
            let end = expected.len().min(start + l);
            let slice = &expected[start..end];
            let next = end < expected.len();
            let issues_fit = (!next || slice.last().is_none_or(fits))
                && (start == 0 || slice.first().is_none_or(fits));
            match query().paginate(&request).unwrap().load_page(conn) {
                Ok(page) => {
                    prop_assert!(issues_fit, "a page issued a token it would refuse");
                    prop_assert_eq!(cursors(&page.items), cursors(slice));
                    for token in page.next_cursor.iter().chain(&page.prev_cursor) {
                        prop_assert!(token.len() <= TitleShortTokens::MAX_TOKEN_LEN);
                    }
                    match page.next_cursor {
                        Some(token) => request = PageRequest::after(token, limit),
                        None => return Ok(()),
                    }
                    start = end;
                }
                Err(error) => {
                    prop_assert!(!issues_fit, "refused a page whose tokens fit: {}", error);
                    prop_assert!(!error.is_client_error(), "{}", error);
                    let is_too_long = matches!(error, Error::KeysTooLong { key: "title", key_len, .. } if key_len > SHORT_TOKEN_TITLE_BYTES);
                    prop_assert!(is_too_long, "{}", error);
                    return Ok(());
                }
            }
        }
    });
}
