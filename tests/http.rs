//! `keyset_runtime::http` without a server: each page parameter's refusal and its problem type,
//! the mapping of every client error to a `400` of its type and of the server's to a bare
//! `500`, and `Link` headers that keep a listing's own parameters.

use http::Uri;
use keyset_runtime::http::{link_header, page_request, problems, Problem, Sorted};
use keyset_runtime::{Count, CursorError, Direction, Error, Page, PageRequest, RequestError};
use keyset_tests::models::StoryOrder;

/// The problem a query string gets, as a handler answers it.
fn problem(query: &str) -> Problem {
    Problem::from(page_request(Some(query)).expect_err(query))
}

#[test]
fn each_bad_page_parameter_is_a_400_of_its_type_naming_it() {
    let cases = [
        ("limit=ten", problems::INVALID_LIMIT, "`limit=ten`"),
        ("limit=-1", problems::INVALID_LIMIT, "`limit=-1`"),
        ("limit=2%200", problems::INVALID_LIMIT, "`limit=2 0`"),
        ("limit=99999999999", problems::INVALID_LIMIT, "whole number"),
        ("limit=0", problems::INVALID_LIMIT, "at least 1"),
        ("after=a&before=b", problems::CONFLICTING_PARAMETERS, "not both"),
        ("last=true&after=a", problems::CONFLICTING_PARAMETERS, "`last`"),
        ("limit=5&limit=6", problems::CONFLICTING_PARAMETERS, "`limit` is given more than once"),
        ("after=a&after=b", problems::CONFLICTING_PARAMETERS, "`after`"),
        ("last=maybe", problems::INVALID_PARAMETER, "`true` or `false`"),
        ("count=all", problems::INVALID_COUNT, "`count=all`: one of `exact`, `bounded`"),
        ("count=Exact", problems::INVALID_COUNT, "`count=Exact`"),
        ("count=", problems::INVALID_COUNT, "`estimated`"),
        ("count=exact&count=bounded", problems::CONFLICTING_PARAMETERS, "`count` is given"),
    ];
    for (query, type_uri, says) in cases {
        let problem = problem(query);
        assert_eq!(problem.status(), 400, "{query}");
        assert_eq!(problem.type_uri(), type_uri, "{query}");
        let detail = problem.detail().unwrap_or_default();
        assert!(detail.contains(says), "{query}: {detail:?} should say {says:?}");
    }
}

#[test]
fn page_parameters_are_decoded_and_others_left_alone() {
    let request = page_request(Some("q=a+b&after=A%51&limit=7&tag=x")).unwrap();
    assert_eq!(request, PageRequest::after("AQ", 7));
    // A name written with escapes is the same parameter, never ignored.
    let escaped = page_request(Some("%61fter=AQ&limit=3")).unwrap();
    assert_eq!(escaped, PageRequest::after("AQ", 3));
    let twice = page_request(Some("after=AQ&%61fter=AQ")).unwrap_err();
    assert_eq!(twice, RequestError::RepeatedParameter { name: "after" });
    // No limit: the listing's default (`Paginated::max_limit` clamps a given one).
    let last = page_request(Some("last=true")).unwrap();
    assert!(last.is_last() && last.limit().is_none(), "{last:?}");
    assert_eq!(page_request(Some("last=false&limit=3")).unwrap(), PageRequest::first(3));
    assert_eq!(page_request(Some("")).unwrap(), PageRequest::default());
}

#[test]
fn a_count_is_read_by_name_and_a_refused_one_is_a_400_of_its_type() {
    for (query, count) in [
        ("count=exact", Count::Exact),
        ("count=bounded", Count::Bounded),
        ("count=estimated", Count::Estimated),
    ] {
        let request = page_request(Some(&format!("after=AQ&limit=5&{query}"))).unwrap();
        assert_eq!(request, PageRequest::after("AQ", 5).count(count), "{query}");
    }
    assert_eq!(page_request(Some("limit=5")).unwrap().requested_count(), None);
    let sorted = Sorted::<StoryOrder>::from_query(Some("sort=top&count=estimated")).unwrap();
    assert_eq!(sorted.request.requested_count(), Some(Count::Estimated));
    // The listing's refusal of an exact count: the client's, and of the count's type.
    let refused = Problem::from(Error::from(RequestError::CountRefused { count: Count::Exact }));
    assert_eq!(refused.status(), 400);
    assert_eq!(refused.type_uri(), problems::INVALID_COUNT);
    assert!(refused.detail().unwrap_or_default().contains("`bounded` or `estimated`"));
}

#[test]
fn an_unknown_sort_or_direction_names_the_valid_ones() {
    let refused =
        |query: &str| Problem::from(Sorted::<StoryOrder>::from_query(Some(query)).unwrap_err());
    for (query, says) in
        [("sort=hot", "`sort=hot`: one of"), ("dir=up", "`dir=up`: one of `asc`, `desc`")]
    {
        let problem = refused(query);
        assert_eq!(problem.type_uri(), problems::INVALID_SORT, "{query}");
        assert!(problem.detail().unwrap().contains(says), "{query}: {:?}", problem.detail());
    }
    assert_eq!(refused("sort=new&sort=new").type_uri(), problems::CONFLICTING_PARAMETERS);
    assert_eq!(refused("sort=new&limit=x").type_uri(), problems::INVALID_LIMIT);
}

#[test]
fn every_token_refusal_is_a_400_of_its_type() {
    let cases = [
        (CursorError::Empty, problems::MALFORMED_TOKEN),
        (CursorError::NotBase64, problems::MALFORMED_TOKEN),
        (CursorError::Malformed, problems::MALFORMED_TOKEN),
        (CursorError::Truncated, problems::MALFORMED_TOKEN),
        (CursorError::BadSignature, problems::MALFORMED_TOKEN),
        (CursorError::ForeignSortOrder, problems::FOREIGN_TOKEN),
        (CursorError::OtherScope, problems::FOREIGN_TOKEN),
        (
            CursorError::WrongDirection { expected: Direction::Before, found: Direction::After },
            problems::TOKEN_WRONG_WAY,
        ),
    ];
    for (error, type_uri) in cases {
        let text = error.to_string();
        let problem = Problem::from(Error::from(error));
        assert_eq!((problem.status(), problem.type_uri()), (400, type_uri.to_owned()), "{text}");
        assert!(problem.detail().unwrap().contains(&text));
    }
    let set = Problem::from(Error::from(RequestError::SetTooLarge { len: Some(5), max: 2 }));
    assert_eq!(set.type_uri(), problems::INVALID_SET);
    let number = Problem::from(Error::from(RequestError::ZeroPageNumber));
    assert_eq!(number.type_uri(), problems::INVALID_PAGE_NUMBER);
}

#[test]
fn a_fault_of_the_server_shows_nothing_of_itself() {
    let error = diesel::result::Error::QueryBuilderError("secret_table".into());
    let problem = Problem::from(Error::from(error));
    assert_eq!(problem.status(), 500);
    assert_eq!(problem.type_uri(), "about:blank");
    assert_eq!(problem.detail(), None);
    let body = serde_json::to_string(&problem.into_details()).unwrap();
    assert!(!body.contains("secret_table"), "{body}");
}

#[test]
fn links_keep_the_listings_own_parameters_and_replace_the_position() {
    let page = Page::new(vec![()], Some("Bg".into()), Some("Bw".into()));
    let uri: Uri = "/feed?authors=1%2C2&before=AQ&q=a+b&sort=top".parse().unwrap();
    let link = link_header(&uri, &page);
    let links: Vec<&str> = link.to_str().unwrap().split(", ").collect();
    assert_eq!(
        links,
        [
            r#"</feed?authors=1%2C2&q=a+b&sort=top&after=Bg>; rel="next""#,
            r#"</feed?authors=1%2C2&q=a+b&sort=top&before=Bw>; rel="prev""#,
            r#"</feed?authors=1%2C2&q=a+b&sort=top>; rel="first""#,
            r#"</feed?authors=1%2C2&q=a+b&sort=top&last=true>; rel="last""#,
        ]
    );
    // The first page of a listing without parameters: no `prev`, no `next` past its end.
    let alone = Page::<()>::new(vec![], None, None);
    let link = link_header(&"/posts".parse().unwrap(), &alone);
    assert_eq!(link.to_str().unwrap(), r#"</posts>; rel="first", </posts?last=true>; rel="last""#);
}
