//! The tokens of named sort orders: bound to their table, order and direction. A token of one
//! (order, direction) sent with any other is refused before any query, naming both, unless the
//! two sort alike (`None` and the first key's direction are one order; `new` reversed is `old`);
//! a struct renamed keeps its tokens; a token of format version 2 is told its version.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use chrono::NaiveDateTime;
use diesel::prelude::*;
use keyset_runtime::__testing::token::{fingerprint, VERSION};
use keyset_runtime::{CursorError, Error, Keyset, PageRequest, Paginate, SortDirection};
use keyset_tests::models::{Story, StoryOrder};
use keyset_tests::schema::stories;
use keyset_tests::seed::timestamp;

use super::orders::{definition, label, reversed, Field, NewStory, DIRECTIONS};
use crate::{connect, Conn};

/// `Story` under another name: the same table, orders and fields.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = stories)]
#[keyset(order(new: created_at desc, id desc), order(top: score desc, created_at desc, id desc))]
#[keyset(order(title: title asc, id asc), order(due: published_at asc nulls last, id asc))]
#[keyset(order(mixed: score asc, created_at desc, id asc), order(old: created_at asc, id asc))]
struct Tale {
    #[tiebreaker]
    id: i64,
    created_at: NaiveDateTime,
    score: i32,
    title: String,
    published_at: Option<NaiveDateTime>,
}

/// A field order and a named order on one model.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = stories)]
#[keyset(order(top: score desc, created_at desc, id desc))]
struct Ranked {
    #[sort(desc)]
    created_at: NaiveDateTime,
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
    score: i32,
}

/// [`Ranked`] renamed.
#[derive(Queryable, Selectable, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = stories)]
#[keyset(order(top: score desc, created_at desc, id desc))]
struct RankedRenamed {
    #[sort(desc)]
    created_at: NaiveDateTime,
    #[sort(desc)]
    #[tiebreaker]
    id: i64,
    score: i32,
}

/// The query of [`Ranked`], typed: no connection in sight to infer the backend from.
fn ranked_query() -> diesel::dsl::Select<stories::table, diesel::dsl::AsSelect<Ranked, DB>> {
    stories::table.select(Ranked::as_select())
}

type DB = <Conn as Connection>::Backend;

/// Twelve stories whose keys tie, with NULLs.
fn seeded() -> Conn {
    let mut conn = connect();
    let rows: Vec<NewStory> = (1..=12i64)
        .map(|id| NewStory {
            id,
            created_at: timestamp(id % 4),
            score: (id % 3) as i32,
            title: ["a", "b", "ab"][(id % 3) as usize].to_owned(),
            published_at: (id % 4 != 0).then(|| timestamp(id % 5)),
        })
        .collect();
    diesel::insert_into(stories::table).values(&rows).execute(&mut conn).expect("insert stories");
    conn
}

type Choice = (StoryOrder, Option<SortDirection>);

fn every_choice() -> Vec<Choice> {
    StoryOrder::ALL.into_iter().flat_map(|order| DIRECTIONS.map(|dir| (order, dir))).collect()
}

/// Whether two choices sort alike, from the orders' definitions: then they share their tokens.
fn same_order(a: Choice, b: Choice) -> bool {
    let keys = |(order, dir): Choice| {
        let flip = reversed(order, dir);
        definition(order)
            .iter()
            .map(|&(field, desc, nulls_first)| {
                // Only a nullable key has a NULL placement.
                let nullable = matches!(field, Field::PublishedAt);
                (format!("{field:?}"), desc != flip, nullable && nulls_first != flip)
            })
            .collect::<Vec<_>>()
    };
    keys(a) == keys(b)
}

/// Ids of the page `request` asks for, or the error.
fn ids(conn: &mut Conn, (order, dir): Choice, request: &PageRequest) -> Result<Vec<i64>, Error> {
    let page = stories::table.select(Story::as_select()).paginate_by(order, dir, request)?;
    Ok(page.load_page(conn)?.items.iter().map(|story| story.id).collect())
}

/// A `next_cursor` (of the first page of 3) and a `prev_cursor` (of the page after it) of
/// `choice`, with the rows each leads to.
fn tokens(conn: &mut Conn, (order, dir): Choice) -> [(PageRequest, Vec<i64>); 2] {
    let query = || stories::table.select(Story::as_select());
    let first = query().paginate_by(order, dir, &PageRequest::first(3)).unwrap();
    let first = first.load_page(conn).unwrap();
    let after = PageRequest::after(first.next_cursor.unwrap(), 3);
    let second = query().paginate_by(order, dir, &after).unwrap().load_page(conn).unwrap();
    let before = PageRequest::before(second.prev_cursor.unwrap(), 3);
    let second_ids = second.items.iter().map(|story| story.id).collect();
    [(after, second_ids), (before, first.items.iter().map(|story| story.id).collect())]
}

#[test]
fn a_token_is_refused_by_every_other_order_and_direction_naming_both() {
    let mut conn = seeded();
    let choices = every_choice();
    let mut refused = 0;
    for &issued in &choices {
        for (request, rows) in tokens(&mut conn, issued) {
            for &sent in &choices {
                let result = ids(&mut conn, sent, &request);
                if same_order(issued, sent) {
                    let page = result.unwrap_or_else(|err| {
                        panic!(
                            "{} sent with {}: {err}",
                            label(issued.0, issued.1),
                            label(sent.0, sent.1)
                        )
                    });
                    assert_eq!(
                        page,
                        rows,
                        "{} sent with {}",
                        label(issued.0, issued.1),
                        label(sent.0, sent.1)
                    );
                    continue;
                }
                let err = result.expect_err("a token of another order is refused");
                assert!(err.is_client_error(), "{err}");
                let Error::Cursor(CursorError::OtherOrder { issued: named, requested }) = err
                else {
                    panic!(
                        "{} sent with {}: {err:?}",
                        label(issued.0, issued.1),
                        label(sent.0, sent.1)
                    );
                };
                assert_eq!(requested, label(sent.0, sent.1));
                // The order it names is the one it was issued for, or one that sorts alike (the
                // first declared of them): sent there, it pages as it was issued to.
                let namesake = choices
                    .iter()
                    .copied()
                    .find(|&choice| label(choice.0, choice.1) == named)
                    .unwrap_or_else(|| panic!("`{named}` is no order's label"));
                assert!(same_order(issued, namesake), "{named} for {}", label(issued.0, issued.1));
                assert_eq!(ids(&mut conn, namesake, &request).unwrap(), rows);
                refused += 1;
            }
        }
    }
    // 18 choices: 6 orders as declared, in their first key's direction (the same order) and
    // reversed; `old` is `new` reversed. So 12 choices × 2 tokens × 18 - the alike ones.
    assert!(refused > 500, "{refused} refusals");
}

#[test]
fn no_direction_and_the_first_keys_direction_are_one_order() {
    let mut conn = seeded();
    for order in StoryOrder::ALL {
        for (none, declared) in [(None, Some(order.direction())), (Some(order.direction()), None)] {
            for (request, rows) in tokens(&mut conn, (order, none)) {
                assert_eq!(ids(&mut conn, (order, declared), &request).unwrap(), rows, "{order}");
            }
        }
        let other = match order.direction() {
            SortDirection::Asc => SortDirection::Desc,
            SortDirection::Desc => SortDirection::Asc,
        };
        let [(request, _), _] = tokens(&mut conn, (order, None));
        let err = ids(&mut conn, (order, Some(other)), &request).unwrap_err();
        assert!(matches!(err, Error::Cursor(CursorError::OtherOrder { .. })), "{order}: {err}");
    }
    // `new` reversed sorts as `old` does: one order, one token.
    let [(request, rows), _] = tokens(&mut conn, (StoryOrder::Old, None));
    let asc = Some(SortDirection::Asc);
    assert_eq!(ids(&mut conn, (StoryOrder::New, asc), &request).unwrap(), rows);
}

#[test]
fn a_renamed_struct_accepts_its_old_tokens() {
    let mut conn = seeded();
    assert_eq!(Tale::SORT_ORDER, Story::SORT_ORDER);
    assert_eq!(Ranked::SORT_ORDER, RankedRenamed::SORT_ORDER);
    let tale = |order: StoryOrder| TaleOrder::ALL[order as usize];
    for (order, dir) in every_choice() {
        assert_eq!(tale(order).name(), order.name());
        for (request, rows) in tokens(&mut conn, (order, dir)) {
            let page =
                stories::table.select(Tale::as_select()).paginate_by(tale(order), dir, &request);
            let page = page.unwrap().load_page(&mut conn).unwrap();
            assert_eq!(page.items.iter().map(|tale| tale.id).collect::<Vec<_>>(), rows);
        }
    }

    // `paginate`, in `Story`'s first order; then a field order, and a named one beside it.
    let first = stories::table.select(Story::as_select()).paginate(&PageRequest::first(5));
    let token = first.unwrap().load_page(&mut conn).unwrap().next_cursor.unwrap();
    let request = PageRequest::after(token, 5);
    let story = stories::table.select(Story::as_select()).paginate(&request);
    let tale = stories::table.select(Tale::as_select()).paginate(&request);
    let story: Vec<i64> =
        story.unwrap().load_page(&mut conn).unwrap().items.iter().map(|s| s.id).collect();
    let tale: Vec<i64> =
        tale.unwrap().load_page(&mut conn).unwrap().items.iter().map(|t| t.id).collect();
    assert_eq!(tale, story);

    let first = stories::table.select(Ranked::as_select()).paginate(&PageRequest::first(5));
    let token = first.unwrap().load_page(&mut conn).unwrap().next_cursor.unwrap();
    let request = PageRequest::after(token, 5);
    let ranked = stories::table.select(Ranked::as_select()).paginate(&request).unwrap();
    let renamed = stories::table.select(RankedRenamed::as_select()).paginate(&request).unwrap();
    let ranked: Vec<i64> =
        ranked.load_page(&mut conn).unwrap().items.iter().map(|r| r.id).collect();
    let renamed: Vec<i64> =
        renamed.load_page(&mut conn).unwrap().items.iter().map(|r| r.id).collect();
    assert_eq!(renamed, ranked);

    let top = Some(SortDirection::Asc);
    let first = stories::table
        .select(Ranked::as_select())
        .paginate_by(RankedOrder::Top, top, &{ PageRequest::first(5) });
    let token = first.unwrap().load_page(&mut conn).unwrap().next_cursor.unwrap();
    let request = PageRequest::after(token, 5);
    let ranked =
        stories::table.select(Ranked::as_select()).paginate_by(RankedOrder::Top, top, &request);
    let renamed = stories::table.select(RankedRenamed::as_select()).paginate_by(
        RankedRenamedOrder::Top,
        top,
        &request,
    );
    let ranked: Vec<i64> =
        ranked.unwrap().load_page(&mut conn).unwrap().items.iter().map(|r| r.id).collect();
    let renamed: Vec<i64> =
        renamed.unwrap().load_page(&mut conn).unwrap().items.iter().map(|r| r.id).collect();
    assert_eq!(renamed, ranked);
    // The field order's token is no token of the named order, and the other way round.
    let err = ranked_query().paginate(&request).err().unwrap();
    assert!(matches!(err, Error::Cursor(CursorError::ForeignSortOrder)), "{err:?}");
}

/// `token` with its header rewritten: format `version`, and the fingerprint of `sort_order`.
fn with_header(token: &str, version: u8, sort_order: &str) -> String {
    let mut bytes = URL_SAFE_NO_PAD.decode(token).unwrap();
    bytes[0] = version;
    bytes[1..5].copy_from_slice(&fingerprint(sort_order).to_le_bytes());
    URL_SAFE_NO_PAD.encode(bytes)
}

#[test]
fn a_version_2_token_of_a_field_order_is_told_its_version() {
    let mut conn = seeded();
    let first = stories::table.select(Ranked::as_select()).paginate(&PageRequest::first(5));
    let token = first.unwrap().load_page(&mut conn).unwrap().next_cursor.unwrap();
    // Version 2 hashed the struct's name with the order: `Ranked(stories: ..)`.
    let legacy = "Ranked(stories: created_at DESC, id DESC)";
    let refused = |token: String| {
        let request = PageRequest::after(token, 5);
        ranked_query().paginate(&request).err()
    };
    let err = refused(with_header(&token, 2, legacy)).expect("a version 2 token is refused");
    assert!(
        matches!(err, Error::Cursor(CursorError::UnsupportedVersion { found: 2, supported: 3 })),
        "{err:?}"
    );
    assert!(err.is_client_error());
    // The header as this version writes it is accepted; the legacy fingerprint in a version-3
    // header, or another struct's in a version-2 one, is no token of this listing.
    assert!(refused(with_header(&token, VERSION, Ranked::SORT_ORDER)).is_none());
    assert!(matches!(
        refused(with_header(&token, VERSION, legacy)),
        Some(Error::Cursor(CursorError::ForeignSortOrder))
    ));
    let other = with_header(&token, 2, "RankedRenamed(stories: created_at DESC, id DESC)");
    assert!(
        !matches!(
            refused(other),
            None | Some(Error::Cursor(CursorError::UnsupportedVersion { .. }))
        ),
        "another struct's version 2 token"
    );
}
