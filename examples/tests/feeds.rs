//! The web example's feeds end to end, over HTTP on every database of the build:
//! `GET /feed?authors=..` and `GET /users/{id}/feed`, walked to the end, list exactly the rows of
//! the naive listing (every post, filtered to the authors, in the order asked); a token stays
//! valid when the user follows another author between pages; a bad or oversized author list is
//! a 400 problem (`application/problem+json`).
//!
//! The seeded posts take turns among 10 authors, so a feed of one author is sparse among the
//! newest posts (the window of the order's index a page walks first comes back short, and the
//! page seeks once per author) and a feed of all ten dense (the window fills the page): both
//! paths are walked.

mod common;

use chrono::NaiveDateTime;
use keyset_examples::db::feed::{seeded_follows, MAX_FEED_AUTHORS};
use keyset_examples::db::{Db, Post};
use keyset_examples::pool::PoolOptions;
use keyset_examples::web::router;
use keyset_runtime::http::problems;
use serde::Deserialize;
use serde_json::Value;

use common::{databases, Server};

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

/// A page: its items, and its tokens (`None` for JSON `null`).
#[derive(Debug, PartialEq)]
struct JsonPage {
    items: Vec<Item>,
    next: Option<String>,
    prev: Option<String>,
}

/// `GET url`, which must be a 200 JSON page of exactly `items`, `next_cursor` and `prev_cursor`.
async fn page(server: &Server, url: &str) -> JsonPage {
    let reply = server.get(url).await;
    assert_eq!(reply.status, 200, "GET {url}: {}", reply.body);
    assert_eq!(reply.content_type, "application/json", "GET {url}");
    let body = reply.json();
    let mut keys: Vec<&str> =
        body.as_object().expect("an object").keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["items", "next_cursor", "prev_cursor"], "GET {url}");
    let token = |key: &str| match &body[key] {
        Value::Null => None,
        Value::String(token) if !token.is_empty() => Some(token.clone()),
        other => panic!("GET {url}: {key} must be a token or null, not {other}"),
    };
    let items = serde_json::from_value(body["items"].clone())
        .unwrap_or_else(|err| panic!("GET {url}: {err}: {}", reply.body));
    JsonPage { items, next: token("next_cursor"), prev: token("prev_cursor") }
}

/// The pages of `listing` (a path and query string), from its first, `after` each page's
/// `next_cursor`, to the one without.
async fn walk(server: &Server, listing: &str) -> Vec<JsonPage> {
    walk_after(server, listing, None).await
}

/// The pages of `listing` from the one `after` a token (`None`: the first), to the end.
async fn walk_after(server: &Server, listing: &str, after: Option<String>) -> Vec<JsonPage> {
    let mut pages: Vec<JsonPage> = Vec::new();
    let from_a_cursor = after.is_some();
    let mut url = match after {
        Some(token) => format!("{listing}&after={token}"),
        None => listing.to_owned(),
    };
    loop {
        let page = page(server, &url).await;
        let behind = from_a_cursor || !pages.is_empty();
        assert_eq!(page.prev.is_some(), behind, "GET {url}: a page before it?");
        let next = page.next.clone();
        pages.push(page);
        match next {
            Some(token) => url = format!("{listing}&after={token}"),
            None => return pages,
        }
    }
}

fn listed(pages: &[JsonPage]) -> Vec<Item> {
    pages.iter().flat_map(|page| page.items.iter().cloned()).collect()
}

fn ids(items: &[Item]) -> Vec<i64> {
    items.iter().map(|item| item.id).collect()
}

/// Every post, in `sort` (`new`, `top` or `title`) with its first key in `dir` (`None`: as
/// declared), the other direction reversing every key: the order as the SQL sorts it.
async fn table(db: &Db, sort: &str, dir: Option<&str>) -> Vec<Item> {
    let mut rows: Vec<Item> =
        db.all().await.expect("load every post").into_iter().map(item).collect();
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

/// The naive listing: `rows` by one of `authors`.
fn among(rows: &[Item], authors: &[i64]) -> Vec<Item> {
    rows.iter().filter(|row| authors.contains(&row.author_id)).cloned().collect()
}

fn item(post: Post) -> Item {
    let Post { id, author_id, created_at, score, title } = post;
    Item { id, author_id, created_at, score, title }
}

fn comma_separated(authors: &[i64]) -> String {
    authors.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
}

/// Sparse sets and dense ones, unsorted, repeated, and of authors with no posts: walked forward
/// in three orders, each feed lists exactly the naive listing's rows; walked back from its last
/// page, the same rows again.
#[tokio::test]
async fn a_feed_walks_to_the_end_as_the_naive_listing_does() {
    for database in databases::all("feeds_walk", 150, PoolOptions::default()).await {
        let server = Server::start(router(database.db.clone())).await;
        let all: Vec<i64> = (1..=Post::AUTHORS).collect();
        let sets: [&[i64]; 8] =
            [&[1], &[2, 5], &[1, 2, 3], &[10, 3, 7, 4], &all, &[4, 4], &[999], &[3, 999]];
        for (sort, dir) in [("new", None), ("top", Some("asc")), ("title", None)] {
            let rows = table(&database.db, sort, dir).await;
            let order = match dir {
                Some(dir) => format!("sort={sort}&dir={dir}"),
                None => format!("sort={sort}"),
            };
            for authors in sets {
                let who = format!("{}, authors {authors:?}, {order}", database.name);
                let expected = among(&rows, authors);
                let listing = format!("/feed?authors={}&{order}&limit=7", comma_separated(authors));
                let pages = walk(&server, &listing).await;
                assert_eq!(ids(&listed(&pages)), ids(&expected), "{who}: forward, every row once");
                assert_eq!(listed(&pages), expected, "{who}: the rows as stored");

                let Some(last) = pages.last() else { continue };
                let mut back = vec![last.items.clone()];
                let mut prev = last.prev.clone();
                while let Some(token) = prev {
                    let page = page(&server, &format!("{listing}&before={token}")).await;
                    assert!(page.next.is_some(), "{who}: a page before another has a next page");
                    back.push(page.items);
                    prev = page.prev;
                }
                let back: Vec<Item> = back.into_iter().rev().flatten().collect();
                assert_eq!(ids(&back), ids(&expected), "{who}: back to the start, every row once");
            }
        }
    }
}

/// A feed walked by its `Link` headers alone, as a client that knows nothing of the query
/// string would: `next` from the first page to the end, `prev` from `last` to the start, each the
/// naive listing; the feed's own parameter (`authors`), its order and its limit kept throughout.
#[tokio::test]
async fn a_feed_walks_by_its_link_headers_alone() {
    for database in databases::all("feeds_links", 60, PoolOptions::default()).await {
        let server = Server::start(router(database.db.clone())).await;
        let who = &database.name;
        let rows = table(&database.db, "top", Some("asc")).await;
        let expected = among(&rows, &[2, 5, 7]);
        assert!(expected.len() > 8, "{who}: more than two pages of 4");
        let start = "/feed?authors=2%2C5%2C7&sort=top&dir=asc&limit=4";
        let walk = |rel: &'static str, from: String| {
            let server = &server;
            async move {
                let (mut pages, mut url) = (Vec::new(), Some(from));
                while let Some(at) = url {
                    let reply = server.get(&at).await;
                    assert_eq!(reply.status, 200, "{who}: GET {at}: {}", reply.body);
                    for kept in ["authors=2%2C5%2C7", "sort=top", "dir=asc", "limit=4"] {
                        let link = reply.link.clone().unwrap_or_default();
                        assert!(link.matches(kept).count() >= 2, "{who}: {kept} in {link}");
                    }
                    let items: Vec<Item> = serde_json::from_value(reply.json()["items"].clone())
                        .expect("the page's items");
                    pages.push(items);
                    url = reply.link(rel);
                }
                pages
            }
        };
        let forward: Vec<Item> = walk("next", start.to_owned()).await.concat();
        assert_eq!(ids(&forward), ids(&expected), "{who}: forward by rel=next");

        let first = server.get(start).await;
        let last = first.link("last").expect("a last link");
        assert!(last.ends_with("&last=true"), "{who}: {last}");
        let back: Vec<Item> = walk("prev", last).await.into_iter().rev().flatten().collect();
        assert_eq!(ids(&back), ids(&expected), "{who}: back by rel=prev");
        assert_eq!(first.link("prev"), None, "{who}: the first page has no prev");
        assert_eq!(
            first.link("first").as_deref(),
            Some("/feed?authors=2%2C5%2C7&sort=top&dir=asc&limit=4")
        );
    }
}

/// A token is a position in the order, not in the set of authors: after the user follows one
/// more author, the next page is among the authors followed then, from where the last one ended;
/// a feed's token pages `/posts` too.
#[tokio::test]
async fn a_follow_between_pages_keeps_the_token_valid() {
    for database in databases::all("feeds_follow", 100, PoolOptions::default()).await {
        let (db, who) = (&database.db, &database.name);
        let server = Server::start(router(db.clone())).await;
        let rows = table(db, "new", None).await;
        let user = 1_000;
        assert_eq!(server.put(&format!("/users/{user}/follows/1")).await.status, 204, "{who}");

        let first = page(&server, &format!("/users/{user}/feed?limit=4")).await;
        assert_eq!(first.items, among(&rows, &[1])[..4], "{who}: author 1's newest");
        let cursor_row = first.items.last().expect("a full page").clone();
        for _ in 0..2 {
            // Twice: following again changes nothing, and is no error.
            let reply = server.put(&format!("/users/{user}/follows/2")).await;
            assert_eq!(reply.status, 204, "{who}: {}", reply.body);
        }
        assert_eq!(db.following(user).await.expect("follows"), [1, 2], "{who}");

        let token = first.next.expect("author 1 has more posts");
        let rest = walk_after(&server, &format!("/users/{user}/feed?limit=4"), Some(token)).await;
        let at = rows.iter().position(|row| row.id == cursor_row.id).expect("the cursor's row");
        let expected = among(&rows[at + 1..], &[1, 2]);
        assert!(expected.iter().any(|row| row.author_id == 2), "{who}: author 2 is in the rest");
        assert_eq!(ids(&listed(&rest)), ids(&expected), "{who}: on from the cursor, among 1 and 2");

        // The token of `/feed?authors=1` pages a feed of other authors, and `/posts`.
        let feed = page(&server, "/feed?authors=1&limit=4").await;
        assert_eq!(feed.items, first.items, "{who}: the same feed, by its list");
        let token = feed.next.expect("more posts");
        let wider = page(&server, &format!("/feed?authors=1,2&limit=4&after={token}")).await;
        assert_eq!(wider.items, expected[..4], "{who}: authors 1 and 2, after the cursor");
        let posts = page(&server, &format!("/posts?limit=4&after={token}")).await;
        assert_eq!(posts.items, rows[at + 1..at + 5], "{who}: every post, after the cursor");
    }
}

/// `/users/{id}/feed` reads whom the user follows and pages among them: the same pages, tokens
/// and all, as `/feed?authors=` of those ids.
#[tokio::test]
async fn the_follows_feed_equals_the_authors_feed_of_the_same_ids() {
    for database in databases::all("feeds_follows", 120, PoolOptions::default()).await {
        let (db, who) = (&database.db, &database.name);
        let server = Server::start(router(db.clone())).await;
        for user in 1..=3 {
            let follows = db.following(user).await.expect("follows");
            let mut seeded: Vec<i64> = seeded_follows(user).collect();
            seeded.sort_unstable();
            assert_eq!(follows, seeded, "{who}: user {user} follows the seeded authors");
        }
        let user = 2_000;
        for author in [9, 3, 7] {
            assert_eq!(server.put(&format!("/users/{user}/follows/{author}")).await.status, 204);
        }
        for (user, sort) in [(1, "new"), (2, "top"), (user, "title"), (user, "new&dir=asc")] {
            let follows = db.following(user).await.expect("follows");
            let by_user = walk(&server, &format!("/users/{user}/feed?sort={sort}&limit=6")).await;
            let by_list =
                format!("/feed?authors={}&sort={sort}&limit=6", comma_separated(&follows));
            let by_list = walk(&server, &by_list).await;
            assert!(by_user.len() > 2, "{who}: user {user}'s feed has pages");
            assert_eq!(
                by_user, by_list,
                "{who}: user {user}, sort={sort}: page by page, tokens too"
            );
            assert!(listed(&by_user).iter().all(|row| follows.contains(&row.author_id)));
        }
        // Who follows no one has an empty feed.
        let nobody = page(&server, "/users/4242/feed").await;
        assert_eq!(nobody, JsonPage { items: Vec::new(), next: None, prev: None }, "{who}");
    }
}

/// `GET url`, which must be a 400 problem (`application/problem+json`): its detail.
async fn refused(server: &Server, url: &str) -> String {
    let reply = server.get(url).await;
    assert_eq!(reply.status, 400, "GET {url}: {}", reply.body);
    reply.detail()
}

/// An author list that is not ids, or holds more than a feed takes, and a user id that is not a
/// number, are 400s that say so, before any query; no authors is an empty page.
#[tokio::test]
async fn bad_author_lists_are_400_and_no_authors_an_empty_page() {
    for database in databases::all("feeds_refused", 20, PoolOptions::default()).await {
        let server = Server::start(router(database.db.clone())).await;
        let who = &database.name;
        let ids = |n: usize| comma_separated(&(1..=n as i64).collect::<Vec<_>>());
        let too_many = format!("{} values, more than the {MAX_FEED_AUTHORS}", MAX_FEED_AUTHORS + 1);
        let cases = [
            ("/feed?authors=a".to_owned(), "`a`, its value number 1, is not an id"),
            ("/feed?authors=1,,2".to_owned(), "``, its value number 2, is not"),
            ("/feed?authors=1,2,".to_owned(), "``, its value number 3, is not"),
            ("/feed?authors=1.5".to_owned(), "`1.5`"),
            ("/feed?authors=1;2".to_owned(), "e.g. `authors=1,2,3`"),
            ("/feed?authors=99999999999999999999".to_owned(), "too large"),
            (format!("/feed?authors={}", ids(MAX_FEED_AUTHORS + 1)), too_many.as_str()),
            ("/feed?authors=1&after=not-a-token".to_owned(), "not a token this server issued"),
            ("/feed?authors=1&limit=0".to_owned(), "at least 1"),
            ("/feed?authors=1&sort=hot".to_owned(), "`title`"),
            ("/users/ten/feed".to_owned(), "`id`: takes a `i64`, not `ten`"),
            ("/users/1/feed?after=a&before=b".to_owned(), "not both"),
        ];
        for (url, reason) in cases {
            let error = refused(&server, &url).await;
            assert!(error.contains(reason), "{who}: GET {url}: {error:?} should say {reason:?}");
        }
        let reply = server.put("/users/1/follows/someone").await;
        assert_eq!(reply.status, 400, "{who}: {}", reply.body);
        let (type_uri, detail) = reply.problem();
        assert_eq!(type_uri, problems::INVALID_PARAMETER, "{who}");
        assert!(detail.contains("`author`: takes a `i64`, not `someone`"), "{who}: {detail}");

        // As many as a feed takes is a page; spaces around the ids are allowed.
        let most = page(&server, &format!("/feed?authors={}", ids(MAX_FEED_AUTHORS))).await;
        assert_eq!(most.items.len(), 20, "{who}: the first page of every seeded author");
        let spaced = page(&server, "/feed?authors=1,%202%20,3").await;
        assert_eq!(spaced, page(&server, "/feed?authors=1,2,3").await, "{who}");
        for url in ["/feed", "/feed?authors=", "/feed?authors=%20&limit=5"] {
            let empty = page(&server, url).await;
            let none = JsonPage { items: Vec::new(), next: None, prev: None };
            assert_eq!(empty, none, "{who}: GET {url} is the feed of no one");
        }
    }
}

/// A user who follows more authors than a feed pages among is refused, as a list would be
/// (SQLite only: the bound is checked the same way on every backend, on the authors read).
#[tokio::test]
async fn following_more_than_the_bound_is_400() {
    let db = Db::open(None, 20, PoolOptions::default()).await.expect("a temporary SQLite file");
    let server = Server::start(router(db.clone())).await;
    let max = keyset_runtime::PageRequest::DEFAULT_MAX_SET as i64;
    for author in 1..=max {
        db.follow(7_000, author).await.expect("follow");
    }
    assert_eq!(page(&server, "/users/7000/feed").await.items.len(), 20, "at the bound: a page");
    db.follow(7_000, max + 1).await.expect("follow");
    let error = refused(&server, "/users/7000/feed").await;
    assert!(error.contains(&format!("more than the {max} values")), "{error}");
}
