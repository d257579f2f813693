//! [`Page`]: what a page request returns.

use serde::Serialize;

use crate::count::TotalCount;

/// One page of rows, in the model's order, with the tokens that lead to its neighbours.
///
/// Serializes as `{"items": [..], "next_cursor": .., "prev_cursor": ..}`, with `null` (never `""`)
/// for a page that does not exist, and `"total"` only when the request asked for a count
/// ([`TotalCount`]):
///
/// ```
/// use keyset_runtime::Page;
///
/// let page = Page::new(vec![3, 2], Some("AQ".to_owned()), None);
/// assert_eq!(
///     serde_json::to_string(&page).unwrap(),
///     r#"{"items":[3,2],"next_cursor":"AQ","prev_cursor":null}"#,
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Page<T> {
    /// The rows, in the model's order, at most the limit.
    pub items: Vec<T>,
    /// The token for [`PageRequest::after`](crate::PageRequest::after): `None` when this is the last page.
    pub next_cursor: Option<String>,
    /// The token for [`PageRequest::before`](crate::PageRequest::before): `None` when this is the first page.
    pub prev_cursor: Option<String>,
    /// The listing's rows, when the request asked for a count
    /// ([`PageRequest::count`](crate::PageRequest::count)): left out of the JSON otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<TotalCount>,
}

impl<T> Page<T> {
    /// A page of `items` with its neighbours' tokens, and no count.
    ///
    /// ```
    /// # use keyset_runtime::Page;
    /// let page = Page::new(vec![1], None, Some("AQ".to_owned()));
    /// assert!(page.has_prev() && page.total.is_none());
    /// ```
    pub fn new(items: Vec<T>, next_cursor: Option<String>, prev_cursor: Option<String>) -> Self {
        Page { items, next_cursor, prev_cursor, total: None }
    }

    /// Whether a page follows this one.
    ///
    /// ```
    /// # use keyset_runtime::Page;
    /// let last = Page::new(vec![1], None, Some("AQ".to_owned()));
    /// assert!(!last.has_next() && last.has_prev());
    /// ```
    pub fn has_next(&self) -> bool {
        self.next_cursor.is_some()
    }

    /// Whether a page precedes this one. For a page reached with `after`, this is true without
    /// a query: the row the cursor came from preceded it (even if it has since been deleted).
    ///
    /// ```
    /// # use keyset_runtime::Page;
    /// let first = Page::new(vec![1], Some("AQ".to_owned()), None);
    /// assert!(first.has_next() && !first.has_prev());
    /// ```
    pub fn has_prev(&self) -> bool {
        self.prev_cursor.is_some()
    }

    /// The same page with every item converted, e.g. into a response type.
    ///
    /// ```
    /// # use keyset_runtime::Page;
    /// let page = Page::new(vec![1, 2], Some("AQ".to_owned()), None);
    /// let page = page.map(|id| format!("post {id}"));
    /// assert_eq!(page.items, ["post 1", "post 2"]);
    /// assert_eq!(page.next_cursor.as_deref(), Some("AQ"));
    /// ```
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U> {
        Page {
            items: self.items.into_iter().map(f).collect(),
            next_cursor: self.next_cursor,
            prev_cursor: self.prev_cursor,
            total: self.total,
        }
    }
}

/// A [`Page`] whose fields serialize in camelCase, as JavaScript clients expect:
/// `{"items": [..], "nextCursor": .., "prevCursor": ..}`, and `"total"` when a count was asked
/// for, its kind `atLeast` rather than `at_least`. A type rather than a cargo feature:
/// features are additive, and one crate's choice would rename every other crate's pages in the
/// build.
///
/// ```
/// use keyset_runtime::{CamelCase, Page, TotalCount, TotalKind};
///
/// let mut page = Page::new(vec![3, 2], Some("AQ".to_owned()), None);
/// assert_eq!(
///     serde_json::to_string(&CamelCase(page.clone())).unwrap(),
///     r#"{"items":[3,2],"nextCursor":"AQ","prevCursor":null}"#,
/// );
/// page.total = Some(TotalCount { kind: TotalKind::AtLeast, count: 1_000, page: None, pages: None });
/// assert_eq!(
///     serde_json::to_string(&CamelCase(page)).unwrap(),
///     r#"{"items":[3,2],"nextCursor":"AQ","prevCursor":null,"total":{"kind":"atLeast","count":1000}}"#,
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CamelCase<T>(pub Page<T>);

impl<T: Serialize> Serialize for CamelCase<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Fields<'a, T> {
            items: &'a [T],
            next_cursor: &'a Option<String>,
            prev_cursor: &'a Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            total: Option<Camel<'a>>,
        }
        /// A count whose kind is named in camelCase.
        struct Camel<'a>(&'a TotalCount);
        impl Serialize for Camel<'_> {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                self.0.serialize_cased(true, serializer)
            }
        }
        let Page { items, next_cursor, prev_cursor, total } = &self.0;
        Fields { items, next_cursor, prev_cursor, total: total.as_ref().map(Camel) }
            .serialize(serializer)
    }
}
