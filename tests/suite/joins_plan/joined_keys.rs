//! The orders led by a joined table's keys, statement by statement: the name-only order
//! (`reads_and_sorts`), which sorts every page, and the order grouped by the author, which walks
//! both tables' indexes (on MariaDB one author at a time).

use diesel::prelude::*;
use keyset_runtime::__testing::sql::SeekParts;
use keyset_runtime::explain::PlanError;
use keyset_runtime::migration::Backend;
use keyset_runtime::Keyset;
use keyset_tests::models::{PostByAuthor, PostByAuthorGroup};
use keyset_tests::schema::{authors, posts};

use super::reads::{read, reads};
use super::{backend, candidate, cost, plan_of, positions, ran, seeded, Cost};
use super::{PAGE, ROWS};
use crate::migrations_db::analyze_joins;

/// `PostByAuthor` (`authors.name ASC, id DESC`): no index on `posts` holds its leading key, so
/// every statement of every page, from the ends and past cursors both ways (on SQLite each tie
/// level too, `name = ? AND id < ?` sought on the primary key of `posts`), sorts the rows the
/// join matches: what a joined key costs (the crate docs' "# Joins"). Should an engine learn to
/// serve it, this fails.
#[test]
fn an_order_led_by_a_joined_column_sorts_every_page() {
    let mut conn = seeded();
    let query = || posts::table.inner_join(authors::table).select(PostByAuthor::as_select());
    let numbers = [ROWS as u32 / PAGE / 2, ROWS as u32 / PAGE * 9 / 10];
    let mut statements = 0;
    for at in positions(&mut conn, query, numbers, |post| post.cursor()) {
        let built = candidates!(query, PostByAuthor, at.cursor, levels);
        for statement in ran(&mut conn, query(), &at.request) {
            let what = format!("{:?}: {statement}", at.request);
            assert_eq!(cost(plan_of(&mut conn, &built, &statement), "", &what), Cost::Sorted);
            statements += 1;
        }
    }
    assert!(statements >= 6, "{statements}");
}

/// `PostByAuthorGroup` (`authors.name, authors.id, created_at DESC, id DESC`) with the derive's
/// indexes, `authors (name, id)` unique and `posts (author_id, created_at DESC, id DESC)`: every
/// statement of every page, from the ends and past cursors both ways (on SQLite each tie level,
/// on MariaDB each statement of its walk a group at a time), walks the authors in theirs and
/// seeks each author's posts in theirs. What is left per engine:
/// - SQLite sorts nothing: the unique index tells it each entry is one author, whose posts the
///   inner seek yields in order;
/// - PostgreSQL sorts each author's posts (an Incremental Sort, presorted by the author), so a
///   page reads whole the authors it touches, not the rows past the cursor;
/// - MariaDB, which sorts any ORDER BY over both tables in a temporary table, walks the groups
///   (`SeekDialect::WALK_GROUPS`): each statement is one author's posts, or the next author's
///   key under the authors' ORDER BY alone, and none sorts. Its pages run several statements.
///
/// Should an engine learn more, this fails.
#[test]
fn an_order_grouped_by_the_joined_row_walks_both_indexes() {
    let mut conn = seeded();
    let unique = PostByAuthorGroup::INDEXES.iter().find(|index| index.name.starts_with("authors"));
    let unique = unique.expect("the authors' index").name;
    for index in PostByAuthorGroup::INDEXES {
        diesel::sql_query(index.create(backend())).execute(&mut conn).unwrap();
    }
    analyze_joins(&mut conn);
    let feed = crate::suite::feeds::plan::FEED_INDEX;
    let query = || posts::table.inner_join(authors::table).select(PostByAuthorGroup::as_select());
    let numbers = [ROWS as u32 / PAGE / 2, ROWS as u32 / PAGE * 9 / 10];
    let mut statements = 0;
    for at in positions(&mut conn, query, numbers, |post| post.cursor()) {
        let built = candidates!(query, PostByAuthorGroup, at.cursor, groups);
        let ran = ran(&mut conn, query(), &at.request);
        // A page spans two or three authors of ten posts: on MariaDB the rest of the cursor's
        // author (none from an end), then two statements per author reached.
        if backend() == Backend::Mysql {
            assert!((4..=7).contains(&ran.len()), "{:?}: {ran:#?}", at.request);
        }
        for statement in ran {
            let what = format!("{:?}: {statement}", at.request);
            let (plan, sorted) = match plan_of(&mut conn, &built, &statement) {
                Ok(plan) => (plan, None),
                Err(PlanError::NotASeek { reason, plan }) => (plan, Some(reason)),
                Err(err) => panic!("{what}: {err}"),
            };
            let sorted = sorted.filter(|reason| reason.contains("sorted after reading"));
            let text = plan.join("\n");
            match backend() {
                Backend::Postgres => assert!(
                    text.contains("Incremental Sort")
                        && text.contains("Presorted Key: authors.name, authors.id"),
                    "{what}: {text}"
                ),
                _ => assert_eq!(sorted, None, "{what}: {text}"),
            }
            let reads = reads(&plan);
            let [authors, posts] = &reads[..] else { panic!("{what}: two tables: {text}") };
            // A statement of one author's posts (MariaDB's walk) finds the author by its key.
            let one_author = statement.contains("`authors`.`id` = ?");
            let index =
                if one_author && backend() == Backend::Mysql { "PRIMARY KEY" } else { unique };
            assert_eq!((&authors.table[..], &authors.index[..]), ("authors", index), "{what}");
            assert_eq!(posts, &read("posts", feed, true), "{what}: {text}");
            statements += 1;
        }
    }
    assert!(statements >= 6, "{statements}");
}
