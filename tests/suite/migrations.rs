//! The index migrations the example crate's build script wrote (`examples/blog`), applied with
//! diesel_migrations on a fresh database: each model's deep page is an index seek on exactly the
//! index named in its `Keyset::INDEXES`, with no sort; and the down migrations revert cleanly.

use diesel::prelude::*;
use diesel_migrations::MigrationHarness;
use keyset_example_blog::schema::{authors, memberships, posts};
use keyset_example_blog::{ByAuthor, ByRank, BySlug, Membership, Post, TopScore};
use keyset_runtime::__testing::sql::{OneSide, SeekParts};
use keyset_runtime::__testing::sql::{OrderBy, Region, SeekDialect};
use keyset_runtime::explain::PlanError;
use keyset_runtime::Keyset;
use keyset_runtime::{PageRequest, Paginate};
use keyset_tests::seed::timestamp;

use crate::migrations_db::{analyze, fresh_database, index_seek, MIGRATIONS};

const POSTS: i64 = 20_000;

fn seed(conn: &mut crate::Conn) {
    let rows: Vec<_> = (1..=POSTS)
        .map(|id| {
            (
                posts::id.eq(id),
                posts::created_at.eq(timestamp((id * 7) % 97)),
                posts::score.eq((id % 50) as i32),
                posts::rank.eq((id % 10 != 3).then_some((id % 40) as i32)),
                posts::slug.eq(format!("post-{id:06}")),
                posts::title.eq(format!("Post {id}")),
                posts::author_id.eq(1 + id % 50),
            )
        })
        .collect();
    for chunk in rows.chunks(1_000) {
        diesel::insert_into(posts::table).values(chunk).execute(conn).unwrap();
    }
    let members: Vec<_> = (0..20_000)
        .map(|i| {
            (
                memberships::team_id.eq(i % 100),
                memberships::user_id.eq(i / 100),
                memberships::joined_at.eq(timestamp(i64::from(i % 31))),
            )
        })
        .collect();
    for chunk in members.chunks(1_000) {
        diesel::insert_into(memberships::table).values(chunk).execute(conn).unwrap();
    }
}

/// Checks that the page after the row at `$depth` of `M`'s order is an index seek on `M`'s index.
/// For a nullable leading key, `$nulls` says which side of its NULL boundary the cursor is on:
/// the query is then the one a split page runs first, within the cursor's region.
macro_rules! assert_deep_page_uses_its_index {
    ($conn:expr, $table:ident, $model:ty, $depth:expr) => {
        assert_deep_page_uses_its_index!($conn, $table, $model, $depth, Region::Whole, |order| {
            order
        })
    };
    ($conn:expr, $table:ident, $model:ty, $depth:expr, $region:expr, $order:expr) => {
        assert_deep_page_uses_its_index!(
            $conn,
            $table::table,
            $model,
            $depth,
            $region,
            $order,
            <$model as Keyset>::INDEXES[0]
        )
    };
    // The page of the query `$rows` (a table, or a filtered one), on the index `$index`.
    ($conn:expr, $rows:expr, $model:ty, $depth:expr, $region:expr, $order:expr, $index:expr) => {{
        let rows: Vec<$model> =
            $rows.select(<$model>::as_select()).order(<$model>::order_by()).load($conn).unwrap();
        let cursor = rows[(rows.len() as f64 * $depth) as usize].cursor();
        let page = $rows
            .select(<$model>::as_select())
            .filter(<$model>::after(&cursor).region($region))
            .order($order(<$model>::order_by()))
            .limit(21);
        let plan =
            index_seek(&page, $conn).unwrap_or_else(|err| panic!("{}: {err}", stringify!($model)));
        let index = $index.name;
        assert!(
            plan.iter().any(|line| line.contains(index)),
            "{} uses {index}: {plan:#?}",
            stringify!($model)
        );
    }};
}

/// Several models on one table get indexes of their own, under names of their own.
#[test]
fn models_on_one_table_share_no_index_names() {
    let names: Vec<&str> = [Post::INDEXES, TopScore::INDEXES, ByRank::INDEXES, BySlug::INDEXES]
        .iter()
        .flat_map(|indexes| indexes.iter().map(|index| index.name))
        .collect();
    let distinct: std::collections::BTreeSet<&str> = names.iter().copied().collect();
    assert_eq!(distinct.len(), names.len(), "{names:?}");
    assert_eq!(
        names.len(),
        5,
        "one index each (BySlug's is its unique index), and Post's prefix index: {names:?}"
    );
}

#[test]
fn generated_migrations_give_every_model_its_index_and_revert_cleanly() {
    let (mut conn, _database) = fresh_database();
    let applied = conn.run_pending_migrations(MIGRATIONS).unwrap();
    assert!(applied.len() >= 2, "the tables and the generated indexes: {applied:?}");
    seed(&mut conn);
    analyze(&mut conn);

    assert_deep_page_uses_its_index!(&mut conn, posts, Post, 0.9);
    assert_deep_page_uses_its_index!(&mut conn, posts, TopScore, 0.9);
    assert_deep_page_uses_its_index!(&mut conn, posts, BySlug, 0.9);
    assert_deep_page_uses_its_index!(&mut conn, memberships, Membership, 0.9);
    // One author's posts (a feed's branch): a seek on the index its prefix declares.
    let (whole, as_declared) = (Region::Whole, |order| order);
    let one_author = || posts::table.filter(posts::author_id.eq(7));
    let prefixed = Post::INDEXES[1];
    assert!(prefixed.name.contains("author_id"), "{}", prefixed.name);
    assert_deep_page_uses_its_index!(
        &mut conn,
        one_author(),
        Post,
        0.9,
        whole,
        as_declared,
        prefixed
    );
    // A nullable leading key: the page's first query, in the cursor's region, on either side of
    // the boundary (the last 10% of the order are the NULLs).
    const { assert!(<<crate::Conn as Connection>::Backend as SeekDialect>::SPLIT_NULL_REGIONS) };
    let one_side = |order: OrderBy<ByRank, _>| order.one_side();
    assert_deep_page_uses_its_index!(&mut conn, posts, ByRank, 0.5, Region::Cursor, one_side);
    assert_deep_page_uses_its_index!(&mut conn, posts, ByRank, 0.95, Region::Cursor, one_side);

    // The unique index that `#[tiebreaker(unique)]` relies on is real.
    let duplicate = diesel::insert_into(posts::table)
        .values((
            posts::id.eq(POSTS + 1),
            posts::created_at.eq(timestamp(1)),
            posts::score.eq(1),
            posts::slug.eq("post-000001"),
            posts::title.eq("duplicate"),
            posts::author_id.eq(1),
        ))
        .execute(&mut conn);
    assert!(duplicate.is_err(), "a second post-000001 is refused");

    // An order led by a joined table's keys: its index on `authors`, written by the migration
    // writer after the migration that creates that table, is the one a page of it walks, and
    // the page is the ORDER BY's (authors of one name: ties broken by the author).
    let names: Vec<_> = (1..=50_i64)
        .map(|id| (authors::id.eq(id), authors::name.eq(format!("author {}", id % 20))))
        .collect();
    diesel::insert_into(authors::table).values(&names).execute(&mut conn).unwrap();
    analyze(&mut conn);
    let join = || posts::table.inner_join(authors::table).select(ByAuthor::as_select());
    let cursor = join().order(ByAuthor::order_by()).offset(POSTS * 9 / 10).first(&mut conn);
    let page =
        join().filter(ByAuthor::after(&cursor.unwrap().cursor())).order(ByAuthor::order_by());
    let plan = match index_seek(&page.limit(21), &mut conn) {
        Ok(plan) | Err(PlanError::NotASeek { plan, .. }) => plan,
        Err(err) => panic!("{err}"),
    };
    let unique = ByAuthor::INDEXES.iter().find(|index| index.name.starts_with("authors_")).unwrap();
    assert!(plan.iter().any(|line| line.contains(unique.name)), "{}: {plan:#?}", unique.name);
    let first = join().paginate(&PageRequest::first(20)).unwrap().load_page(&mut conn).unwrap();
    let expected: Vec<ByAuthor> =
        join().order(ByAuthor::order_by()).limit(20).load(&mut conn).unwrap();
    assert_eq!(first.items, expected);

    conn.revert_all_migrations(MIGRATIONS).unwrap();
    assert!(posts::table.count().get_result::<i64>(&mut conn).is_err(), "the tables are gone");
}
