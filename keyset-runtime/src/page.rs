//! [`Page`]: what a page request returns.

use serde::Serialize;

/// One page of rows, in the model's order, with the tokens that lead to its neighbours.
///
/// Serializes as `{"items": [..], "next_cursor": .., "prev_cursor": ..}`, with `null` (never `""`)
/// for a page that does not exist:
///
/// ```
/// use keyset_runtime::Page;
///
/// let page = Page { items: vec![3, 2], next_cursor: Some("AQ".to_owned()), prev_cursor: None };
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
}

impl<T> Page<T> {
    /// Whether a page follows this one.
    ///
    /// ```
    /// # use keyset_runtime::Page;
    /// let last = Page { items: vec![1], next_cursor: None, prev_cursor: Some("AQ".to_owned()) };
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
    /// let first = Page { items: vec![1], next_cursor: Some("AQ".to_owned()), prev_cursor: None };
    /// assert!(first.has_next() && !first.has_prev());
    /// ```
    pub fn has_prev(&self) -> bool {
        self.prev_cursor.is_some()
    }

    /// The same page with every item converted, e.g. into a response type.
    ///
    /// ```
    /// # use keyset_runtime::Page;
    /// let page = Page { items: vec![1, 2], next_cursor: Some("AQ".to_owned()), prev_cursor: None };
    /// let page = page.map(|id| format!("post {id}"));
    /// assert_eq!(page.items, ["post 1", "post 2"]);
    /// assert_eq!(page.next_cursor.as_deref(), Some("AQ"));
    /// ```
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U> {
        Page {
            items: self.items.into_iter().map(f).collect(),
            next_cursor: self.next_cursor,
            prev_cursor: self.prev_cursor,
        }
    }
}

/// A [`Page`] whose fields serialize in camelCase, as JavaScript clients expect:
/// `{"items": [..], "nextCursor": .., "prevCursor": ..}`. A type rather than a cargo feature:
/// features are additive, and one crate's choice would rename every other crate's pages in the
/// build.
///
/// ```
/// use keyset_runtime::{CamelCase, Page};
///
/// let page = Page { items: vec![3, 2], next_cursor: Some("AQ".to_owned()), prev_cursor: None };
/// assert_eq!(
///     serde_json::to_string(&CamelCase(page)).unwrap(),
///     r#"{"items":[3,2],"nextCursor":"AQ","prevCursor":null}"#,
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
        }
        let Page { items, next_cursor, prev_cursor } = &self.0;
        Fields { items, next_cursor, prev_cursor }.serialize(serializer)
    }
}
