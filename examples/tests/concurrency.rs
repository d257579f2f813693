//! The web example under concurrent clients: 32 walkers, each a tokio task with an HTTP client of
//! its own over loopback, page through the whole list (24 forward from the first page, 8 backward
//! from the last) while a writer inserts and deletes posts, over a pool of 4 connections. Every
//! walk must be exact: no post twice, newest first, and every post that existed for the whole
//! walk listed. Once with deadpool, once with bb8, on every database of the build (SQLite always;
//! PostgreSQL and MariaDB with the `postgres` and `mysql` features).

mod common;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{NaiveDateTime, TimeDelta};
use keyset_examples::db::Db;
use keyset_examples::pool::{PoolKind, PoolOptions};
use keyset_examples::web::router;
use serde::Deserialize;
use serde_json::{json, Value};

use common::{databases, Server};

const SEEDED: i64 = 300;
const FORWARD_WALKERS: usize = 24;
const BACKWARD_WALKERS: usize = 8;
const POOL_SIZE: usize = 4;
/// The writer stops after this many writes, or this long, or when the walkers are done.
const MAX_WRITES: usize = 400;
const MAX_WRITING: Duration = Duration::from_secs(30);

/// A post as the JSON pages show it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
struct Item {
    id: i64,
    created_at: NaiveDateTime,
    title: String,
}

/// When a post existed: `born` once its insert had returned (`None`: seeded, before any walk),
/// `died` just before its delete was sent.
struct Life {
    item: Item,
    born: Option<Instant>,
    died: Option<Instant>,
}

/// Every post the test knows of, by id.
type History = Arc<Mutex<HashMap<i64, Life>>>;

/// One finished walk: what it listed, in the list's order, and when it ran.
struct Walk {
    who: String,
    listed: Vec<Item>,
    started: Instant,
    ended: Instant,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_walks_are_exact_while_a_writer_runs_on_deadpool() {
    let options =
        PoolOptions { max_size: POOL_SIZE, kind: PoolKind::Deadpool, ..PoolOptions::default() };
    for database in databases::all("concurrency_deadpool", SEEDED, options).await {
        walk_while_writing(&database.name, &database.db).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_walks_are_exact_while_a_writer_runs_on_bb8() {
    let options =
        PoolOptions { max_size: POOL_SIZE, kind: PoolKind::Bb8, ..PoolOptions::default() };
    for database in databases::all("concurrency_bb8", SEEDED, options).await {
        walk_while_writing(&database.name, &database.db).await;
    }
}

async fn walk_while_writing(name: &str, db: &Db) {
    let server = Server::start(router(db.clone())).await;
    let seeded = db.all().await.expect("the seeded posts");
    assert_eq!(seeded.len(), SEEDED as usize, "{name}: a fresh table, seeded");
    let history: History = Arc::new(Mutex::new(
        seeded
            .iter()
            .map(|post| {
                let item =
                    Item { id: post.id, created_at: post.created_at, title: post.title.clone() };
                (post.id, Life { item, born: None, died: None })
            })
            .collect(),
    ));
    let walking = Arc::new(AtomicBool::new(true));
    let writer = tokio::spawn(write(db.clone(), server.client(), history.clone(), walking.clone()));

    let mut walkers = Vec::new();
    for number in 0..FORWARD_WALKERS + BACKWARD_WALKERS {
        let client = server.client();
        let limit = 5 + (number % 7) * 3;
        let forward = number < FORWARD_WALKERS;
        walkers.push(tokio::spawn(walk(client, number, limit, forward)));
    }
    let mut walks = Vec::new();
    for walker in walkers {
        walks.push(walker.await.unwrap_or_else(|err| panic!("{name}: a walker failed: {err}")));
    }
    walking.store(false, Ordering::Relaxed);
    let (writes, during) =
        writer.await.unwrap_or_else(|err| panic!("{name}: the writer failed: {err}"));
    eprintln!("{name}: {writes} writes, {during} of them while walkers walked");
    assert!(writes <= MAX_WRITES, "{name}: the writer is bounded");
    assert!(during >= 10, "{name}: the writer wrote while the walks ran ({during} writes)");

    let history = history.lock().unwrap();
    let mut changed = 0;
    for walk in &walks {
        check(name, walk, &history);
        let seen: HashSet<i64> = walk.listed.iter().map(|item| item.id).collect();
        changed += usize::from(seeded.iter().any(|post| !seen.contains(&post.id)))
            + usize::from(walk.listed.len() != seeded.len());
    }
    assert!(changed > 0, "{name}: some walk met the writer's changes");
}

/// One walker: the whole list, forward from the first page or backward from the last.
async fn walk(client: Server, number: usize, limit: usize, forward: bool) -> Walk {
    let who = format!(
        "walker {number} ({}, limit {limit})",
        if forward { "forward" } else { "backward" }
    );
    let started = Instant::now();
    let mut pages: Vec<Vec<Item>> = Vec::new();
    let mut url = if forward {
        format!("/posts?limit={limit}")
    } else {
        format!("/posts?last=true&limit={limit}")
    };
    loop {
        let reply = client.get(&url).await;
        assert_eq!(reply.status, 200, "{who}: GET {url}: {}", reply.body);
        let body = reply.json();
        let items: Vec<Item> = serde_json::from_value(body["items"].clone())
            .unwrap_or_else(|err| panic!("{who}: {err}: {}", reply.body));
        assert!(items.len() <= limit, "{who}: a page of at most {limit}");
        pages.push(items);
        let token = if forward { &body["next_cursor"] } else { &body["prev_cursor"] };
        match token {
            Value::String(token) => {
                let param = if forward { "after" } else { "before" };
                url = format!("/posts?limit={limit}&{param}={token}");
            }
            Value::Null => break,
            other => panic!("{who}: a cursor is a token or null, not {other}"),
        }
        assert!(pages.len() < 10_000, "{who}: the walk ends");
    }
    if !forward {
        pages.reverse();
    }
    Walk { who, listed: pages.into_iter().flatten().collect(), started, ended: Instant::now() }
}

/// What the walk must be: newest first with no post twice, every post a real one, and every post
/// that existed from the walk's start to its end listed.
fn check(name: &str, walk: &Walk, history: &HashMap<i64, Life>) {
    let who = format!("{name}, {}", walk.who);
    let mut ids = HashSet::new();
    for item in &walk.listed {
        assert!(ids.insert(item.id), "{who}: post {} listed twice", item.id);
        let life = history.get(&item.id).unwrap_or_else(|| panic!("{who}: unknown post {item:?}"));
        assert_eq!(&life.item, item, "{who}: the post as stored");
    }
    for pair in walk.listed.windows(2) {
        assert!(
            (pair[0].created_at, pair[0].id) > (pair[1].created_at, pair[1].id),
            "{who}: newest first: {:?} then {:?}",
            pair[0],
            pair[1]
        );
    }
    let mut missing: Vec<&Item> = history
        .values()
        .filter(|life| life.born.is_none_or(|born| born < walk.started))
        .filter(|life| life.died.is_none_or(|died| died > walk.ended))
        .map(|life| &life.item)
        .filter(|item| !ids.contains(&item.id))
        .collect();
    missing.sort_by_key(|item| item.id);
    assert!(
        missing.is_empty(),
        "{who}: posts that existed for the whole walk are missing: {missing:?}"
    );
}

/// The writer: inserts posts among the walkers' (ties with existing posts, a microsecond either
/// side, and new ones over HTTP) and deletes posts, seeded or its own, until the walkers are
/// done, `MAX_WRITES` writes, or `MAX_WRITING`. Returns its writes, and how many of them it
/// made while walkers were still walking.
async fn write(
    db: Db,
    client: Server,
    history: History,
    walking: Arc<AtomicBool>,
) -> (usize, usize) {
    let started = Instant::now();
    let mut random = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = move |below: usize| {
        // xorshift: reproducible, and enough to scatter the writes.
        random ^= random << 13;
        random ^= random >> 7;
        random ^= random << 17;
        (random % below as u64) as usize
    };
    let (mut writes, mut during) = (0, 0);
    while writes < MAX_WRITES && started.elapsed() < MAX_WRITING && walking.load(Ordering::Relaxed)
    {
        let live: Vec<Item> = {
            let history = history.lock().unwrap();
            history
                .values()
                .filter(|life| life.died.is_none())
                .map(|life| life.item.clone())
                .collect()
        };
        let pick = live[next(live.len())].clone();
        match writes % 5 {
            0 | 2 => {
                let shift = TimeDelta::microseconds(next(3) as i64 - 1);
                let post = db.insert(pick.created_at + shift, "written").await.expect("insert");
                let item = Item { id: post.id, created_at: post.created_at, title: post.title };
                let life = Life { item, born: Some(Instant::now()), died: None };
                history.lock().unwrap().insert(post.id, life);
            }
            1 => {
                let reply = client.post_json("/posts", &json!({ "title": "posted" })).await;
                assert_eq!(reply.status, 201, "POST /posts: {}", reply.body);
                let item: Item = serde_json::from_value(reply.json()).expect("the new post");
                let life = Life { item: item.clone(), born: Some(Instant::now()), died: None };
                history.lock().unwrap().insert(item.id, life);
            }
            _ => {
                history.lock().unwrap().get_mut(&pick.id).expect("known").died =
                    Some(Instant::now());
                assert!(db.delete(pick.id).await.expect("delete"), "post {} existed", pick.id);
            }
        }
        writes += 1;
        during += usize::from(walking.load(Ordering::Relaxed));
        tokio::task::yield_now().await;
    }
    (writes, during)
}
