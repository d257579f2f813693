//! `Link` headers (RFC 8288) for a page: its neighbours as the request's own URL with the page
//! parameters replaced, so that a client can walk a listing by its headers alone.

use std::fmt::Write as _;

use http::{HeaderValue, Uri};

use crate::page::Page;

/// The page parameters a link replaces; every other parameter (`limit`, `sort`, `dir`, a
/// listing's filters) is kept, in its place. A start at values (`from`, `past`) is where the
/// request began: its neighbours are reached by their tokens.
const POSITION: [&str; 5] = ["after", "before", "last", "from", "past"];

/// The `Link` header of `page`, served at `uri` (the request's, as the client sent it: behind a
/// router that strips a prefix, the original one): `rel="next"` and `rel="prev"` where the page
/// has those neighbours, and always `rel="first"` and `rel="last"`. Each target is `uri`'s path
/// and query with `after`, `before`, `last`, `from` and `past` replaced, a reference relative to the request
/// (RFC 3986: a client resolves it against the URL it asked for). The body is not touched.
///
/// ```
/// use http::Uri;
/// use keyset_runtime::http::link_header;
/// use keyset_runtime::Page;
///
/// let page = Page::new(vec![1, 2], Some("Ag".into()), None);
/// let uri: Uri = "/posts?author=7&limit=2&after=AQ".parse().unwrap();
/// let link = link_header(&uri, &page);
/// assert_eq!(
///     link.to_str().unwrap(),
///     r#"</posts?author=7&limit=2&after=Ag>; rel="next", </posts?author=7&limit=2>; rel="first", </posts?author=7&limit=2&last=true>; rel="last""#,
/// );
/// ```
pub fn link_header<T>(uri: &Uri, page: &Page<T>) -> HeaderValue {
    let kept: Vec<(String, String)> =
        form_urlencoded::parse(uri.query().unwrap_or_default().as_bytes())
            .filter(|(name, _)| !POSITION.contains(&name.as_ref()))
            .map(|(name, value)| (name.into_owned(), value.into_owned()))
            .collect();
    let target = |position: Option<(&str, &str)>| {
        let mut query = form_urlencoded::Serializer::new(String::new());
        query.extend_pairs(kept.iter());
        if let Some(position) = position {
            query.append_pair(position.0, position.1);
        }
        let query = query.finish();
        match query.is_empty() {
            true => uri.path().to_owned(),
            false => format!("{}?{query}", uri.path()),
        }
    };
    let mut links = Vec::with_capacity(4);
    if let Some(next) = &page.next_cursor {
        links.push((target(Some(("after", next))), "next"));
    }
    if let Some(prev) = &page.prev_cursor {
        links.push((target(Some(("before", prev))), "prev"));
    }
    links.push((target(None), "first"));
    links.push((target(Some(("last", "true"))), "last"));
    let mut header = String::new();
    for (index, (target, rel)) in links.iter().enumerate() {
        let separator = if index > 0 { ", " } else { "" };
        let _ = write!(header, "{separator}<{target}>; rel=\"{rel}\"");
    }
    // Only visible ASCII: the serializer percent-encodes everything else, and `<>`.
    HeaderValue::from_str(&header).unwrap_or_else(|_| HeaderValue::from_static(""))
}
