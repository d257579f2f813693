//! `PageRequest` from query parameters, as a web framework's query extractor reads them.

use keyset_runtime::PageRequest;

fn parse(query: &str) -> Result<PageRequest, String> {
    serde_urlencoded::from_str(query).map_err(|err| err.to_string())
}

#[test]
fn query_parameters_select_the_page() {
    assert_eq!(parse("limit=20").unwrap(), PageRequest::first(20));
    assert_eq!(parse("after=abc&limit=5").unwrap(), PageRequest::after("abc", 5));
    assert_eq!(parse("before=abc&limit=5").unwrap(), PageRequest::before("abc", 5));
    assert_eq!(parse("last=true&limit=5").unwrap(), PageRequest::last(5));
    assert_eq!(parse("").unwrap(), PageRequest::default());
    assert_eq!(parse("").unwrap().limit(), None);
}

#[test]
fn contradictory_or_invalid_parameters_are_refused() {
    assert!(parse("after=a&before=b").unwrap_err().contains("`after` or `before`, not both"));
    assert!(parse("last=true&after=a").unwrap_err().contains("`last`"));
    assert!(parse("limit=0").unwrap_err().contains("at least 1"));
    assert!(parse("limit=-1").is_err());
    assert!(parse("limit=ten").is_err());
}
