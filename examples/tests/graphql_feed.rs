//! The GraphQL example's `feed` field end to end, on every database of the build: a Relay
//! connection among some authors' posts, walked forward with `first`/`after` and back with
//! `last`/`before`, lists exactly the naive listing's rows (every post by those authors, in the
//! order asked); its cursors page `posts` too; too many authors is `BAD_USER_INPUT`.

mod common;

use async_graphql::{Request, Variables};
use keyset_examples::db::feed::MAX_FEED_AUTHORS;
use keyset_examples::db::{Db, Post};
use keyset_examples::graphql::{schema, BlogSchema};
use keyset_examples::pool::PoolOptions;
use serde_json::{json, Value};

use common::databases;

const FEED: &str = r#"
    query Feed(
        $authors: [Int!]!, $orderBy: PostOrder, $direction: Direction,
        $first: Int, $after: String, $last: Int, $before: String,
    ) {
        feed(
            authors: $authors, orderBy: $orderBy, direction: $direction,
            first: $first, after: $after, last: $last, before: $before,
        ) {
            edges { cursor node { id authorId } }
            pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
        }
    }"#;

const POSTS: &str = r#"
    query Posts($first: Int, $after: String) {
        posts(first: $first, after: $after) { edges { node { id } } }
    }"#;

/// A page of the connection: its posts' ids and authors, and `pageInfo`.
struct Connection {
    ids: Vec<i64>,
    authors: Vec<i64>,
    has_next: bool,
    has_previous: bool,
    start: Option<String>,
    end: Option<String>,
}

/// Runs `query` with `variables`: its `data`, or its errors.
async fn run(schema: &BlogSchema, query: &str, variables: Value) -> Result<Value, Vec<String>> {
    let request = Request::new(query).variables(Variables::from_json(variables));
    let response = schema.execute(request).await;
    if !response.errors.is_empty() {
        return Err(response.errors.iter().map(|error| format!("{error:?}")).collect());
    }
    Ok(response.data.into_json().expect("JSON data"))
}

/// The `feed` query, which must succeed.
async fn feed(schema: &BlogSchema, variables: Value) -> Connection {
    let data = run(schema, FEED, variables.clone())
        .await
        .unwrap_or_else(|errors| panic!("feed({variables}): {errors:?}"));
    let edges = data["feed"]["edges"].as_array().expect("edges");
    let info = &data["feed"]["pageInfo"];
    let node = |edge: &Value, key: &str| edge["node"][key].as_i64().expect("an integer");
    Connection {
        ids: edges.iter().map(|edge| node(edge, "id")).collect(),
        authors: edges.iter().map(|edge| node(edge, "authorId")).collect(),
        has_next: info["hasNextPage"].as_bool().expect("hasNextPage"),
        has_previous: info["hasPreviousPage"].as_bool().expect("hasPreviousPage"),
        start: info["startCursor"].as_str().map(str::to_owned),
        end: info["endCursor"].as_str().map(str::to_owned),
    }
}

/// Every post by one of `authors`, newest first (or by score, ascending): the naive listing.
async fn naive(db: &Db, authors: &[i64], top_asc: bool) -> Vec<i64> {
    let mut rows: Vec<Post> = db.all().await.expect("every post");
    rows.retain(|post| authors.contains(&post.author_id));
    if top_asc {
        rows.sort_by_key(|post| (post.score, post.created_at, post.id));
    } else {
        rows.sort_by_key(|post| std::cmp::Reverse((post.created_at, post.id)));
    }
    rows.into_iter().map(|post| post.id).collect()
}

#[tokio::test]
async fn a_feed_connection_walks_both_ways_as_the_naive_listing_does() {
    for database in databases::all("graphql_feed", 120, PoolOptions::default()).await {
        let schema = schema(database.db.clone());
        let sets: [&[i64]; 5] = [&[1], &[2, 5], &[10, 3, 7, 4], &[4, 4, 999], &[]];
        for (order, top_asc) in
            [(json!({}), false), (json!({"orderBy": "TOP", "direction": "ASC"}), true)]
        {
            for authors in sets {
                let who = format!("{}, authors {authors:?}, {order}", database.name);
                let expected = naive(&database.db, authors, top_asc).await;
                let args = |extra: Value| {
                    let mut args = json!({ "authors": authors });
                    args.as_object_mut().unwrap().extend(order.as_object().unwrap().clone());
                    args.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
                    args
                };

                let (mut forward, mut after) = (Vec::new(), None::<String>);
                loop {
                    let page = feed(&schema, args(json!({ "first": 4, "after": after }))).await;
                    assert!(page.authors.iter().all(|author| authors.contains(author)), "{who}");
                    assert_eq!(page.has_previous, after.is_some(), "{who}: hasPreviousPage");
                    forward.extend(page.ids);
                    if !page.has_next {
                        break;
                    }
                    after = page.end;
                }
                assert_eq!(forward, expected, "{who}: forward, every row once");

                let (mut pages, mut before) = (Vec::new(), None::<String>);
                loop {
                    let page = feed(&schema, args(json!({ "last": 3, "before": before }))).await;
                    assert_eq!(page.has_next, before.is_some(), "{who}: hasNextPage");
                    pages.push(page.ids);
                    if !page.has_previous {
                        break;
                    }
                    before = page.start;
                }
                let backward: Vec<i64> = pages.into_iter().rev().flatten().collect();
                assert_eq!(backward, expected, "{who}: backward, every row once");
            }
        }
    }
}

#[tokio::test]
async fn a_feed_cursor_pages_posts_and_too_many_authors_are_refused() {
    for database in databases::all("graphql_feed_cursor", 60, PoolOptions::default()).await {
        let (schema, who) = (schema(database.db.clone()), &database.name);
        let page = feed(&schema, json!({ "authors": [3], "first": 2 })).await;
        let cursor = page.end.expect("a full page");
        // `posts` after a feed's cursor: every post after that row, whoever wrote it.
        let all = naive(&database.db, &(1..=Post::AUTHORS).collect::<Vec<_>>(), false).await;
        let at = all.iter().position(|id| *id == page.ids[1]).expect("the row is listed");
        let data = run(&schema, POSTS, json!({ "first": 3, "after": cursor })).await.unwrap();
        let edges = data["posts"]["edges"].as_array().expect("edges");
        let ids: Vec<i64> = edges.iter().map(|edge| edge["node"]["id"].as_i64().unwrap()).collect();
        assert_eq!(ids, all[at + 1..at + 4], "{who}: posts after a feed's cursor");

        let authors: Vec<i64> = (1..=MAX_FEED_AUTHORS as i64 + 1).collect();
        let errors = run(&schema, FEED, json!({ "authors": authors, "first": 2 })).await;
        let errors = errors.expect_err("too many authors are refused");
        assert_eq!(errors.len(), 1, "{who}: {errors:?}");
        assert!(errors[0].contains("BAD_USER_INPUT"), "{who}: {errors:?}");
        assert!(
            errors[0].contains(&format!("more than the {MAX_FEED_AUTHORS}")),
            "{who}: {errors:?}"
        );
    }
}
