//! The web example's OpenAPI document (`GET /openapi.json`) describes what the service serves:
//! every route, the page parameters with the order enum's names, each status it answers with
//! its media type (`application/problem+json` for refusals), and a `Link` header on pages. (CI
//! also validates it and fuzzes the live service with it: `.ci/third-party.sh`.)

mod common;

use keyset_examples::db::{Db, PostOrder};
use keyset_examples::pool::PoolOptions;
use keyset_examples::web::router;
use serde_json::Value;

use common::Server;

#[tokio::test]
async fn the_document_describes_every_route_its_parameters_and_answers() {
    let db = Db::open(None, 5, PoolOptions::default()).await.expect("SQLite");
    let server = Server::start(router(db)).await;
    let reply = server.get("/openapi.json").await;
    assert_eq!((reply.status, reply.content_type.as_str()), (200, "application/json"));
    let doc = reply.json();
    assert_eq!(doc["openapi"], "3.1.0");

    let operations = [
        ("/posts", "get"),
        ("/posts", "post"),
        ("/feed", "get"),
        ("/users/{id}/feed", "get"),
        ("/users/{id}/follows/{author}", "put"),
    ];
    for (path, method) in operations {
        let operation = &doc["paths"][path][method];
        assert!(operation.is_object(), "{method} {path}: {doc}");
        // Every refusal is a problem.
        for status in ["400", "414", "500", "503"] {
            let content = &operation["responses"][status]["content"];
            let schema = &content["application/problem+json"]["schema"]["$ref"];
            assert_eq!(schema, "#/components/schemas/Problem", "{method} {path} {status}");
        }
    }
    assert!(doc["paths"]["/posts"]["post"]["responses"]["201"].is_object());
    assert!(doc["paths"]["/posts"]["get"]["responses"]["404"].is_object(), "around a missing post");
    assert!(doc["paths"]["/feed"]["get"]["responses"]["404"].is_null());
    assert!(doc["paths"]["/users/{id}/follows/{author}"]["put"]["responses"]["204"].is_object());

    // A listing's parameters: the order's names, then the page's.
    let params = |path: &str| -> Vec<Value> {
        doc["paths"][path]["get"]["parameters"].as_array().expect("parameters").clone()
    };
    let names = |params: &[Value]| -> Vec<String> {
        params.iter().map(|param| param["name"].as_str().unwrap().to_owned()).collect()
    };
    let posts = params("/posts");
    assert_eq!(
        names(&posts),
        ["around", "sort", "dir", "limit", "after", "before", "last", "from", "past", "count"]
    );
    let posts = &posts[1..];
    assert!(posts[6]["description"].as_str().unwrap().contains("leading key"), "{}", posts[6]);
    let counts: Vec<&str> = posts[8]["schema"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(counts, ["exact", "bounded", "estimated"]);
    let sort: Vec<&str> = posts[0]["schema"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(sort, PostOrder::ALL.map(PostOrder::name));
    assert_eq!(posts[2]["schema"]["minimum"], 1);
    assert_eq!(names(&params("/feed"))[0], "authors");
    assert_eq!(names(&params("/users/{id}/feed"))[0], "id");

    // A page: its items refer to the post's schema, its tokens may be null, its links a header.
    let ok = &doc["paths"]["/posts"]["get"]["responses"]["200"];
    assert!(ok["headers"]["link"].is_object(), "{ok}");
    let page = &ok["content"]["application/json"]["schema"];
    assert_eq!(page["properties"]["items"]["items"]["$ref"], "#/components/schemas/Post");
    assert_eq!(page["properties"]["next_cursor"]["type"], serde_json::json!(["string", "null"]));
    // The count, only when asked for: not required, its kinds named.
    let total = &page["properties"]["total"];
    assert_eq!(
        total["properties"]["kind"]["enum"],
        serde_json::json!(["exact", "at_least", "estimated"])
    );
    let required = page["required"].as_array().unwrap();
    assert!(!required.contains(&serde_json::json!("total")), "{page}");
    let post = &doc["components"]["schemas"]["Post"]["properties"];
    for field in ["id", "author_id", "created_at", "score", "title"] {
        assert!(post[field].is_object(), "Post.{field}: {post}");
    }
}
