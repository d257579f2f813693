//! The page parameters of a query string, read one by one, so that each refusal names the
//! parameter and what it takes (a `serde` struct flattened over the query reports only the
//! first error, in serde's words, and cannot tell `limit=ten` from `after` with `before`).

use std::str::FromStr;

use crate::count::Count;
use crate::error::RequestError;
use crate::orders::named::{Orders, ParseOrderError, SortDirection};
use crate::request::PageRequest;

/// The page parameters, as a listing in the model's order reads them: `limit`, `after`,
/// `before` or `last=true`, and `count` (`exact`, `bounded` or `estimated`, see
/// [`PageRequest::count`]). Other parameters (a listing's own filters) are left alone.
///
/// ```
/// use keyset_runtime::http::page_request;
/// use keyset_runtime::{PageRequest, RequestError};
///
/// assert_eq!(page_request(Some("limit=5&author=7"))?, PageRequest::first(5));
/// assert_eq!(page_request(Some("after=AQ&limit=5"))?, PageRequest::after("AQ", 5));
/// assert_eq!(page_request(None)?, PageRequest::default());
///
/// let refused = page_request(Some("limit=ten")).unwrap_err();
/// assert_eq!(refused.to_string(), "`limit=ten`: a whole number of rows from 1, e.g. `limit=20`");
/// assert_eq!(page_request(Some("after=AQ&before=AQ")), Err(RequestError::AfterAndBefore));
///
/// use keyset_runtime::Count;
/// assert_eq!(page_request(Some("count=bounded"))?, PageRequest::default().count(Count::Bounded));
/// let refused = page_request(Some("count=all")).unwrap_err();
/// assert_eq!(refused.to_string(), "`count=all`: one of `exact`, `bounded`, `estimated`");
/// # Ok::<(), RequestError>(())
/// ```
pub fn page_request(query: Option<&str>) -> Result<PageRequest, RequestError> {
    Params::read(query)?.page_request()
}

/// A listing in one of its named orders, as a query string chooses it: `sort` (the order's
/// name; the enum's default without it), `dir` (`asc` or `desc`: the direction of the order's
/// first key; as declared without it), and the page parameters of [`page_request`]. What
/// [`Paginate::paginate_by`](crate::Paginate::paginate_by) takes; with the `axum` feature, an
/// extractor.
///
/// ```
/// use diesel::prelude::*;
/// use keyset_runtime::http::Sorted;
/// use keyset_runtime::{Keyset, PageRequest, SortDirection};
///
/// diesel::table! { posts (id) { id -> BigInt, score -> Integer } }
///
/// #[derive(Queryable, Selectable, Keyset)]
/// #[keyset(order(new: id desc), order(top: score desc, id desc))]
/// struct Post {
///     #[tiebreaker]
///     id: i64,
///     score: i32,
/// }
///
/// let sorted = Sorted::<PostOrder>::from_query(Some("sort=top&dir=asc&limit=5"))?;
/// assert_eq!((sorted.sort, sorted.dir), (PostOrder::Top, Some(SortDirection::Asc)));
/// assert_eq!(sorted.request, PageRequest::first(5));
/// assert_eq!(Sorted::<PostOrder>::from_query(None)?.sort, PostOrder::New); // the first declared
///
/// let refused = Sorted::<PostOrder>::from_query(Some("sort=hot")).unwrap_err();
/// assert_eq!(refused.to_string(), "`sort=hot`: one of `new`, `top`");
/// # Ok::<(), keyset_runtime::RequestError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sorted<O> {
    /// The order chosen.
    pub sort: O,
    /// Its direction, when one was chosen.
    pub dir: Option<SortDirection>,
    /// The page.
    pub request: PageRequest,
}

impl<O> Sorted<O>
where
    O: Orders + Default + FromStr<Err = ParseOrderError>,
{
    /// Reads `sort`, `dir` and the page parameters from a query string (without its `?`).
    pub fn from_query(query: Option<&str>) -> Result<Self, RequestError> {
        let params = Params::read(query)?;
        let refused = |name, value: &str, error: ParseOrderError| {
            invalid(name, value, one_of(error.expected()))
        };
        let sort = match &params.sort {
            Some(name) => name.parse().map_err(|error| refused("sort", name, error))?,
            None => O::default(),
        };
        let dir = match &params.dir {
            Some(name) => Some(name.parse().map_err(|error| refused("dir", name, error))?),
            None => None,
        };
        Ok(Sorted { sort, dir, request: params.page_request()? })
    }
}

/// The parameters read, each at most once, still as text.
#[derive(Default)]
struct Params {
    after: Option<String>,
    before: Option<String>,
    limit: Option<String>,
    last: Option<String>,
    sort: Option<String>,
    dir: Option<String>,
    count: Option<String>,
    from: Option<String>,
    past: Option<String>,
}

impl Params {
    fn read(query: Option<&str>) -> Result<Self, RequestError> {
        let mut params = Params::default();
        let pairs = form_urlencoded::parse(query.unwrap_or_default().as_bytes());
        for (name, value) in pairs {
            // Decoded (`%61fter` is `after`): a name written otherwise is never silently none.
            let (name, slot) = match name.as_ref() {
                "after" => ("after", &mut params.after),
                "before" => ("before", &mut params.before),
                "limit" => ("limit", &mut params.limit),
                "last" => ("last", &mut params.last),
                "sort" => ("sort", &mut params.sort),
                "dir" => ("dir", &mut params.dir),
                "count" => ("count", &mut params.count),
                "from" => ("from", &mut params.from),
                "past" => ("past", &mut params.past),
                _ => continue,
            };
            if slot.replace(value.into_owned()).is_some() {
                return Err(RequestError::RepeatedParameter { name });
            }
        }
        Ok(params)
    }

    fn page_request(&self) -> Result<PageRequest, RequestError> {
        let limit = match &self.limit {
            Some(limit) => Some(limit.parse::<u32>().map_err(|_| {
                invalid("limit", limit, "a whole number of rows from 1, e.g. `limit=20`".into())
            })?),
            None => None,
        };
        let last = match self.last.as_deref() {
            None | Some("false") => false,
            Some("true") => true,
            Some(other) => return Err(invalid("last", other, "`true` or `false`".into())),
        };
        let count = match &self.count {
            Some(count) => Some(
                count
                    .parse::<Count>()
                    .map_err(|_| invalid("count", count, one_of(&Count::ALL.map(Count::name))))?,
            ),
            None => None,
        };
        let cursors = (self.after.clone(), self.before.clone());
        let start = (self.from.clone(), self.past.clone());
        PageRequest::from_parts(cursors, start, limit, last, count)
    }
}

fn invalid(name: &'static str, value: &str, expected: String) -> RequestError {
    RequestError::InvalidParameter { name, value: value.to_owned(), expected }
}

/// "one of `a`, `b`".
fn one_of(names: &[&str]) -> String {
    let names: Vec<String> = names.iter().map(|name| format!("`{name}`")).collect();
    format!("one of {}", names.join(", "))
}
