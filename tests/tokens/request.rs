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

/// The handler's other parameters beside the page, in one struct: serde buffers a flattened
/// struct's query string untyped, so every value arrives as text (`limit=20` used to fail with
/// "invalid type: string \"20\", expected u32").
#[derive(serde::Deserialize, Debug, PartialEq)]
struct ListParams {
    sort: Option<String>,
    #[serde(flatten)]
    page: PageRequest,
}

fn parse_flattened(query: &str) -> Result<ListParams, String> {
    serde_urlencoded::from_str(query).map_err(|err| err.to_string())
}

#[test]
fn a_page_request_flattened_beside_other_parameters() {
    let params = parse_flattened("sort=top&limit=20&after=abc").unwrap();
    assert_eq!(
        params,
        ListParams { sort: Some("top".into()), page: PageRequest::after("abc", 20) }
    );
    assert_eq!(parse_flattened("last=true&limit=5").unwrap().page, PageRequest::last(5));
    assert_eq!(parse_flattened("last=false").unwrap().page, PageRequest::default());
    assert_eq!(parse_flattened("sort=new").unwrap().page, PageRequest::default());
    // The same rules and messages as unflattened.
    assert!(parse_flattened("limit=0").unwrap_err().contains("at least 1"));
    let ten = parse_flattened("limit=ten").unwrap_err();
    assert!(ten.contains("`limit` as a whole number"), "{ten}");
    assert!(parse_flattened("limit=-1").is_err());
    assert!(parse_flattened("limit=4294967296").is_err());
    let maybe = parse_flattened("last=maybe").unwrap_err();
    assert!(maybe.contains("`last` as `true` or `false`"), "{maybe}");
    assert!(parse_flattened("after=a&before=b").unwrap_err().contains("not both"));
}

/// A JSON body reads numbers and booleans as they are, and their text too.
#[test]
fn json_bodies_read_numbers_booleans_and_null() {
    let json = |text: &str| serde_json::from_str::<PageRequest>(text).map_err(|e| e.to_string());
    assert_eq!(json(r#"{"limit": 20, "last": true}"#).unwrap(), PageRequest::last(20));
    assert_eq!(json(r#"{"limit": "20"}"#).unwrap(), PageRequest::first(20));
    assert_eq!(json(r#"{"limit": null}"#).unwrap(), PageRequest::default());
    assert!(json(r#"{"limit": 1.5}"#).is_err());
    assert!(json(r#"{"limit": -3}"#).unwrap_err().contains("`limit` as a whole number"));
}
