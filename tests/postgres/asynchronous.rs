//! diesel-async runs the same generated expressions: a page loaded through `AsyncPgConnection`
//! equals the page loaded through `PgConnection`.

use diesel::{ExpressionMethods, QueryDsl, SelectableHelper};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl as _};
use keyset_runtime::Keyset;
use keyset_tests::models::Newest;
use keyset_tests::schema::posts;

use crate::db;

#[tokio::test(flavor = "current_thread")]
async fn generated_expressions_run_on_diesel_async() {
    let url = keyset_tests::database_url("PG_DATABASE_URL", keyset_tests::POSTGRES_URL);
    let mut conn = AsyncPgConnection::establish(&url).await.expect("PostgreSQL is reachable");
    // Temporary tables are per connection: create and fill this connection's own.
    for statement in keyset_tests::schema::POSTGRES_DDL {
        diesel::sql_query(*statement).execute(&mut conn).await.unwrap();
    }
    let rows: Vec<_> = (1..=5)
        .map(|id| {
            (keyset_tests::schema::authors::id.eq(id), keyset_tests::schema::authors::name.eq("a"))
        })
        .collect();
    diesel::insert_into(keyset_tests::schema::authors::table)
        .values(&rows)
        .execute(&mut conn)
        .await
        .unwrap();
    let posts: Vec<_> = (1..=120).map(keyset_tests::seed::post).collect();
    diesel::insert_into(posts::table).values(&posts).execute(&mut conn).await.unwrap();

    let mut sync = db::seeded(120);
    let all: Vec<Newest> = diesel::RunQueryDsl::load(
        posts::table.select(Newest::as_select()).order(Newest::order_by()),
        &mut sync,
    )
    .unwrap();
    let cursor = all[40].cursor();

    let after = posts::table
        .select(Newest::as_select())
        .filter(Newest::after(&cursor))
        .order(Newest::order_by())
        .limit(10)
        .load::<Newest>(&mut conn)
        .await
        .unwrap();
    assert_eq!(after, all[41..51]);
    let before = posts::table
        .select(Newest::as_select())
        .filter(Newest::before(&cursor))
        .order(Newest::reverse_order_by())
        .limit(3)
        .into_boxed()
        .load::<Newest>(&mut conn)
        .await
        .unwrap();
    assert_eq!(before, [all[39].clone(), all[38].clone(), all[37].clone()]);
}
