//! The walks of [`crate::walks`] through the head node, in both layouts: the writer deletes from
//! each data node through its partition of the head's table (`PARTITION (p1)`).

use diesel::prelude::*;
use diesel::sql_types::BigInt;
use keyset_runtime::Paginate;
use keyset_tests::schema::stories;

use super::{fixture, head_url};
use crate::listing::{RemoteStory, LAYOUTS, SEED_ROWS};
use crate::walks::{
    async_pages_as_sync, cluster_statements, walks_repeat_and_skip_nothing, Cluster,
};

#[derive(QueryableByName)]
struct Id {
    #[diesel(sql_type = BigInt)]
    id: i64,
}

impl Cluster for MysqlConnection {
    cluster_statements!();

    fn row_of_shard(&mut self, shard: usize, step: i64) -> Option<i64> {
        let pick = format!(
            "SELECT id FROM stories PARTITION (p{shard}) ORDER BY (id * 7919) % 1009, id \
             LIMIT 1 OFFSET {step}"
        );
        diesel::sql_query(pick).get_result::<Id>(self).optional().unwrap().map(|row| row.id)
    }
}

#[test]
fn walks_through_spider_partitions_repeat_and_skip_nothing_beside_a_writer() {
    for layout in LAYOUTS {
        let (_guard, mut conn) = fixture(layout, SEED_ROWS);
        walks_repeat_and_skip_nothing(&mut conn, SEED_ROWS + 1, &format!("{layout:?}"));
    }
}

#[test]
fn the_async_path_pages_as_the_sync_one_through_the_head_node() {
    use diesel_async::{AsyncConnection, AsyncMysqlConnection};

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    for layout in LAYOUTS {
        let (_guard, mut conn) = fixture(layout, SEED_ROWS);
        let mut async_conn = runtime
            .block_on(AsyncMysqlConnection::establish(&head_url(layout.database())))
            .expect("an async connection to the head node");
        async_pages_as_sync(&mut conn, &format!("{layout:?}"), |(order, dir), request| {
            let paged = stories::table
                .select(RemoteStory::as_select())
                .paginate_by(order, Some(dir), request)
                .expect("a valid request");
            runtime
                .block_on(paged.load_page_async(&mut async_conn))
                .unwrap_or_else(|err| panic!("an async page failed: {err}"))
        });
    }
}

#[test]
fn zz_debug() {
    let (_guard, mut conn) = fixture(crate::listing::Layout::Hashed, SEED_ROWS);
    diesel::sql_query("SET GLOBAL general_log = 1").execute(&mut conn).unwrap();
    diesel::sql_query("SET GLOBAL log_output = 'TABLE'").execute(&mut conn).unwrap();
    diesel::sql_query("TRUNCATE mysql.general_log").execute(&mut conn).unwrap();
    let mut request = keyset_runtime::PageRequest::first(7);
    for n in 0..100 {
        let page = stories::table
            .select(RemoteStory::as_select())
            .paginate_by(
                crate::listing::RemoteStoryOrder::New,
                Some(keyset_runtime::SortDirection::Desc),
                &request,
            )
            .unwrap()
            .load_page(&mut conn);
        match page {
            Ok(page) => match page.next_cursor {
                Some(t) => request = keyset_runtime::PageRequest::after(t, 7),
                None => break,
            },
            Err(err) => {
                eprintln!("page {n}: {err}");
                break;
            }
        }
    }
}
