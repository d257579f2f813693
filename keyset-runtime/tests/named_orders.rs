//! Named orders: a token sent to another order of the same model is refused naming the order
//! that issued it, whichever of the two was declared first.

use diesel::prelude::*;
use keyset_runtime::{CursorError, Error, Keyset, PageRequest, Paginate, SortDirection};

diesel::table! {
    posts (id) {
        id -> BigInt,
        score -> Integer,
        title -> Text,
    }
}

#[derive(Queryable, Selectable, Keyset)]
#[keyset(order(new: id desc), order(top: score desc, id desc), order(title: title asc, id asc))]
struct Post {
    #[tiebreaker]
    id: i64,
    score: i32,
    title: String,
}

/// The posts, selected for SQLite (`paginate_by` alone does not say which backend).
fn query() -> diesel::dsl::Select<posts::table, diesel::dsl::AsSelect<Post, diesel::sqlite::Sqlite>>
{
    posts::table.select(Post::as_select())
}

#[test]
fn a_token_of_another_order_names_it_whichever_was_declared_first() {
    let mut conn = SqliteConnection::establish(":memory:").unwrap();
    diesel::sql_query(
        "CREATE TABLE posts (id BIGINT PRIMARY KEY, score INTEGER NOT NULL, title TEXT NOT NULL)",
    )
    .execute(&mut conn)
    .unwrap();
    diesel::sql_query("INSERT INTO posts VALUES (1, 5, 'a'), (2, 9, 'b'), (3, 7, 'c')")
        .execute(&mut conn)
        .unwrap();
    let orders =
        PostOrder::ALL.iter().flat_map(|&order| SortDirection::ALL.map(|dir| (order, dir)));
    let orders: Vec<(PostOrder, SortDirection)> = orders.collect();
    for &(issuer, issuer_dir) in &orders {
        let first = query()
            .paginate_by(issuer, Some(issuer_dir), &PageRequest::first(1))
            .unwrap()
            .load_page(&mut conn)
            .unwrap();
        let after = PageRequest::after(first.next_cursor.unwrap(), 1);
        for &(order, dir) in &orders {
            let paged = query().paginate_by(order, Some(dir), &after);
            if (order, dir) == (issuer, issuer_dir) {
                assert!(paged.is_ok(), "{issuer} {issuer_dir}: its own token pages on");
                continue;
            }
            let issued = format!("{issuer} {issuer_dir}");
            let requested = format!("{order} {dir}");
            match paged.err() {
                Some(Error::Cursor(CursorError::OtherOrder { issued: i, requested: r })) => {
                    assert_eq!((i, r), (issued.as_str(), requested.as_str()));
                }
                other => panic!("{issued} token sent to {requested}: {other:?}"),
            }
        }
    }
}
