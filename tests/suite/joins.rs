//! Listings that join: a tuple selection led by the model pages as `Page<(Post, Author)>` (and
//! `Page<(Post, Option<Author>)>` on a left join), a sort key may be a column of the joined
//! table, boxed joins with run-time filters page over nullable keys, and a join one-to-many from
//! the model's table, which repeats its rows, fails its page instead of skipping rows. Each walk,
//! forward to the end and back to the start, against the rows Diesel loads in the same ORDER BY.

use diesel::prelude::*;
use keyset_runtime::{Error, Keyset, PageRequest, Paginate, SortDirection};
use keyset_tests::models::{
    Author, Newest, Post, PostByAuthor, PostByAuthorGroup, PostByAuthorOrder, RankDue,
};
use keyset_tests::schema::{authors, posts};
use keyset_tests::walk;
use std::cell::RefCell;

use proptest::prelude::*;
use proptest::test_runner::TestRunner;

use super::asynchronous::Both;
use super::db;

const ROWS: i64 = 240;

/// The keys of each row of a join, the model's cursor and the related row's id, so that a walk
/// is compared row for row, related rows included.
fn keyed<M: Keyset, R: Clone>(rows: &[(M, R)]) -> Vec<(M::Cursor, R)> {
    rows.iter().map(|(model, related)| (model.cursor(), related.clone())).collect()
}

fn author_ids(rows: &[(Newest, Author)]) -> Vec<(<Newest as Keyset>::Cursor, i64)> {
    rows.iter().map(|(post, author)| (post.cursor(), author.id)).collect()
}

#[test]
fn inner_join_pages_posts_with_their_authors() {
    let mut conn = db::seeded(ROWS);
    let query = || {
        posts::table
            .inner_join(authors::table)
            .filter(authors::name.ne("author 2"))
            .select((Newest::as_select(), Author::as_select()))
    };
    let expected: Vec<(Newest, Author)> =
        query().order((posts::created_at.desc(), posts::id.desc())).load(&mut conn).unwrap();
    assert!(expected.len() > 150 && expected.len() < ROWS as usize, "{}", expected.len());
    for limit in [1, 7, 50] {
        let forward = walk::forward(&mut conn, limit, query);
        assert_eq!(author_ids(&forward), author_ids(&expected), "forward, limit {limit}");
        let backward = walk::backward(&mut conn, limit, query);
        assert_eq!(author_ids(&backward), author_ids(&expected), "backward, limit {limit}");
    }
}

/// Any number of selections ride along, as Diesel loads them: here three.
#[test]
fn tuple_of_three_selections_pages() {
    let mut conn = db::seeded(ROWS);
    let query = || {
        posts::table.inner_join(authors::table).select((
            Newest::as_select(),
            Author::as_select(),
            Post::as_select(),
        ))
    };
    let expected: Vec<i64> = posts::table
        .order((posts::created_at.desc(), posts::id.desc()))
        .select(posts::id)
        .load(&mut conn)
        .unwrap();
    let rows = walk::backward(&mut conn, 19, query);
    assert_eq!(rows.iter().map(|(newest, _, _)| newest.id).collect::<Vec<_>>(), expected);
    assert!(rows
        .iter()
        .all(|(newest, author, post)| newest.id == post.id && post.author_id == author.id));
}

/// A hand-written ON that leaves the posts of author 3 without an author: their `Option<Author>`
/// is `None`, and they page like the others.
#[test]
fn left_join_pages_rows_without_a_related_row() {
    let mut conn = db::seeded(ROWS);
    let query = || {
        posts::table
            .left_join(
                authors::table
                    .on(authors::id.eq(posts::author_id).and(authors::name.ne("author 3"))),
            )
            .select((Newest::as_select(), Option::<Author>::as_select()))
    };
    let expected: Vec<(Newest, Option<Author>)> =
        query().order((posts::created_at.desc(), posts::id.desc())).load(&mut conn).unwrap();
    assert_eq!(expected.len(), ROWS as usize);
    let missing = expected.iter().filter(|(_, author)| author.is_none()).count();
    assert!(missing > 20 && missing < 80, "{missing} posts without an author");
    for limit in [3, 16] {
        assert_eq!(keyed(&walk::forward(&mut conn, limit, query)), keyed(&expected));
        assert_eq!(keyed(&walk::backward(&mut conn, limit, query)), keyed(&expected));
    }
}

/// `author_name` is `authors.name`: the ORDER BY and the seek name the joined column, and a
/// page's token carries its value.
#[test]
fn sort_key_of_the_joined_table_pages_both_ways() {
    let mut conn = db::seeded(ROWS);
    let query = || posts::table.inner_join(authors::table).select(PostByAuthor::as_select());
    let expected: Vec<PostByAuthor> =
        query().order((authors::name.asc(), posts::id.desc())).load(&mut conn).unwrap();
    let cursors = walk::cursors(&expected);
    for limit in [1, 9, 47] {
        assert_eq!(walk::cursors(&walk::forward(&mut conn, limit, query)), cursors);
        assert_eq!(walk::cursors(&walk::backward(&mut conn, limit, query)), cursors);
    }
    // With the author alongside, as a tuple.
    let tuple = || {
        posts::table
            .inner_join(authors::table)
            .select((PostByAuthor::as_select(), Author::as_select()))
    };
    let rows = walk::forward(&mut conn, 13, tuple);
    assert_eq!(rows.iter().map(|(post, _)| post.cursor()).collect::<Vec<_>>(), cursors);
    assert!(rows.iter().all(|(post, author)| post.author_name == author.name));
}

/// The named order `by_author` and its reverse, chosen at run time, on the same join.
#[test]
fn named_order_with_a_joined_key_pages_in_both_directions() {
    let mut conn = db::seeded(ROWS);
    let query = || posts::table.inner_join(authors::table).select(PostByAuthor::as_select());
    let declared: Vec<i64> = query()
        .order((authors::name.asc(), posts::created_at.desc(), posts::id.desc()))
        .select(posts::id)
        .load(&mut conn)
        .unwrap();
    for (dir, expected) in [
        (SortDirection::Asc, declared.clone()),
        (SortDirection::Desc, declared.iter().rev().copied().collect()),
    ] {
        let mut ids = Vec::new();
        let mut request = PageRequest::first(11);
        loop {
            let page = query()
                .paginate_by(PostByAuthorOrder::ByAuthor, Some(dir), &request)
                .unwrap()
                .load_page(&mut conn)
                .unwrap();
            ids.extend(page.items.iter().map(|post| post.id));
            match page.next_cursor {
                Some(token) => request = PageRequest::after(token, 11),
                None => break,
            }
        }
        assert_eq!(ids, expected, "by_author {dir:?}");
    }
}

/// Handlers add filters at run time to a boxed query; a model with nullable keys pages it, on
/// a join, with the join's columns in the filter.
#[test]
fn boxed_join_with_run_time_filters_pages_nullable_keys() {
    let mut conn = db::seeded(ROWS);
    let query = |min_score: i32, skip: &'static str| {
        let mut query = posts::table
            .inner_join(authors::table)
            .select((RankDue::as_select(), Author::as_select()))
            .into_boxed();
        if min_score > 0 {
            query = query.filter(posts::score.ge(min_score));
        }
        query.filter(authors::name.ne(skip))
    };
    for (min_score, skip) in [(0, "author 1"), (2, "author 2")] {
        let expected: Vec<(RankDue, Author)> = query(min_score, skip)
            .order((
                posts::rank.is_null(),
                posts::rank.asc(),
                posts::due.is_not_null(),
                posts::due.desc(),
                posts::id.asc(),
            ))
            .load(&mut conn)
            .unwrap();
        assert!(expected.iter().any(|(row, _)| row.rank.is_none()));
        for limit in [4, 25] {
            let walk = || query(min_score, skip);
            assert_eq!(keyed(&walk::forward(&mut conn, limit, walk)), keyed(&expected));
            assert_eq!(keyed(&walk::backward(&mut conn, limit, walk)), keyed(&expected));
        }
    }
}

/// Authors joined with their posts repeat each author once per post: paged by author, a page
/// boundary inside an author would skip the rest of their rows. The page fails instead, as the
/// server's fault, never with a short or repeating page.
#[test]
fn join_that_repeats_the_models_rows_fails_its_page() {
    let mut conn = db::seeded(ROWS);
    let query = || authors::table.inner_join(posts::table).select(Author::as_select());
    let error = query().paginate(&PageRequest::first(3)).unwrap().load_page(&mut conn).unwrap_err();
    assert!(matches!(error, Error::RepeatedKeys { .. }), "{error:?}");
    assert!(!error.is_client_error());
    assert!(error.to_string().contains("authors: id ASC"), "{error}");
    // The same join with one post per author (a filter that makes it many-to-one) pages.
    let one_each = || {
        authors::table
            .inner_join(posts::table)
            .filter(posts::id.le(5))
            .select((Author::as_select(), Newest::as_select()))
    };
    let rows = walk::forward(&mut conn, 2, one_each);
    assert_eq!(rows.iter().map(|(author, _)| author.id).collect::<Vec<_>>(), [1, 2, 3, 4, 5]);
}

/// The async path pages a join as the sync one does, page for page, in an order of the name
/// alone and in one grouped by the author (on MariaDB a walk of one author at a time).
#[test]
fn async_pages_of_a_join_match_the_sync_ones() {
    let mut both = Both::seeded(ROWS);
    macro_rules! same_pages {
        ($model:ty) => {{
            let query = || {
                posts::table
                    .inner_join(authors::table)
                    .select((<$model>::as_select(), Author::as_select()))
            };
            let mut request = PageRequest::first(17);
            let mut pages = 0;
            loop {
                let sync = query().paginate(&request).unwrap().load_page(&mut both.sync).unwrap();
                let paginated = query().paginate(&request).unwrap();
                let page =
                    both.rt.block_on(paginated.load_page_async(&mut both.asynchronous)).unwrap();
                assert_eq!(page, sync, "{request:?}");
                pages += 1;
                match page.next_cursor {
                    Some(token) => request = PageRequest::after(token, 17),
                    None => break,
                }
            }
            assert_eq!(pages, (ROWS as usize).div_ceil(17));
        }};
    }
    same_pages!(PostByAuthor);
    same_pages!(PostByAuthorGroup);
}

/// Any page size, any run-time filter on either table, and the joined-key orders (by the name
/// alone, and grouped by the author, with two authors of one name) page every matching row
/// exactly once, in order, both ways. Authors without posts lie before, between and after the
/// others (one of the tied name): a walk by groups passes them (`machine/groups.rs`).
#[test]
fn joined_key_walks_match_the_oracle() {
    let conn = RefCell::new(db::seeded(ROWS));
    let rename =
        diesel::update(authors::table.filter(authors::id.eq(4))).set(authors::name.eq("author 2"));
    rename.execute(&mut *conn.borrow_mut()).unwrap();
    let silent = [(6, "author 0"), (7, "author 2"), (8, "author 3a"), (9, "author 9")];
    let silent = silent.map(|(id, name)| (authors::id.eq(id), authors::name.eq(name)));
    let insert = diesel::insert_into(authors::table).values(&silent[..]);
    insert.execute(&mut *conn.borrow_mut()).unwrap();
    let mut runner = TestRunner::new(super::props::config());
    let cases = (1u32..40, 0i32..4, 1i64..=6);
    let outcome = runner.run(&cases, |(limit, min_score, skip)| {
        let conn = &mut *conn.borrow_mut();
        let query = move || {
            posts::table
                .inner_join(authors::table)
                .filter(posts::score.ge(min_score))
                .filter(authors::id.ne(skip))
                .select((PostByAuthor::as_select(), Author::as_select()))
        };
        let expected: Vec<(PostByAuthor, Author)> =
            query().order((authors::name.asc(), posts::id.desc())).load(conn).unwrap();
        prop_assert_eq!(keyed(&walk::forward(conn, limit, query)), keyed(&expected));
        prop_assert_eq!(keyed(&walk::backward(conn, limit, query)), keyed(&expected));
        // Grouped by the author, two of them of one name.
        let grouped = move || {
            posts::table
                .inner_join(authors::table)
                .filter(posts::score.ge(min_score))
                .filter(authors::id.ne(skip))
                .select((PostByAuthorGroup::as_select(), Author::as_select()))
        };
        let order = (authors::name.asc(), authors::id.asc(), posts::created_at.desc());
        let expected: Vec<(PostByAuthorGroup, Author)> =
            grouped().order((order, posts::id.desc())).load(conn).unwrap();
        prop_assert_eq!(keyed(&walk::forward(conn, limit, grouped)), keyed(&expected));
        prop_assert_eq!(keyed(&walk::backward(conn, limit, grouped)), keyed(&expected));
        Ok(())
    });
    outcome.unwrap();
}
