//! The web example end to end: its router served on a loopback port, paged through with a real
//! HTTP client, forward and back, with rows inserted and deleted between requests.

mod common;

use chrono::{NaiveDateTime, TimeDelta};
use keyset_examples::db::{Db, Post};
use keyset_examples::pool::PoolOptions;
use keyset_examples::web::router;
use serde::Deserialize;
use serde_json::{json, Value};

use common::Server;

/// A post as the JSON pages show it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct Item {
    id: i64,
    author_id: i64,
    created_at: NaiveDateTime,
    score: i32,
    title: String,
}

impl From<Post> for Item {
    fn from(post: Post) -> Self {
        Item {
            id: post.id,
            author_id: post.author_id,
            created_at: post.created_at,
            score: post.score,
            title: post.title,
        }
    }
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

/// `GET url` in the default order, newest first: see [`page_in`].
async fn page(server: &Server, url: &str) -> JsonPage {
    let page = page_in(server, url).await;
    let items = &page.items;
    assert!(
        items.windows(2).all(|w| (w[0].created_at, w[0].id) > (w[1].created_at, w[1].id)),
        "a page is newest first, whichever way it was fetched: {items:?}"
    );
    page
}

/// `GET url`, which must be a 200 JSON page of exactly `items`, `next_cursor` and `prev_cursor`,
/// with a missing token `null`, never `""`, and items of exactly the post's fields.
async fn page_in(server: &Server, url: &str) -> JsonPage {
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
    let items: Vec<Item> = serde_json::from_value(body["items"].clone()).unwrap_or_else(|err| {
        panic!("GET {url}: posts of id, author_id, created_at, score, title: {err}")
    });
    JsonPage { next: token("next_cursor"), prev: token("prev_cursor"), items }
}

/// Every post in the table, newest first: the oracle.
async fn table(db: &Db) -> Vec<Item> {
    let posts = db.all().await.expect("load all posts");
    posts.into_iter().map(Item::from).collect()
}

/// Inserts a post directly in the database, as another writer would.
async fn insert(db: &Db, created_at: NaiveDateTime, title: &str) -> Item {
    Item::from(db.insert(created_at, title).await.expect("insert"))
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
    assert_eq!((created.title.as_str(), created.score), ("hello, keyset", 0));
    assert_eq!(page(&server, "/posts?limit=1").await.items, [created]);

    let reply = server.post_json("/posts", &json!({ "title": "scored", "score": 99 })).await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    let scored: Item = serde_json::from_value(reply.json()).unwrap();
    assert_eq!(scored.score, 99);
    assert_eq!(page_in(&server, "/posts?sort=top&limit=1").await.items, [scored]);
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

/// Every sort order as the SQL sorts it, computed from the rows in memory: `sort` with its
/// first key in direction `dir` (`None`: as declared), the other direction reversing every key.
fn in_order(rows: &[Item], sort: &str, dir: Option<&str>) -> Vec<Item> {
    let mut rows = rows.to_vec();
    let declared = match sort {
        "new" => {
            rows.sort_by_key(|row| std::cmp::Reverse((row.created_at, row.id)));
            "desc"
        }
        "top" => {
            rows.sort_by_key(|row| std::cmp::Reverse((row.score, row.created_at, row.id)));
            "desc"
        }
        "title" => {
            // Byte order: the seeded titles (`post <n>`) sort so under every collation here.
            rows.sort_by(|a, b| (&a.title, a.id).cmp(&(&b.title, b.id)));
            "asc"
        }
        other => panic!("no sort order {other}"),
    };
    if dir.is_some_and(|dir| dir != declared) {
        rows.reverse();
    }
    rows
}

/// `?sort=..&dir=..`, or the part of it given.
fn order_query(sort: Option<&str>, dir: Option<&str>) -> String {
    let sort = sort.map(|sort| format!("&sort={sort}")).unwrap_or_default();
    let dir = dir.map(|dir| format!("&dir={dir}")).unwrap_or_default();
    format!("{sort}{dir}")
}

/// Every `sort` × `dir` (and neither), on every database of the build: walked forward to the
/// end, then back from the last page to the first, each row exactly once, in the SQL's order.
/// The seeded timestamps, scores and titles all tie, so pages end inside groups of ties and
/// every later key, down to the id, decides.
#[tokio::test]
async fn every_sort_order_and_direction_walks_forward_and_back_over_http() {
    for database in common::databases::all("web_orders", 100, PoolOptions::default()).await {
        let server = Server::start(router(database.db.clone())).await;
        let rows = table(&database.db).await;
        let ties = |key: fn(&Item) -> String| {
            let mut keys: Vec<String> = rows.iter().map(key).collect();
            keys.sort_unstable();
            keys.dedup();
            keys.len() < rows.len()
        };
        assert!(ties(|row| row.score.to_string()), "seeded scores tie");
        assert!(ties(|row| format!("{} {}", row.score, row.created_at)), "and score with time");
        assert!(ties(|row| row.title.clone()), "seeded titles tie");

        let sorts = [None, Some("new"), Some("top"), Some("title")];
        for (sort, dir) in
            sorts.iter().flat_map(|&sort| [None, Some("asc"), Some("desc")].map(|dir| (sort, dir)))
        {
            let who = format!("{}, {}", database.name, order_query(sort, dir));
            let expected = in_order(&rows, sort.unwrap_or("new"), dir);
            let query = order_query(sort, dir);

            let mut forward = Vec::new();
            let mut url = format!("/posts?limit=9{query}");
            let last = loop {
                let page = page_in(&server, &url).await;
                assert_eq!(page.prev.is_some(), !forward.is_empty(), "{who}: GET {url}");
                forward.extend(page.items.iter().cloned());
                match page.next {
                    Some(next) => url = format!("/posts?limit=9{query}&after={next}"),
                    None => break page,
                }
            };
            assert_eq!(ids(&forward), ids(&expected), "{who}: forward, every row once, in order");
            assert_eq!(forward, expected, "{who}: the rows as stored");

            let mut pages = vec![last.items];
            let mut prev = last.prev;
            while let Some(token) = prev {
                let page = page_in(&server, &format!("/posts?limit=9{query}&before={token}")).await;
                assert!(page.next.is_some(), "{who}: a page before another has a next page");
                pages.push(page.items);
                prev = page.prev;
            }
            let backward: Vec<Item> = pages.into_iter().rev().flatten().collect();
            assert_eq!(ids(&backward), ids(&expected), "{who}: back to the start, every row once");

            let last = page_in(&server, &format!("/posts?last=true&limit=9{query}")).await;
            assert_eq!(last.items, expected[expected.len() - last.items.len()..], "{who}: last");
        }
    }
}

/// The longest title (255 characters of 4 bytes each) is a post on every backend, and the
/// `title` order's token that holds it pages on; a longer one is refused.
#[tokio::test]
async fn the_longest_title_pages_in_the_title_order() {
    for database in common::databases::all("web_long_title", 10, PoolOptions::default()).await {
        let server = Server::start(router(database.db.clone())).await;
        let longest = "\u{1F600}".repeat(Post::MAX_TITLE_LEN);
        let reply = server.post_json("/posts", &json!({ "title": longest })).await;
        assert_eq!(reply.status, 201, "{}: {}", database.name, reply.body);
        let first = page_in(&server, "/posts?sort=title&dir=desc&limit=1").await;
        assert_eq!(first.items[0].title, longest, "{}", database.name);
        let next = first.next.expect("more posts");
        let second = page_in(&server, &format!("/posts?sort=title&dir=desc&after={next}")).await;
        assert_eq!(second.items.len(), 10, "{}", database.name);

        let too_long = format!("{longest}x");
        let reply = server.post_json("/posts", &json!({ "title": too_long })).await;
        assert_eq!(reply.status, 422, "{}: {}", database.name, reply.body);
        assert!(reply.detail().contains("255 characters"), "{}: {}", database.name, reply.body);
    }
}

/// `?count=` asks for the listing's rows beside the page: bounded and estimated ones (on
/// SQLite, an estimate is the bounded count and says so); an exact one is refused, 400, since
/// the listing does not allow it. Without it, no `total` in the page.
#[tokio::test]
async fn a_count_rides_beside_the_page_when_asked_for() {
    let (_db, server) = start(30).await;
    for count in ["bounded", "estimated"] {
        let url = format!("/posts?limit=5&count={count}");
        let reply = server.get(&url).await;
        assert_eq!(reply.status, 200, "GET {url}: {}", reply.body);
        let total = reply.json()["total"].clone();
        assert_eq!(total, json!({ "kind": "exact", "count": 30 }), "GET {url}");
    }
    let refused = server.get("/posts?count=exact").await;
    assert_eq!(refused.status, 400, "{}", refused.body);
    assert!(refused.body.contains("exact counts"), "{}", refused.body);
    let invalid = server.get("/posts?count=all").await;
    assert_eq!(invalid.status, 400, "{}", invalid.body);
    assert!(invalid.body.contains("`count=all`"), "{}", invalid.body);
}

/// `?from=` starts a page at a value of the order's first key, on every database of the build:
/// `new` from a day (the newest posts at or before its midnight), `title` from a letter; the
/// page's `prev` token leads to the posts before it. `past` leaves the equal rows out; a value
/// the key cannot read, or `from` with a token, is a `400` naming it.
#[tokio::test]
async fn a_page_starts_at_a_value_of_the_orders_first_key() {
    for database in common::databases::all("web_from", 60, PoolOptions::default()).await {
        let server = Server::start(router(database.db.clone())).await;
        let rows = table(&database.db).await;
        let middle = &rows[rows.len() / 2];
        let day = middle.created_at.date();
        let url = format!("/posts?sort=new&limit=5&from={day}");
        let at = rows.iter().position(|row| row.created_at <= day.and_hms_opt(0, 0, 0).unwrap());
        let at = at.unwrap_or(rows.len());
        let page_at = page(&server, &url).await;
        assert_eq!(ids(&page_at.items), ids(&rows[at..(at + 5).min(rows.len())]), "GET {url}");
        if at > 0 {
            let before =
                page(&server, &format!("/posts?sort=new&limit=5&before={}", page_at.prev.unwrap()))
                    .await;
            assert_eq!(ids(&before.items), ids(&rows[at.saturating_sub(5)..at]), "before {url}");
        }

        let titles = in_order(&rows, "title", None);
        let title = &titles[titles.len() / 3].title;
        for (param, keep) in [("from", true), ("past", false)] {
            let url = format!("/posts?sort=title&limit=4&{param}={}", title.replace(' ', "%20"));
            let at =
                titles
                    .iter()
                    .position(|row| if keep { &row.title >= title } else { &row.title > title });
            let at = at.unwrap_or(titles.len());
            let page_at = page_in(&server, &url).await;
            assert_eq!(
                ids(&page_at.items),
                ids(&titles[at..(at + 4).min(titles.len())]),
                "GET {url}"
            );
        }

        for url in [
            "/posts?sort=new&from=someday",
            "/posts?from=2024-03-01&after=AQ",
            "/posts?sort=top&from=x",
        ] {
            let refused = server.get(url).await;
            assert_eq!(refused.status, 400, "GET {url}: {}", refused.body);
        }
        let refused = server.get("/posts?sort=new&from=someday").await;
        assert!(
            refused.body.contains("created_at") && refused.body.contains("INVALID_START"),
            "{}",
            refused.body
        );
    }
}

/// `?around=` opens the listing at a post, in every order and direction, with tokens both ways;
/// a post that does not exist is a `404`, and a token in the same request wins (the page's links
/// keep `around` beside it).
#[tokio::test]
async fn a_page_around_a_post_starts_with_it() {
    let (db, server) = start(40).await;
    let all = table(&db).await;
    for (sort, dir) in [("top", None), ("new", Some("asc")), ("title", Some("desc"))] {
        let rows = in_order(&all, sort, dir);
        let at = 17;
        let dir = dir.map_or(String::new(), |dir| format!("&dir={dir}"));
        let url = format!("/posts?sort={sort}{dir}&limit=5&around={}", rows[at].id);
        let around = page_in(&server, &url).await;
        assert_eq!(ids(&around.items), ids(&rows[at..at + 5]), "GET {url}");
        let before = page_in(&server, &format!("{url}&before={}", around.prev.unwrap())).await;
        assert_eq!(ids(&before.items), ids(&rows[at - 5..at]), "before {url}");
        let after = page_in(&server, &format!("{url}&after={}", around.next.unwrap())).await;
        assert_eq!(ids(&after.items), ids(&rows[at + 5..at + 10]), "after {url}");
    }
    let missing = server.get("/posts?around=100000").await;
    assert_eq!(missing.status, 404, "{}", missing.body);
    assert!(missing.body.contains("ROW_NOT_LISTED"), "{}", missing.body);
    let invalid = server.get("/posts?around=abc").await;
    assert_eq!(invalid.status, 400, "{}", invalid.body);
}
