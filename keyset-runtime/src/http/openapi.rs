//! The `utoipa` feature: the OpenAPI schemas of what a listing reads and serves, so that a
//! service's document describes its pages without a schema written by hand.
//!
//! - [`PageRequest`] and [`Sorted<O>`](super::Sorted) are `IntoParams`: the query parameters
//!   `limit` (an integer from 1), `after`, `before` and `last` (the three exclusive, as each
//!   one's description says: OpenAPI has no way to state it), `from` and `past` (a start at the
//!   leading key's value, where the listing serves it), `count` (`exact`, `bounded` or
//!   `estimated`), and for `Sorted<O>`, `sort` (the order enum's names) and `dir`;
//! - `Page<T>`, `CamelCase<T>`, `SortDirection`, [`Problem`] and every generated order enum are
//!   `ToSchema`.
//!
//! ```
//! use utoipa::openapi::path::ParameterIn;
//! use utoipa::IntoParams;
//! use keyset_runtime::PageRequest;
//!
//! let params = PageRequest::into_params(|| Some(ParameterIn::Query));
//! let names: Vec<&str> = params.iter().map(|param| param.name.as_str()).collect();
//! assert_eq!(names, ["limit", "after", "before", "last", "from", "past", "count"]);
//! ```

use std::borrow::Cow;

use problem_details::ProblemDetails;
use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::{RefOr, Required};
use utoipa::{IntoParams, PartialSchema, ToSchema};

use super::{Problem, Sorted};
use crate::count::Count;
use crate::orders::named::SortDirection;
use crate::page::{CamelCase, Page};
use crate::request::PageRequest;

/// `?limit=&after=&before=&last=&from=&past=&count=`.
impl IntoParams for PageRequest {
    fn into_params(parameter_in: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        page_params(&parameter_in)
    }
}

/// `?sort=&dir=&limit=&after=&before=&last=&from=&past=&count=`, `sort` the names of `O`.
impl<O: ToSchema> IntoParams for Sorted<O> {
    fn into_params(parameter_in: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        let sort = "The order, by name; the listing's default without it.";
        let dir = "The direction of the order's first key (the other keys follow it); the order \
                   as declared without it.";
        let mut params = vec![
            param(&parameter_in, "sort", O::schema(), sort),
            param(&parameter_in, "dir", SortDirection::schema(), dir),
        ];
        params.extend(page_params(&parameter_in));
        params
    }
}

fn page_params(parameter_in: &impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
    // A `u32`: no OpenAPI format says unsigned, so the range does.
    let limit =
        ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(1)).maximum(Some(u32::MAX));
    let token = || ObjectBuilder::new().schema_type(Type::String);
    let last = ObjectBuilder::new().schema_type(Type::Boolean);
    vec![
        param(
            parameter_in,
            "limit",
            limit.into(),
            "Rows per page, from 1: the listing's default without it, its maximum above it.",
        ),
        param(
            parameter_in,
            "after",
            token().into(),
            "A page's `next_cursor`: the page after it. Not with `before` or `last`.",
        ),
        param(
            parameter_in,
            "before",
            token().into(),
            "A page's `prev_cursor`: the page before it. Not with `after` or `last`.",
        ),
        param(
            parameter_in,
            "last",
            last.into(),
            "`true`: the last page. Not with `after` or `before`.",
        ),
        param(
            parameter_in,
            "from",
            token().into(),
            "A value of the order's leading key (a date and time in RFC 3339 or a date for \
             timestamps, the key's text otherwise): the first page at or past it in the order's \
             direction, where the listing serves starts at values. Not with `after`, `before`, \
             `last` or `past`.",
        ),
        param(
            parameter_in,
            "past",
            token().into(),
            "As `from`, without the rows equal to the value: the first page strictly past it. \
             Not with `after`, `before`, `last` or `from`.",
        ),
        param(
            parameter_in,
            "count",
            order_names_schema(&Count::ALL.map(Count::name)),
            "The listing's row count with the page, in `total`: `bounded` (exact up to the \
             listing's cap, else at least the cap), `estimated` (the database planner's \
             estimate, with the page's approximate position), or `exact` (where the listing \
             allows it; refused otherwise). No count without it.",
        ),
    ]
}

fn param(
    parameter_in: &impl Fn() -> Option<ParameterIn>,
    name: &str,
    schema: RefOr<Schema>,
    description: &str,
) -> Parameter {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(parameter_in().unwrap_or(ParameterIn::Query))
        .required(Required::False)
        .description(Some(description))
        .schema(Some(schema))
        .build()
}

/// The schema of a generated order enum: a string, one of `names` (named by generated code
/// through `__private`).
pub fn order_names_schema(names: &[&str]) -> RefOr<Schema> {
    let names = names.iter().copied();
    ObjectBuilder::new().schema_type(Type::String).enum_values(Some(names)).into()
}

/// `asc` or `desc`.
impl PartialSchema for SortDirection {
    fn schema() -> RefOr<Schema> {
        order_names_schema(&["asc", "desc"])
    }
}

impl ToSchema for SortDirection {}

/// `{"items": [..], "next_cursor": .., "prev_cursor": .., "total": ..}`.
impl<T: ToSchema> PartialSchema for Page<T> {
    fn schema() -> RefOr<Schema> {
        page_schema::<T>(["items", "next_cursor", "prev_cursor"], false)
    }
}

impl<T: ToSchema> ToSchema for Page<T> {
    fn name() -> Cow<'static, str> {
        Cow::Owned(format!("Page_{}", T::name()))
    }

    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        item_schemas::<T>(schemas);
    }
}

/// `{"items": [..], "nextCursor": .., "prevCursor": .., "total": ..}`.
impl<T: ToSchema> PartialSchema for CamelCase<T> {
    fn schema() -> RefOr<Schema> {
        page_schema::<T>(["items", "nextCursor", "prevCursor"], true)
    }
}

impl<T: ToSchema> ToSchema for CamelCase<T> {
    fn name() -> Cow<'static, str> {
        Cow::Owned(format!("CamelCasePage_{}", T::name()))
    }

    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        item_schemas::<T>(schemas);
    }
}

/// A page's object, its fields named `names` (items, the next token, the previous one), the
/// items referring to `T`'s schema, with its optional `total` (kinds in camelCase or not).
fn page_schema<T: ToSchema>([items, next, prev]: [&str; 3], camel_case: bool) -> RefOr<Schema> {
    let item = RefOr::Ref(utoipa::openapi::Ref::from_schema_name(T::name()));
    let token = |description: &str| {
        ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::SchemaType::from_iter([Type::String, Type::Null]))
            .description(Some(description))
    };
    ObjectBuilder::new()
        .property(items, utoipa::openapi::schema::ArrayBuilder::new().items(item))
        .required(items)
        .property(next, token("The token of the page after this one: null on the last page."))
        .required(next)
        .property(prev, token("The token of the page before this one: null on the first page."))
        .required(prev)
        .property("total", total_schema(camel_case))
        .into()
}

/// A page's `total`, present only when the request asked for a count: `kind`, `count`, and
/// for an estimate `page` and `pages`.
fn total_schema(camel_case: bool) -> ObjectBuilder {
    use crate::count::TotalKind;

    let kinds = [TotalKind::Exact, TotalKind::AtLeast, TotalKind::Estimated];
    let whole = |description: &str| {
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .minimum(Some(0))
            .description(Some(description))
    };
    ObjectBuilder::new()
        .description(Some(
            "The listing's rows, present when the request asked for a count (`count`).",
        ))
        .property(
            "kind",
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some(kinds.map(|kind| kind.name(camel_case))))
                .description(Some(
                    "`exact`; at least `count` (a bounded count reached its cap); or `estimated`.",
                )),
        )
        .required("kind")
        .property("count", whole("The rows, as `kind` says."))
        .required("count")
        .property("page", whole("For an estimate: about which page this is, from 1, where known."))
        .property("pages", whole("For an estimate: about how many pages the listing has."))
}

fn item_schemas<T: ToSchema>(schemas: &mut Vec<(String, RefOr<Schema>)>) {
    schemas.push((T::name().into_owned(), T::schema()));
    T::schemas(schemas);
}

/// RFC 9457's object: `type`, `title`, `status`, `detail` (`problem_details`' schema).
impl PartialSchema for Problem {
    fn schema() -> RefOr<Schema> {
        ProblemDetails::<()>::schema()
    }
}

impl ToSchema for Problem {}
