//! Hostile cursors over HTTP, on every database of the build: real tokens of the web and GraphQL
//! examples (every order, both directions, `after` and `before` ones), each edited by one
//! character and flipped by one bit, sent back. Every answer must be a page or the client's error
//! (web: `200`, or a `400` problem; GraphQL: data, or `BAD_USER_INPUT`), never the
//! server's. Deterministic: the same edits every run, at most [`MAX_PER_TOKEN`] per token.

mod common;

use std::sync::Arc;
use std::time::Instant;

use keyset_examples::pool::PoolOptions;
use keyset_examples::{graphql, web};
use serde_json::{json, Value};
use tokio::task::JoinSet;

use common::{databases, Server};

/// base64url, the tokens' alphabet.
const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
/// The most forgeries sent per token and parameter: a stride through all of them beyond it.
const MAX_PER_TOKEN: usize = 400;
/// Requests in flight at once.
const IN_FLIGHT: usize = 8;

/// Every one-character edit of `token`: each character replaced by three others, deleted, and
/// one character inserted at each place.
fn edits(token: &str) -> Vec<String> {
    let chars = token.as_bytes();
    let index = |c: u8| ALPHABET.iter().position(|&a| a == c).unwrap_or(0);
    let mut out = Vec::new();
    for at in 0..chars.len() {
        for step in [1, 17, 42] {
            let mut edited = chars.to_vec();
            edited[at] = ALPHABET[(index(chars[at]) + step) % 64];
            out.push(edited);
        }
        let mut deleted = chars.to_vec();
        deleted.remove(at);
        out.push(deleted);
    }
    for at in 0..=chars.len() {
        let mut inserted = chars.to_vec();
        inserted.insert(at, ALPHABET[(at * 7 + 3) % 64]);
        out.push(inserted);
    }
    out.into_iter().map(|bytes| String::from_utf8(bytes).expect("ASCII")).collect()
}

/// Every single-bit flip of `token`'s bytes, re-encoded as base64url without padding.
fn bit_flips(token: &str) -> Vec<String> {
    let bytes = decode(token);
    (0..bytes.len() * 8)
        .map(|bit| {
            let mut flipped = bytes.clone();
            flipped[bit / 8] ^= 1 << (bit % 8);
            encode(&flipped)
        })
        .collect()
}

/// Every forgery of `token`, once each and never the token itself, at most [`MAX_PER_TOKEN`].
fn forgeries(token: &str) -> Vec<String> {
    let mut all = edits(token);
    all.extend(bit_flips(token));
    all.sort_unstable();
    all.dedup();
    all.retain(|forged| forged != token);
    let stride = all.len().div_ceil(MAX_PER_TOKEN).max(1);
    all.into_iter().step_by(stride).collect()
}

fn decode(token: &str) -> Vec<u8> {
    let sextets: Vec<u32> = token
        .bytes()
        .map(|c| ALPHABET.iter().position(|&a| a == c).expect("a real token is base64url") as u32)
        .collect();
    let mut bytes = Vec::new();
    for chunk in sextets.chunks(4) {
        let word = chunk.iter().enumerate().fold(0, |word, (i, s)| word | s << (18 - 6 * i));
        bytes.extend_from_slice(&word.to_be_bytes()[1..chunk.len()]);
    }
    bytes
}

fn encode(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let word =
            chunk.iter().enumerate().fold(0u32, |word, (i, &b)| word | (b as u32) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[(word >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

#[test]
fn the_test_codec_is_base64url_without_padding() {
    assert_eq!(encode(b"keyset"), "a2V5c2V0");
    assert_eq!(encode(b"\xfb\xff"), "-_8");
    for bytes in [&b""[..], b"a", b"ab", b"abc", b"\x00\xff\x10\x80"] {
        assert_eq!(decode(&encode(bytes)), bytes);
    }
    assert_eq!(bit_flips("AA").len(), 8);
    assert!(forgeries("a2V5c2V0").iter().all(|forged| forged != "a2V5c2V0"));
}

/// One forged request: whether it was served a page, or what went wrong with its answer.
type Outcome = Result<bool, String>;

/// Sends every request of `requests` (at most [`IN_FLIGHT`] at once) through `check`: how many
/// were served a page, and every wrong answer.
async fn run_all<F, Fut>(requests: Vec<String>, check: F) -> (usize, Vec<String>)
where
    F: Fn(String) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = Outcome> + Send + 'static,
{
    let check = Arc::new(check);
    let mut set = JoinSet::new();
    let (mut pages, mut failures) = (0, Vec::new());
    let mut tally = |outcome: Outcome| match outcome {
        Ok(page) => pages += usize::from(page),
        Err(failure) => failures.push(failure),
    };
    for request in requests {
        if set.len() >= IN_FLIGHT {
            tally(set.join_next().await.expect("a task").expect("no panic"));
        }
        let check = Arc::clone(&check);
        set.spawn(async move { check(request).await });
    }
    while let Some(outcome) = set.join_next().await {
        tally(outcome.expect("no panic"));
    }
    (pages, failures)
}

/// Panics with `failures` (the first 20, and how many), if any.
fn report(what: &str, failures: &[String]) {
    if failures.is_empty() {
        return;
    }
    let shown: Vec<&str> = failures.iter().take(20).map(String::as_str).collect();
    panic!(
        "{what}: {} forged cursors got a server's answer:\n{}",
        failures.len(),
        shown.join("\n")
    );
}

const ORDERS: [(&str, &str); 6] = [
    ("new", "asc"),
    ("new", "desc"),
    ("top", "asc"),
    ("top", "desc"),
    ("title", "asc"),
    ("title", "desc"),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forged_cursors_are_200_or_400_never_5xx_from_the_web_service() {
    let mut failures = Vec::new();
    for database in databases::all("hostile_web", 40, PoolOptions::default()).await {
        let started = Instant::now();
        let server = Arc::new(Server::start(web::router(database.db.clone())).await);
        let mut requests = Vec::new();
        for (sort, dir) in ORDERS {
            let base = format!("/posts?sort={sort}&dir={dir}&limit=3");
            let first = server.get(&base).await.json();
            let next = first["next_cursor"].as_str().expect("a next page").to_owned();
            let second = server.get(&format!("{base}&after={next}")).await.json();
            let prev = second["prev_cursor"].as_str().expect("a previous page").to_owned();
            for token in [next, prev] {
                for forged in forgeries(&token) {
                    for param in ["after", "before"] {
                        requests.push(format!("{base}&{param}={forged}"));
                    }
                }
            }
        }
        let count = requests.len();
        let name = database.name.clone();
        let client = Arc::clone(&server);
        let (pages, mut wrong) = run_all(requests, move |url| {
            let server = Arc::clone(&client);
            async move {
                let reply = server.get(&url).await;
                let json_error = reply.content_type == "application/problem+json"
                    && serde_json::from_str::<Value>(&reply.body).is_ok_and(|body| {
                        body["status"] == 400
                            && body["detail"].as_str().is_some_and(|e| !e.is_empty())
                    });
                match reply.status {
                    200 => Ok(true),
                    400 if json_error => Ok(false),
                    status => Err(format!("GET {url}: {status} {}", reply.body)),
                }
            }
        })
        .await;
        eprintln!(
            "{name}: {count} forged web requests in {:?}: {pages} pages, {} wrong",
            started.elapsed(),
            wrong.len()
        );
        failures.extend(wrong.drain(..).map(|failure| format!("{name}: {failure}")));
    }
    report("web", &failures);
}

const POSTS: &str = r#"
    query Posts($orderBy: PostOrder, $direction: Direction, $first: Int, $after: String, $last: Int, $before: String) {
        posts(orderBy: $orderBy, direction: $direction, first: $first, after: $after, last: $last, before: $before) {
            edges { cursor node { id } }
            pageInfo { startCursor endCursor }
        }
    }"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forged_cursors_are_data_or_bad_user_input_never_internal_from_graphql() {
    let mut failures = Vec::new();
    for database in databases::all("hostile_graphql", 40, PoolOptions::default()).await {
        let started = Instant::now();
        let server =
            Arc::new(Server::start(graphql::router(graphql::schema(database.db.clone()))).await);
        let mut requests = Vec::new();
        for (order, direction) in ORDERS {
            let (order, direction) = (order.to_uppercase(), direction.to_uppercase());
            let variables = |more: Value| {
                let mut variables = json!({ "orderBy": order, "direction": direction });
                variables.as_object_mut().unwrap().extend(more.as_object().unwrap().clone());
                variables
            };
            let query = |variables: Value| json!({ "query": POSTS, "variables": variables });
            let first =
                server.post_json("/graphql", &query(variables(json!({ "first": 3 })))).await;
            let end = first.json()["data"]["posts"]["pageInfo"]["endCursor"].clone();
            let second = query(variables(json!({ "first": 3, "after": end })));
            let second = server.post_json("/graphql", &second).await.json();
            let start = second["data"]["posts"]["pageInfo"]["startCursor"].clone();
            for token in [end, start] {
                for forged in forgeries(token.as_str().expect("a cursor")) {
                    for (count, cursor) in [("first", "after"), ("last", "before")] {
                        let request = query(variables(json!({ count: 3, cursor: forged })));
                        requests.push(request.to_string());
                    }
                }
            }
        }
        let count = requests.len();
        let name = database.name.clone();
        let client = Arc::clone(&server);
        let (pages, mut wrong) = run_all(requests, move |request| {
            let server = Arc::clone(&client);
            async move {
                let body: Value = serde_json::from_str(&request).expect("JSON");
                let reply = server.post_json("/graphql", &body).await;
                let variables = &body["variables"];
                if reply.status != 200 {
                    return Err(format!(
                        "posts({variables}): HTTP {} {}",
                        reply.status, reply.body
                    ));
                }
                let answer = reply.json();
                let errors = answer["errors"].as_array().cloned().unwrap_or_default();
                let all_bad_input =
                    errors.iter().all(|error| error["extensions"]["code"] == "BAD_USER_INPUT");
                let has_page = answer["data"]["posts"]["edges"].is_array();
                if all_bad_input && (has_page || !errors.is_empty()) {
                    Ok(errors.is_empty())
                } else {
                    Err(format!("posts({variables}): {answer}"))
                }
            }
        })
        .await;
        eprintln!(
            "{name}: {count} forged GraphQL requests in {:?}: {pages} pages, {} wrong",
            started.elapsed(),
            wrong.len()
        );
        failures.extend(wrong.drain(..).map(|failure| format!("{name}: {failure}")));
    }
    report("GraphQL", &failures);
}
