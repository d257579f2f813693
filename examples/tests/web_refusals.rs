//! The web example's refusals: every bad parameter or token a 400 problem (RFC 9457) of its
//! type, saying what is wrong, before any query. (`web.rs` pages through the service.)

mod common;

use keyset_examples::db::Db;
use keyset_examples::pool::PoolOptions;
use keyset_examples::web::router;
use keyset_runtime::__testing::token;
use keyset_runtime::http::problems;
use keyset_runtime::Direction;
use serde_json::{json, Value};

use common::{encode, Server};

async fn start(rows: i64) -> Server {
    let db = Db::open(None, rows, PoolOptions::default()).await.expect("a temporary SQLite file");
    Server::start(router(db)).await
}

/// A page's tokens (`None` for JSON `null`).
struct Tokens {
    next: Option<String>,
    prev: Option<String>,
}

/// `GET url`, which must be a 200 page: its tokens.
async fn tokens(server: &Server, url: &str) -> Tokens {
    let reply = server.get(url).await;
    assert_eq!(reply.status, 200, "GET {url}: {}", reply.body);
    let body = reply.json();
    let token = |key: &str| match &body[key] {
        Value::Null => None,
        Value::String(token) => Some(token.clone()),
        other => panic!("{key} must be a token or null, not {other}"),
    };
    Tokens { next: token("next_cursor"), prev: token("prev_cursor") }
}

/// Every invalid request is a 400 problem (RFC 9457) of its type, whose detail says what is
/// wrong.
#[tokio::test]
async fn bad_requests_are_400_problems_of_their_type() {
    let server = start(50).await;
    let page1 = tokens(&server, "/posts?limit=5").await;
    let page2 =
        tokens(&server, &format!("/posts?limit=5&after={}", page1.next.clone().unwrap())).await;
    // A token of another listing: same shape, another sort order's fingerprint.
    let foreign =
        token::encode(token::fingerprint("comments: id ASC"), Direction::After, &(7i64,)).unwrap();

    let cases = [
        (
            "/posts?after=not-a-token".to_owned(),
            problems::MALFORMED_TOKEN,
            "not a token this server issued",
        ),
        ("/posts?after=".to_owned(), problems::MALFORMED_TOKEN, "empty"),
        (
            format!("/posts?after={}", &page1.next.clone().unwrap()[..6]),
            problems::MALFORMED_TOKEN,
            "cursor",
        ),
        (format!("/posts?after={foreign}"), problems::FOREIGN_TOKEN, "another listing"),
        (
            format!("/posts?after={}", page2.prev.clone().unwrap()),
            problems::TOKEN_WRONG_WAY,
            "sent as `after`",
        ),
        (
            format!("/posts?before={}", page1.next.clone().unwrap()),
            problems::TOKEN_WRONG_WAY,
            "sent as `before`",
        ),
        ("/posts?after=a&before=b".to_owned(), problems::CONFLICTING_PARAMETERS, "not both"),
        ("/posts?last=true&after=a".to_owned(), problems::CONFLICTING_PARAMETERS, "`last`"),
        ("/posts?limit=0".to_owned(), problems::INVALID_LIMIT, "at least 1"),
        ("/posts?limit=-1".to_owned(), problems::INVALID_LIMIT, "`limit=-1`"),
        ("/posts?limit=ten".to_owned(), problems::INVALID_LIMIT, "`limit=ten`"),
        (format!("/posts?limit={}", encode("2 0")), problems::INVALID_LIMIT, "`limit=2 0`"),
        (
            "/posts?sort=hot".to_owned(),
            problems::INVALID_SORT,
            "`sort=hot`: one of `new`, `top`, `title`",
        ),
        ("/posts?dir=up".to_owned(), problems::INVALID_SORT, "`dir=up`"),
    ];
    for (url, type_uri, reason) in cases {
        let reply = server.get(&url).await;
        assert_eq!(reply.status, 400, "GET {url}: {}", reply.body);
        let (problem, error) = reply.problem();
        assert_eq!(problem, type_uri, "GET {url}: {}", reply.body);
        assert!(error.contains(reason), "GET {url}: {error:?} should say {reason:?}");
    }

    let reply = server.post_json("/posts", &json!({ "headline": "no title" })).await;
    assert_eq!(reply.status, 422, "{}", reply.body);
    let (problem, error) = reply.problem();
    assert_eq!(problem, problems::INVALID_BODY);
    assert!(error.contains("title"), "{error}");
}

/// `GET url`, which must be a 400 problem (`application/problem+json`): its detail.
async fn refused(server: &Server, url: &str) -> String {
    let reply = server.get(url).await;
    assert_eq!(reply.status, 400, "GET {url}: {}", reply.body);
    reply.detail()
}

/// An unknown `sort` or `dir` is a 400 naming the valid values.
#[tokio::test]
async fn unknown_sort_orders_and_directions_are_400_naming_the_valid_ones() {
    let server = start(20).await;
    for url in ["/posts?sort=hot", "/posts?sort=Top&dir=asc", "/posts?sort=", "/posts?sort=new,top"]
    {
        let error = refused(&server, url).await;
        assert!(
            ["sort", "`new`", "`top`", "`title`"].iter().all(|name| error.contains(name)),
            "GET {url}: {error:?} should name the sort orders"
        );
    }
    for url in ["/posts?dir=up", "/posts?sort=top&dir=DESC", "/posts?dir="] {
        let error = refused(&server, url).await;
        assert!(
            ["dir", "`asc`", "`desc`"].iter().all(|name| error.contains(name)),
            "GET {url}: {error:?} should name the directions"
        );
    }
}

/// A token is for the order and direction that issued it: sent with another, it is a 400 that
/// names both, on every database of the build (the check runs before any query).
#[tokio::test]
async fn a_token_of_another_sort_or_direction_is_400_naming_both() {
    for database in common::databases::all("web_other_order", 30, PoolOptions::default()).await {
        let server = Server::start(router(database.db.clone())).await;
        let top = tokens(&server, "/posts?sort=top&limit=5").await.next.expect("a next page");
        let new_asc = tokens(&server, "/posts?dir=asc&limit=5").await.next.expect("a next page");
        let title = tokens(&server, "/posts?sort=title&last=true&limit=5").await;
        let title = title.prev.expect("a previous page");
        let cases = [
            (format!("/posts?sort=new&after={top}"), "`top desc`, not `new desc`"),
            (format!("/posts?after={top}"), "`top desc`, not `new desc`"),
            (format!("/posts?sort=top&dir=asc&after={top}"), "`top desc`, not `top asc`"),
            (format!("/posts?sort=title&after={top}"), "`top desc`, not `title asc`"),
            (format!("/posts?after={new_asc}"), "`new asc`, not `new desc`"),
            (format!("/posts?sort=new&dir=desc&after={new_asc}"), "`new asc`, not `new desc`"),
            (format!("/posts?sort=top&before={title}"), "`title asc`, not `top desc`"),
            (format!("/posts?sort=title&dir=desc&before={title}"), "`title asc`, not `title desc`"),
        ];
        for (url, mismatch) in cases {
            let reply = server.get(&url).await;
            assert_eq!(reply.status, 400, "GET {url}: {}", reply.body);
            let (type_uri, error) = reply.problem();
            assert_eq!(type_uri, problems::FOREIGN_TOKEN, "GET {url}");
            assert!(
                error.contains("issued for the sort order") && error.contains(mismatch),
                "{}: GET {url}: {error:?} should say {mismatch:?}",
                database.name
            );
        }
        // Sent with its own order, each pages on.
        tokens(&server, &format!("/posts?sort=top&dir=desc&after={top}")).await;
        tokens(&server, &format!("/posts?sort=new&dir=asc&after={new_asc}")).await;
        tokens(&server, &format!("/posts?sort=title&before={title}")).await;
    }
}
