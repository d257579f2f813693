//! The GraphQL example end to end: real GraphQL queries against its schema (and one over HTTP),
//! paging a Relay connection forward and back, with every argument rule and `pageInfo` checked.

mod common;

use async_graphql::{Request, Variables};
use keyset_examples::db::Db;
use keyset_examples::graphql::{router, schema, BlogSchema};
use keyset_examples::pool::PoolOptions;
use serde_json::{json, Value};

use common::Server;

const POSTS: &str = r#"
    query Posts(
        $orderBy: PostOrder, $direction: Direction,
        $first: Int, $after: String, $last: Int, $before: String,
    ) {
        posts(
            orderBy: $orderBy, direction: $direction,
            first: $first, after: $after, last: $last, before: $before,
        ) {
            edges { cursor node { id title score createdAt } }
            pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
        }
    }"#;

/// A connection page as the response shows it.
#[derive(Debug)]
struct Connection {
    ids: Vec<i64>,
    cursors: Vec<String>,
    has_next: bool,
    has_previous: bool,
    start: Option<String>,
    end: Option<String>,
}

async fn start(rows: i64) -> (Db, BlogSchema) {
    let db =
        Db::open(None, rows, PoolOptions::default()).await.expect("open a temporary SQLite file");
    (db.clone(), schema(db))
}

/// Runs the `posts` query with `variables`; the response's `data` or its errors.
async fn run(
    schema: &BlogSchema,
    variables: Value,
) -> Result<Value, Vec<async_graphql::ServerError>> {
    let request = Request::new(POSTS).variables(Variables::from_json(variables));
    let response = schema.execute(request).await;
    if response.errors.is_empty() {
        Ok(response.data.into_json().expect("JSON data"))
    } else {
        Err(response.errors)
    }
}

/// Runs the `posts` query, which must succeed, and reads its connection, checking that
/// `startCursor` and `endCursor` are the first and last edges' cursors.
async fn posts(schema: &BlogSchema, variables: Value) -> Connection {
    let data = run(schema, variables.clone())
        .await
        .unwrap_or_else(|errors| panic!("posts({variables}): {errors:?}"));
    let posts = &data["posts"];
    let edges = posts["edges"].as_array().expect("edges");
    let info = &posts["pageInfo"];
    let cursor = |value: &Value| value.as_str().map(str::to_owned);
    let page = Connection {
        ids: edges.iter().map(|edge| edge["node"]["id"].as_i64().expect("id")).collect(),
        cursors: edges.iter().map(|edge| cursor(&edge["cursor"]).expect("cursor")).collect(),
        has_next: info["hasNextPage"].as_bool().expect("hasNextPage"),
        has_previous: info["hasPreviousPage"].as_bool().expect("hasPreviousPage"),
        start: cursor(&info["startCursor"]),
        end: cursor(&info["endCursor"]),
    };
    assert_eq!(page.start.as_ref(), page.cursors.first(), "startCursor is the first edge's");
    assert_eq!(page.end.as_ref(), page.cursors.last(), "endCursor is the last edge's");
    page
}

/// The query must fail with one `BAD_USER_INPUT` error whose message contains `reason`.
async fn refused(schema: &BlogSchema, variables: Value, reason: &str) {
    let errors = run(schema, variables.clone()).await.expect_err("refused");
    assert_eq!(errors.len(), 1, "{errors:?}");
    let error = &errors[0];
    assert!(
        error.message.contains(reason),
        "posts({variables}): {:?} should say {reason:?}",
        error.message
    );
    let code = error.extensions.as_ref().and_then(|ext| ext.get("code")).cloned();
    assert_eq!(code, Some(async_graphql::Value::from("BAD_USER_INPUT")), "posts({variables})");
}

async fn table(db: &Db) -> Vec<i64> {
    db.all().await.expect("all posts").into_iter().map(|post| post.id).collect()
}

#[tokio::test]
async fn first_and_after_walk_forward_with_exact_page_info() {
    let (db, schema) = start(95).await;
    let mut listed: Vec<i64> = Vec::new();
    let mut page = posts(&schema, json!({ "first": 10 })).await;
    assert!(!page.has_previous, "the first page has no previous page");
    loop {
        listed.extend(page.ids.iter().copied());
        if !page.has_next {
            break;
        }
        assert_eq!(page.ids.len(), 10, "a page with a next page is full");
        page = posts(&schema, json!({ "first": 10, "after": page.end })).await;
        assert!(page.has_previous, "a page after a cursor has the cursor's row before it");
    }
    assert_eq!(listed, table(&db).await);
    assert_eq!(page.ids.len(), 5);
}

#[tokio::test]
async fn last_and_before_walk_backward_with_exact_page_info() {
    let (db, schema) = start(95).await;
    let mut pages = Vec::new();
    let mut page = posts(&schema, json!({ "last": 10 })).await;
    assert!(!page.has_next, "the last page has no next page");
    loop {
        pages.push(page.ids.clone());
        if !page.has_previous {
            break;
        }
        page = posts(&schema, json!({ "last": 10, "before": page.start })).await;
        assert!(page.has_next, "a page before a cursor has the cursor's row after it");
    }
    let listed: Vec<i64> = pages.into_iter().rev().flatten().collect();
    assert_eq!(listed, table(&db).await, "edges in the list's order, pages in reverse");
}

/// Relay cursors are per edge and work in both directions.
#[tokio::test]
async fn any_edge_cursor_pages_both_ways() {
    let (db, schema) = start(60).await;
    let all = table(&db).await;
    let page = posts(&schema, json!({ "first": 30 })).await;
    for (index, cursor) in page.cursors.iter().enumerate() {
        let after = posts(&schema, json!({ "first": 4, "after": cursor })).await;
        assert_eq!(after.ids, all[index + 1..index + 5]);
        assert!(after.has_previous && after.has_next);

        let before = posts(&schema, json!({ "last": 4, "before": cursor })).await;
        assert_eq!(before.ids, all[index.saturating_sub(4)..index]);
        assert_eq!(before.has_previous, index > 4, "exact: rows lie before the page");
        assert!(before.has_next, "the cursor's row follows");
        // `after` or `before` alone: the default count, 20.
        let alone = posts(&schema, json!({ "before": cursor })).await;
        assert_eq!(alone.ids, all[index.saturating_sub(20)..index]);
    }
}

#[tokio::test]
async fn rows_inserted_between_queries_do_not_shift_the_pages() {
    let (db, schema) = start(50).await;
    let page1 = posts(&schema, json!({ "first": 10 })).await;
    let all = db.all().await.unwrap();
    let cursor_row = &all[9];
    // A newer post (behind the cursor) and one just older than the cursor row (ahead of it).
    db.insert(keyset_examples::db::now(), "new").await.unwrap();
    let ahead = db
        .insert(cursor_row.created_at - chrono::TimeDelta::microseconds(1), "ahead")
        .await
        .unwrap();
    let page2 = posts(&schema, json!({ "first": 10, "after": page1.end })).await;
    assert_eq!(page2.ids[0], ahead.id);
    assert_eq!(page2.ids[1..], all[10..19].iter().map(|post| post.id).collect::<Vec<_>>());
}

#[tokio::test]
async fn zero_counts_return_no_edges_and_still_say_what_lies_beyond() {
    let (db, schema) = start(10).await;
    let all = posts(&schema, json!({ "first": 10 })).await;
    let zero = posts(&schema, json!({ "first": 0 })).await;
    assert!(zero.ids.is_empty() && zero.start.is_none() && zero.end.is_none());
    assert!(zero.has_next && !zero.has_previous);
    let at_end = posts(&schema, json!({ "first": 0, "after": all.end })).await;
    assert!(!at_end.has_next);
    let back = posts(&schema, json!({ "last": 0, "before": all.cursors[3] })).await;
    assert!(back.ids.is_empty() && back.has_previous && back.has_next);
    assert_eq!(table(&db).await.len(), 10);
}

/// Every row after the second page deleted: the page after it has no edges and no cursors, says
/// rows lie behind it, and `last` reads them.
#[tokio::test]
async fn an_emptied_page_says_rows_lie_behind_and_last_reads_them() {
    let (db, schema) = start(30).await;
    let page1 = posts(&schema, json!({ "first": 10 })).await;
    let page2 = posts(&schema, json!({ "first": 10, "after": page1.end })).await;
    for id in &table(&db).await[20..] {
        assert!(db.delete(*id).await.expect("delete"));
    }
    let empty = posts(&schema, json!({ "first": 10, "after": page2.end })).await;
    assert!(empty.ids.is_empty() && empty.start.is_none() && empty.end.is_none());
    assert!(empty.has_previous && !empty.has_next);
    let back = posts(&schema, json!({ "last": 10 })).await;
    assert_eq!(back.ids, page2.ids);
    assert!(back.has_previous && !back.has_next);
}

#[tokio::test]
async fn counts_are_clamped_to_100() {
    let (_db, schema) = start(150).await;
    let page = posts(&schema, json!({ "first": 1000 })).await;
    assert_eq!(page.ids.len(), 100);
    assert!(page.has_next);
}

#[tokio::test]
async fn invalid_arguments_are_refused_as_bad_user_input() {
    let (_db, schema) = start(10).await;
    let page = posts(&schema, json!({ "first": 2 })).await;
    let cursor = page.end.unwrap();
    let foreign = keyset_runtime::__testing::token::encode(
        keyset_runtime::__testing::token::fingerprint("comments: id ASC"),
        keyset_runtime::Direction::After,
        &(7i64,),
    )
    .unwrap();

    refused(&schema, json!({ "first": -1 }), "`first` must not be negative").await;
    refused(&schema, json!({ "last": -3 }), "`last` must not be negative").await;
    refused(&schema, json!({ "first": 1, "last": 1 }), "not both").await;
    refused(&schema, json!({ "after": cursor, "before": cursor }), "not both").await;
    refused(&schema, json!({ "first": 1, "before": cursor }), "give `last`").await;
    refused(&schema, json!({ "last": 1, "after": cursor }), "give `first`").await;
    refused(&schema, json!({ "after": "not-a-cursor" }), "invalid cursor").await;
    refused(&schema, json!({ "before": "" }), "empty").await;
    refused(&schema, json!({ "after": foreign }), "another listing").await;
}

/// The same schema over HTTP, as a client sends it: `POST /graphql` with a JSON body.
#[tokio::test]
async fn the_schema_answers_over_http() {
    let (_db, schema) = start(30).await;
    let server = Server::start(router(schema)).await;
    let query = json!({ "query": POSTS, "variables": { "first": 3 } });
    let reply = server.post_json("/graphql", &query).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let body = reply.json();
    assert_eq!(body["data"]["posts"]["edges"].as_array().unwrap().len(), 3, "{body}");
    let end = body["data"]["posts"]["pageInfo"]["endCursor"].clone();

    let next = json!({ "query": POSTS, "variables": { "first": 3, "after": end } });
    let body = server.post_json("/graphql", &next).await.json();
    assert_eq!(body["data"]["posts"]["pageInfo"]["hasPreviousPage"], true, "{body}");

    let bad = json!({ "query": POSTS, "variables": { "first": -1 } });
    let body = server.post_json("/graphql", &bad).await.json();
    assert_eq!(body["errors"][0]["extensions"]["code"], "BAD_USER_INPUT", "{body}");
}

/// `totalCount` on the connection: null unless selected, a bounded count when selected without
/// `count`, the kind saying which, and an exact count refused as the client's.
#[tokio::test]
async fn total_count_says_how_many_and_what_kind_of_number() {
    let (_db, schema) = start(30).await;
    let query = |count: &str| {
        format!(
            "{{ posts(first: 3{count}) {{ edges {{ cursor }} totalCount {{ kind count page pages }} }} }}"
        )
    };
    let data = |query: String| {
        let schema = schema.clone();
        async move { schema.execute(Request::new(query)).await }
    };
    let selected = data(query("")).await;
    assert!(selected.errors.is_empty(), "{:?}", selected.errors);
    let total = selected.data.into_json().unwrap()["posts"]["totalCount"].clone();
    assert_eq!(total, json!({ "kind": "EXACT", "count": 30, "page": null, "pages": null }));

    let estimated = data(query(", count: ESTIMATED")).await.data.into_json().unwrap();
    let total = &estimated["posts"]["totalCount"];
    // The example serves SQLite, whose estimate is the bounded count, said to be one.
    assert_eq!(total["kind"], "EXACT", "{total}");
    assert_eq!(total["count"], 30, "{total}");

    let refused = data(query(", count: EXACT")).await;
    assert_eq!(refused.errors.len(), 1, "{:?}", refused.errors);
    assert!(refused.errors[0].message.contains("exact counts"), "{:?}", refused.errors);

    let unselected = data("{ posts(first: 3) { edges { cursor } } }".to_owned()).await;
    assert!(unselected.errors.is_empty(), "{:?}", unselected.errors);
}

/// The resolver on every database of the build (SQLite; PostgreSQL and MariaDB with the
/// `postgres` and `mysql` features, each in a schema or database of the test's own): `first`
/// and `after` forward, `last` and `before` back, both the whole table in order.
#[tokio::test]
async fn the_connection_pages_alike_on_every_database() {
    for database in common::databases::all("graphql_walk", 45, PoolOptions::default()).await {
        let (name, all) = (&database.name, table(&database.db).await);
        let schema = schema(database.db.clone());
        let (mut forward, mut page) = (Vec::new(), posts(&schema, json!({ "first": 7 })).await);
        loop {
            forward.extend(page.ids.iter().copied());
            if !page.has_next {
                break;
            }
            page = posts(&schema, json!({ "first": 7, "after": page.end })).await;
        }
        assert_eq!(forward, all, "{name}: forward");
        let (mut pages, mut page) = (Vec::new(), posts(&schema, json!({ "last": 7 })).await);
        loop {
            pages.push(page.ids.clone());
            if !page.has_previous {
                break;
            }
            page = posts(&schema, json!({ "last": 7, "before": page.start })).await;
        }
        let backward: Vec<i64> = pages.into_iter().rev().flatten().collect();
        assert_eq!(backward, all, "{name}: backward");
        assert_eq!(all.len(), 45, "{name}: seeded");
    }
}

/// The posts' ids in `order_by` (`NEW`, `TOP`, `TITLE`) and `direction` (`None`: as declared),
/// sorted here from the rows themselves: what the connection must return, in that order.
fn in_order(
    mut rows: Vec<keyset_examples::db::Post>,
    order_by: &str,
    direction: Option<&str>,
) -> Vec<i64> {
    let declared = match order_by {
        "NEW" => {
            rows.sort_by_key(|row| std::cmp::Reverse((row.created_at, row.id)));
            "DESC"
        }
        "TOP" => {
            rows.sort_by_key(|row| std::cmp::Reverse((row.score, row.created_at, row.id)));
            "DESC"
        }
        _ => {
            rows.sort_by(|a, b| (&a.title, a.id).cmp(&(&b.title, b.id)));
            "ASC"
        }
    };
    if direction.is_some_and(|direction| direction != declared) {
        rows.reverse();
    }
    rows.into_iter().map(|row| row.id).collect()
}

/// `orderBy` × `direction`, on every database of the build: `first`/`after` forward and
/// `last`/`before` back give every post once, in the order the choice names; a cursor of one
/// choice is refused by every other, naming both.
#[tokio::test]
async fn every_order_and_direction_pages_forward_and_back() {
    for database in common::databases::all("graphql_orders", 37, PoolOptions::default()).await {
        let name = &database.name;
        let rows = database.db.all().await.expect("all posts");
        let schema = schema(database.db.clone());
        let mut cursors = Vec::new();
        for order_by in ["NEW", "TOP", "TITLE"] {
            for direction in [None, Some("ASC"), Some("DESC")] {
                let expected = in_order(rows.clone(), order_by, direction);
                let choice = json!({ "orderBy": order_by, "direction": direction });
                let with = |more: Value| {
                    let mut variables = choice.clone();
                    variables.as_object_mut().unwrap().extend(more.as_object().unwrap().clone());
                    variables
                };
                let mut forward = Vec::new();
                let mut page = posts(&schema, with(json!({ "first": 5 }))).await;
                cursors.push((order_by, direction, page.cursors[0].clone()));
                loop {
                    forward.extend(page.ids.iter().copied());
                    if !page.has_next {
                        break;
                    }
                    page = posts(&schema, with(json!({ "first": 5, "after": page.end }))).await;
                }
                assert_eq!(forward, expected, "{name}: {order_by} {direction:?} forward");
                let (mut pages, mut page) =
                    (Vec::new(), posts(&schema, with(json!({ "last": 5 }))).await);
                loop {
                    pages.push(page.ids.clone());
                    if !page.has_previous {
                        break;
                    }
                    page = posts(&schema, with(json!({ "last": 5, "before": page.start }))).await;
                }
                let backward: Vec<i64> = pages.into_iter().rev().flatten().collect();
                assert_eq!(backward, expected, "{name}: {order_by} {direction:?} backward");
            }
        }
        // `direction: null` is the order as declared: NEW's is DESC, TITLE's ASC.
        fn same(order_by: &str, direction: Option<&'static str>) -> &'static str {
            match direction {
                None if order_by == "TITLE" => "ASC",
                None => "DESC",
                Some(direction) => direction,
            }
        }
        for (issued_order, issued_dir, cursor) in &cursors {
            for (order_by, direction, _) in &cursors {
                let variables = json!({
                    "orderBy": order_by, "direction": direction, "first": 5, "after": cursor,
                });
                if order_by == issued_order
                    && same(order_by, *direction) == same(issued_order, *issued_dir)
                {
                    assert!(run(&schema, variables).await.is_ok(), "{name}: its own cursor");
                } else {
                    let issued = format!(
                        "`{} {}`",
                        issued_order.to_lowercase(),
                        same(issued_order, *issued_dir).to_lowercase()
                    );
                    refused(&schema, variables, &issued).await;
                }
            }
        }
    }
}
