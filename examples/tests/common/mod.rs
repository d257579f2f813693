//! A server on a loopback port and a real HTTP client (hyper's), for the end-to-end tests.

#![allow(dead_code)] // each test binary uses its own part of it

pub mod databases;

use axum::body::Bytes;
use axum::Router;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;

/// A running server and a client for it. The server stops with the test's runtime.
pub struct Server {
    base: String,
    client: Client<HttpConnector, Full<Bytes>>,
}

/// What the server answered.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub content_type: String,
    /// The `Retry-After` header, if any.
    pub retry_after: Option<String>,
    /// The `Link` header, if any.
    pub link: Option<String>,
    pub body: String,
}

impl Reply {
    /// The body as JSON; panics, showing the body, when it is not.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|err| panic!("not JSON ({err}): {:?}", self.body))
    }

    /// The body as an RFC 9457 problem: its `type` and its `detail` (empty for a server's
    /// fault, which shows none). Panics, showing the body, unless the media type is
    /// `application/problem+json`, the body's `status` the response's, and `type` and `title`
    /// are there.
    pub fn problem(&self) -> (String, String) {
        assert_eq!(self.content_type, "application/problem+json", "{}", self.body);
        let json = self.json();
        assert_eq!(json["status"], self.status, "{}", self.body);
        assert!(json["title"].as_str().is_some_and(|title| !title.is_empty()), "{}", self.body);
        let type_uri = json["type"].as_str().unwrap_or_else(|| panic!("no type: {}", self.body));
        (type_uri.to_owned(), json["detail"].as_str().unwrap_or_default().to_owned())
    }

    /// The target of the `Link` header's `rel` (RFC 8288: `<target>; rel="name"`, comma
    /// separated), if there is one.
    pub fn link(&self, rel: &str) -> Option<String> {
        let link = self.link.as_deref()?;
        link.split(", ").find_map(|entry| {
            let (target, params) = entry.split_once(">; ")?;
            (params == format!("rel=\"{rel}\"")).then(|| target.trim_start_matches('<').to_owned())
        })
    }

    /// The `detail` of a problem ([`problem`](Self::problem)).
    pub fn detail(&self) -> String {
        self.problem().1
    }
}

impl Server {
    /// Serves `router` on 127.0.0.1, on a port the system picks.
    pub async fn start(router: Router) -> Server {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind loopback");
        let addr = listener.local_addr().expect("bound address");
        tokio::spawn(async move { axum::serve(listener, router).await.expect("serve") });
        Server {
            base: format!("http://{addr}"),
            client: Client::builder(TokioExecutor::new()).build_http(),
        }
    }

    /// Another client of the same server, with connections of its own: one per concurrent
    /// walker, as separate users would be.
    pub fn client(&self) -> Server {
        Server {
            base: self.base.clone(),
            client: Client::builder(TokioExecutor::new()).build_http(),
        }
    }

    /// `GET path` (with its query string).
    pub async fn get(&self, path: &str) -> Reply {
        let request = axum::http::Request::get(format!("{}{path}", self.base))
            .body(Full::default())
            .expect("request");
        self.send(request).await
    }

    /// `PUT path`, with no body.
    pub async fn put(&self, path: &str) -> Reply {
        let request = axum::http::Request::put(format!("{}{path}", self.base))
            .body(Full::default())
            .expect("request");
        self.send(request).await
    }

    /// `POST path` with a JSON body.
    pub async fn post_json(&self, path: &str, body: &Value) -> Reply {
        let request = axum::http::Request::post(format!("{}{path}", self.base))
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(body.to_string())))
            .expect("request");
        self.send(request).await
    }

    async fn send(&self, request: axum::http::Request<Full<Bytes>>) -> Reply {
        let response = self.client.request(request).await.expect("the server answers");
        let status = response.status().as_u16();
        let header = |name: &str| {
            let value = response.headers().get(name);
            value.map(|value| value.to_str().expect("an ASCII header").to_owned())
        };
        let (content_type, retry_after) =
            (header("content-type").unwrap_or_default(), header("retry-after"));
        let link = header("link");
        let body = response.into_body().collect().await.expect("the whole body").to_bytes();
        let body = String::from_utf8(body.to_vec()).expect("UTF-8 body");
        Reply { status, content_type, retry_after, link, body }
    }
}

/// A query-string value, percent-encoded (tokens are URL-safe already; this is for the rest).
pub fn encode(value: &str) -> String {
    value
        .bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (byte as char).to_string()
            }
            _ => format!("%{byte:02X}"),
        })
        .collect()
}
