//! The web example end to end: its router served on a loopback port, paged through with a real
//! HTTP client, forward and back, with rows inserted and deleted between requests.

mod common;

use chrono::{NaiveDateTime, TimeDelta};
use keyset_examples::db::Db;
use keyset_examples::pool::PoolOptions;
use keyset_examples::web::router;
use keyset_runtime::__private::token;
use keyset_runtime::Direction;
use serde::Deserialize;
use serde_json::{json, Value};

use common::{encode, Server};

/// A post as the JSON pages show it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
struct Item {
    id: i64,
    created_at: NaiveDateTime,
    title: String,
}

/// A page: its items, and its tokens (`None` for JSON `null`).
struct JsonPage {
    items: Vec<Item>,
    next: Option<String>,
    prev: Option<String>,
}

async fn start(rows: i64) -> (Db, Server) {
    let db =
        Db::open(None, rows, PoolOptions::default()).await.expect("open a temporary SQLite file");
    let server = Server::start(router(db.clone())).await;
    (db, server)
}

/// `GET url`, which must be a 200 JSON page of exactly `items`, `next_cursor` and `prev_cursor`,
/// with a missing token `null`, never `""`.
async fn page(server: &Server, url: &str) -> JsonPage {
    let reply = server.get(url).await;
    assert_eq!(reply.status, 200, "GET {url}: {}", reply.body);
    assert_eq!(reply.content_type, "application/json");
    let body = reply.json();
    let mut keys: Vec<&str> =
        body.as_object().expect("an object").keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["items", "next_cursor", "prev_cursor"]);
    let token = |key: &str| match &body[key] {
        Value::Null => None,
        Value::String(token) if !token.is_empty() => Some(token.clone()),
        other => panic!("{key} must be a token or null, not {other}"),
    };
    let items: Vec<Item> = serde_json::from_value(body["items"].clone()).expect("posts");
    assert!(
        items.windows(2).all(|w| (w[0].created_at, w[0].id) > (w[1].created_at, w[1].id)),
        "a page is newest first, whichever way it was fetched: {items:?}"
    );
    JsonPage { next: token("next_cursor"), prev: token("prev_cursor"), items }
}

/// Every post in the table, newest first: the oracle.
async fn table(db: &Db) -> Vec<Item> {
    let posts = db.all().await.expect("load all posts");
    posts.into_iter().map(|p| Item { id: p.id, created_at: p.created_at, title: p.title }).collect()
}

/// Inserts a post directly in the database, as another writer would.
async fn insert(db: &Db, created_at: NaiveDateTime, title: &str) -> Item {
    let post = db.insert(created_at, title).await.expect("insert");
    Item { id: post.id, created_at: post.created_at, title: post.title }
}

fn ids(items: &[Item]) -> Vec<i64> {
    items.iter().map(|item| item.id).collect()
}

fn newest_first(items: &mut [Item]) {
    items.sort_by_key(|item| std::cmp::Reverse((item.created_at, item.id)));
}

const MICRO: TimeDelta = TimeDelta::microseconds(1);

#[tokio::test]
async fn a_forward_walk_lists_every_row_once_while_rows_are_inserted_and_deleted() {
    let (db, server) = start(230).await;
    let mut expected = table(&db).await;
    let mut listed = Vec::new();
    let mut url = "/posts?limit=25".to_owned();
    for number in 1.. {
        let page = page(&server, &url).await;
        assert_eq!(
            page.prev.is_some(),
            number > 1,
            "page {number}: a previous page exists from page 2 on"
        );
        assert!(page.items.len() <= 25);
        listed.extend(page.items.iter().cloned());
        let Some(next) = page.next else { break };
        let cursor_row = page.items.last().expect("a page with a next page has rows");

        // Between requests, rows land behind the cursor: this walk has passed them.
        let created =
            server.post_json("/posts", &json!({ "title": format!("new {number}") })).await;
        assert_eq!(created.status, 201, "{}", created.body);
        insert(&db, cursor_row.created_at + MICRO, "just behind the cursor").await;
        insert(&db, cursor_row.created_at, "tied with the cursor row, higher id: behind it").await;
        // And ahead of it: the walk must list them, once.
        if number <= 4 {
            expected
                .push(insert(&db, cursor_row.created_at - MICRO, "just ahead of the cursor").await);
            expected.push(
                insert(&db, cursor_row.created_at - TimeDelta::hours(3), "further ahead").await,
            );
        }
        // The cursor row itself may go: a cursor holds values, not a position.
        if number == 2 {
            assert!(db.delete(cursor_row.id).await.expect("delete"));
        }
        url = format!("/posts?limit=25&after={next}");
    }
    newest_first(&mut expected);
    assert_eq!(expected.len(), 230 + 8, "the seeded rows and the rows inserted ahead");
    assert!(
        table(&db).await.len() > expected.len(),
        "rows inserted behind the cursor exist, unlisted"
    );
    assert_eq!(
        ids(&listed),
        ids(&expected),
        "no row skipped or repeated, none from behind the cursor"
    );
}

#[tokio::test]
async fn a_backward_walk_from_the_end_lists_every_row_once_while_rows_are_inserted() {
    let (db, server) = start(230).await;
    let mut behind = Vec::new();
    let mut pages = Vec::new();
    let mut url = "/posts?last=true&limit=25".to_owned();
    for number in 1.. {
        let page = page(&server, &url).await;
        assert_eq!(
            page.next.is_some(),
            number > 1,
            "page {number} from the end: a next page exists from the second on"
        );
        let first_row = page.items.first().expect("a non-empty table has non-empty pages").clone();
        pages.push(page.items);
        let Some(prev) = page.prev else { break };

        // Backward, "behind" is older than the cursor row, "ahead" is newer.
        behind.push(insert(&db, first_row.created_at - MICRO, "just behind the cursor").await.id);
        if number <= 4 {
            insert(&db, first_row.created_at + MICRO, "just ahead of the cursor").await;
        }
        url = format!("/posts?limit=25&before={prev}");
    }
    let listed: Vec<Item> = pages.into_iter().rev().flatten().collect();
    let expected: Vec<Item> =
        table(&db).await.into_iter().filter(|row| !behind.contains(&row.id)).collect();
    assert_eq!(ids(&listed), ids(&expected), "pages come back in order, every row once");
}

#[tokio::test]
async fn before_the_prev_cursor_is_the_page_before() {
    let (db, server) = start(100).await;
    let page1 = page(&server, "/posts?limit=10").await;
    let page2 = page(&server, &format!("/posts?limit=10&after={}", page1.next.unwrap())).await;
    let page3 =
        page(&server, &format!("/posts?limit=10&after={}", page2.next.clone().unwrap())).await;

    let back2 = page(&server, &format!("/posts?limit=10&before={}", page3.prev.unwrap())).await;
    assert_eq!(back2.items, page2.items);
    assert_eq!((back2.next.is_some(), back2.prev.is_some()), (true, true));
    let back1 = page(&server, &format!("/posts?limit=10&before={}", back2.prev.unwrap())).await;
    assert_eq!(back1.items, page1.items);
    assert_eq!(back1.prev, None, "the first page has no previous page: null");

    let last = page(&server, "/posts?last=true&limit=10").await;
    assert_eq!(last.next, None, "the last page has no next page: null");
    assert_eq!(last.items, table(&db).await[90..]);
}

/// A client that was shown the page before every remaining row was deleted is not stuck: the
/// empty page after it has a `prev_cursor`, which leads back over what is left.
#[tokio::test]
async fn an_emptied_page_leads_back_over_http() {
    let (db, server) = start(30).await;
    let page1 = page(&server, "/posts?limit=10").await;
    let page2 = page(&server, &format!("/posts?limit=10&after={}", page1.next.unwrap())).await;
    for item in &table(&db).await[20..] {
        assert!(db.delete(item.id).await.expect("delete"));
    }
    let empty = page(&server, &format!("/posts?limit=10&after={}", page2.next.unwrap())).await;
    assert!(empty.items.is_empty() && empty.next.is_none());
    let back = page(&server, &format!("/posts?limit=10&before={}", empty.prev.unwrap())).await;
    assert_eq!(back.items, page2.items);
    assert_eq!(back.next, None, "nothing lies past the rows left");
}

/// Every invalid request is a 400 whose body is `{"error": ".."}` saying what is wrong.
#[tokio::test]
async fn bad_requests_are_400_with_a_json_error() {
    let (_db, server) = start(50).await;
    let page1 = page(&server, "/posts?limit=5").await;
    let page2 =
        page(&server, &format!("/posts?limit=5&after={}", page1.next.clone().unwrap())).await;
    // A token of another listing: same shape, another sort order's fingerprint.
    let foreign =
        token::encode(token::fingerprint("comments: id ASC"), Direction::After, &(7i64,)).unwrap();

    let cases = [
        ("/posts?after=not-a-token".to_owned(), "not a token this server issued"),
        ("/posts?after=".to_owned(), "empty"),
        (format!("/posts?after={}", &page1.next.clone().unwrap()[..6]), "cursor"),
        (format!("/posts?after={foreign}"), "another listing"),
        (format!("/posts?after={}", page2.prev.clone().unwrap()), "sent as `after`"),
        (format!("/posts?before={}", page1.next.clone().unwrap()), "sent as `before`"),
        ("/posts?after=a&before=b".to_owned(), "not both"),
        ("/posts?last=true&after=a".to_owned(), "`last`"),
        ("/posts?limit=0".to_owned(), "at least 1"),
        ("/posts?limit=-1".to_owned(), "limit"),
        ("/posts?limit=ten".to_owned(), "limit"),
        (format!("/posts?limit={}", encode("2 0")), "limit"),
    ];
    for (url, reason) in cases {
        let reply = server.get(&url).await;
        assert_eq!(reply.status, 400, "GET {url}: {}", reply.body);
        assert_eq!(reply.content_type, "application/json", "GET {url}");
        let error = reply.json()["error"]
            .as_str()
            .unwrap_or_else(|| panic!("GET {url}: {}", reply.body))
            .to_owned();
        assert!(error.contains(reason), "GET {url}: {error:?} should say {reason:?}");
    }

    let reply = server.post_json("/posts", &json!({ "headline": "no title" })).await;
    assert_eq!(reply.status, 422, "{}", reply.body);
    assert!(reply.json()["error"].as_str().unwrap().contains("title"));
}

#[tokio::test]
async fn limits_default_to_20_and_are_clamped_to_100() {
    let (_db, server) = start(150).await;
    assert_eq!(page(&server, "/posts").await.items.len(), 20);
    assert_eq!(page(&server, "/posts?limit=7").await.items.len(), 7);
    let clamped = page(&server, "/posts?limit=1000").await;
    assert_eq!(clamped.items.len(), 100);
    assert!(clamped.next.is_some());
}

#[tokio::test]
async fn a_created_post_is_listed_first() {
    let (_db, server) = start(30).await;
    let reply = server.post_json("/posts", &json!({ "title": "hello, keyset" })).await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    let created: Item = serde_json::from_value(reply.json()).unwrap();
    assert_eq!(created.title, "hello, keyset");
    assert_eq!(page(&server, "/posts?limit=1").await.items, [created]);
}

/// A database URL the pool cannot serve is an error that says why, before any request.
#[tokio::test]
async fn unusable_databases_are_refused_with_the_reason() {
    let open = |url: &'static str, max_size| async move {
        let options = PoolOptions { max_size, ..PoolOptions::default() };
        match Db::open(Some(url), 10, options).await {
            Ok(_) => panic!("{url} with {max_size} connections opened"),
            Err(err) => err.to_string(),
        }
    };
    let memory = open(":memory:", 4).await;
    assert!(memory.contains("one per connection") && memory.contains("file path"), "{memory}");
    let shared = open("file:posts?mode=memory&cache=shared", 4).await;
    assert!(shared.contains("in-memory"), "{shared}");
    let empty = Db::open(None, 10, PoolOptions { max_size: 0, ..PoolOptions::default() }).await;
    let empty = empty.err().expect("a pool of no connections is refused").to_string();
    assert!(empty.contains("1 or more"), "{empty}");
    let missing = open("/nonexistent-directory/posts.db", 4).await;
    assert!(missing.contains("no database connection"), "{missing}");
    #[cfg(not(feature = "postgres"))]
    assert!(open("postgres://localhost/x", 4).await.contains("add the `postgres` feature"));
    #[cfg(not(feature = "mysql"))]
    assert!(open("mysql://localhost/x", 4).await.contains("add the `mysql` feature"));
}
