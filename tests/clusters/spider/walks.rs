//! The walks of [`crate::walks`] through the head node, in both layouts: the writer deletes from
//! each data node through its partition of the head's table (`PARTITION (p1)`).

use diesel::prelude::*;
use diesel::sql_types::BigInt;

use super::{fixture, head_url};
use crate::listing::{LAYOUTS, SEED_ROWS};
use crate::walks::{
    async_page, async_pages_as_sync, cluster_statements, walks_repeat_and_skip_nothing, Cluster,
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
            async_page!(runtime, &mut async_conn, (order, dir), request)
        });
    }
}
