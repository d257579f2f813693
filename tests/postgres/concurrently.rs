//! The example blog's PostgreSQL migrations with its indexes built `CONCURRENTLY`, embedded with
//! `embed_migrations!`: PostgreSQL refuses `CREATE INDEX CONCURRENTLY` in a transaction, so they
//! run only because each is alone in its migration and marked `run_in_transaction = false`, and
//! revert and redo the same way.

use std::collections::BTreeSet;

use diesel::prelude::*;
use diesel_migrations::MigrationHarness;
use keyset_example_blog::POSTGRES_CONCURRENT_MIGRATIONS as MIGRATIONS;
use keyset_example_blog::{ByAuthor, ByRank, BySlug, Membership, Post, TopScore};
use keyset_runtime::Keyset;

#[derive(QueryableByName)]
struct IndexName {
    #[diesel(sql_type = diesel::sql_types::Text)]
    name: String,
}

fn keyset_indexes(conn: &mut crate::Conn) -> BTreeSet<String> {
    diesel::sql_query(
        "SELECT indexname::text AS name FROM pg_indexes \
         WHERE schemaname = current_schema() AND indexname LIKE '%\\_keyset\\_%'",
    )
    .load::<IndexName>(conn)
    .unwrap()
    .into_iter()
    .map(|index| index.name)
    .collect()
}

#[test]
fn embedded_concurrently_built_indexes_run_revert_and_redo() {
    let (mut conn, _database) = crate::migrations_db::fresh_named("embedded_concurrently");
    let models = [
        Post::INDEXES,
        TopScore::INDEXES,
        ByRank::INDEXES,
        BySlug::INDEXES,
        Membership::INDEXES,
        ByAuthor::INDEXES,
    ];
    let expected: BTreeSet<String> =
        models.iter().flat_map(|indexes| indexes.iter().map(|i| i.name.to_owned())).collect();

    let applied = conn.run_pending_migrations(MIGRATIONS).unwrap();
    assert_eq!(
        applied.len(),
        3 + expected.len(),
        "the tables, the authors and follows, the authors' names, then one migration per index"
    );
    assert_eq!(keyset_indexes(&mut conn), expected);

    // `diesel migration redo`: the last index dropped concurrently, then built again.
    conn.revert_last_migration(MIGRATIONS).unwrap();
    assert_eq!(keyset_indexes(&mut conn).len(), expected.len() - 1);
    conn.run_pending_migrations(MIGRATIONS).unwrap();
    assert_eq!(keyset_indexes(&mut conn), expected);

    conn.revert_all_migrations(MIGRATIONS).unwrap();
    assert_eq!(keyset_indexes(&mut conn), BTreeSet::new());
}
