//! The web service's OpenAPI document (`GET /openapi.json`): its routes, each with its
//! parameters, bodies and every status it answers, from keyset's schemas (feature `utoipa`:
//! the page parameters, `Page<Post>`, the order enum, problem details) and the handlers'
//! `#[utoipa::path]` attributes. Checked by `examples/tests/openapi.rs`, validated and fuzzed in
//! CI (`openapi-spec-validator`, Schemathesis).

use std::collections::BTreeMap;

use keyset_runtime::http::Problem;
use keyset_runtime::Page;
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::{ContentBuilder, Ref, RefOr, Response, ResponseBuilder};
use utoipa::{IntoResponses, OpenApi, PartialSchema, ToSchema};

use crate::db::Post;

/// The document.
#[derive(OpenApi)]
#[openapi(
    info(title = "keyset web example", description = "Keyset pages of posts, and feeds of them."),
    paths(
        crate::web::list_posts,
        crate::web::feed,
        crate::web::user_feed,
        crate::web::follow,
        crate::web::create_post
    ),
    components(schemas(Post, Problem))
)]
pub struct ApiDoc;

/// A JSON page of posts with its `Link` header, and the refusals of a listing.
pub struct PageResponses;

impl IntoResponses for PageResponses {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        let link = HeaderBuilder::new()
            .schema(ObjectBuilder::new().schema_type(Type::String))
            .description(Some(
                "RFC 8288: the `next`, `prev`, `first` and `last` pages, relative to the request",
            ))
            .build();
        let page = ResponseBuilder::new()
            .description("A page of posts; a missing neighbour's token is null")
            // Inline: the page's schema refers to `Post`'s.
            .content(
                "application/json",
                ContentBuilder::new().schema(Some(<Page<Post>>::schema())).build(),
            )
            .header("link", link)
            .build();
        let mut responses = Refusals::responses();
        responses.insert("200".into(), page.into());
        responses
    }
}

/// [`PageResponses`], and the `404` of a page around a post that does not exist (`/posts`'
/// `around`).
pub struct AroundResponses;

impl IntoResponses for AroundResponses {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        let missing = ResponseBuilder::new()
            .description("`around` names a post the listing does not hold")
            .content("application/problem+json", json(Problem::name()));
        let mut responses = PageResponses::responses();
        responses.insert("404".into(), missing.build().into());
        responses
    }
}

/// The answers of a request that failed: each a problem (RFC 9457).
pub struct Refusals;

impl IntoResponses for Refusals {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        [
            ("400", "A parameter, token or body the service cannot take: `type` says which"),
            ("414", "A query string over 8 KiB"),
            ("415", "A body that is not `application/json`"),
            ("422", "A body whose values the service or its database refuses"),
            ("500", "The server's own fault, logged and not shown"),
            ("503", "No database connection came free in time: retry after `Retry-After`"),
        ]
        .into_iter()
        .map(|(status, description)| {
            let mut response = ResponseBuilder::new()
                .description(description)
                .content("application/problem+json", json(Problem::name()));
            if status == "503" {
                let seconds = ObjectBuilder::new().schema_type(Type::Integer);
                response =
                    response.header("retry-after", HeaderBuilder::new().schema(seconds).build());
            }
            (status.to_owned(), response.build().into())
        })
        .collect()
    }
}

/// A body of the component schema `name`.
fn json(name: std::borrow::Cow<'static, str>) -> utoipa::openapi::Content {
    ContentBuilder::new().schema(Some(RefOr::Ref(Ref::from_schema_name(name)))).build()
}

/// `204`, and the refusals.
pub struct NoContent;

impl IntoResponses for NoContent {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        let mut responses = Refusals::responses();
        responses.insert("204".into(), ResponseBuilder::new().description("Done").build().into());
        responses
    }
}

/// `201` with the new post, and the refusals.
pub struct Created;

impl IntoResponses for Created {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        let created = ResponseBuilder::new()
            .description("The new post")
            .content("application/json", json(Post::name()));
        let mut responses = Refusals::responses();
        responses.insert("201".into(), created.build().into());
        responses
    }
}
