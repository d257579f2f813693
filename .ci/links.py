"""The web example's listing walked by its Link headers alone, with Python `requests`
(`response.links`, RFC 8288), as a client that knows nothing of keyset's query string would:
`next` from the first page to the end, `prev` from `last` back to the start. Every page must keep
the feed's own parameter (`authors`), its order and its limit; both walks must list the same rows,
each once, all of the feed's authors, and as many as the tokens in the bodies walk to.

Usage: python3 .ci/links.py http://127.0.0.1:PORT
"""

import sys
from urllib.parse import parse_qs, urljoin, urlsplit

import requests

BASE = sys.argv[1]
START = "/feed?authors=1,2,3&sort=top&dir=asc&limit=7"
KEPT = {"authors": ["1,2,3"], "sort": ["top"], "dir": ["asc"], "limit": ["7"]}


def walk(url, rel):
    """The pages from `url`, following `rel` links until there is none."""
    pages = []
    while url:
        response = requests.get(url, timeout=10)
        assert response.status_code == 200, (url, response.status_code, response.text)
        query = parse_qs(urlsplit(response.url).query)
        for name, value in KEPT.items():
            assert query.get(name) == value, (response.url, name)
        pages.append(response.json()["items"])
        link = response.links.get(rel)
        url = urljoin(response.url, link["url"]) if link else None
    return pages


def by_tokens():
    """The same feed walked by the bodies' `next_cursor`: the rows the links must list."""
    rows, after = [], None
    while True:
        params = {"authors": "1,2,3", "sort": "top", "dir": "asc", "limit": "50"}
        if after:
            params["after"] = after
        page = requests.get(BASE + "/feed", params=params, timeout=10).json()
        rows += [row["id"] for row in page["items"]]
        after = page["next_cursor"]
        if not after:
            return rows


forward = [row for page in walk(BASE + START, "next") for row in page]
first = requests.get(BASE + START, timeout=10)
assert "prev" not in first.links, first.headers["link"]
last = urljoin(first.url, first.links["last"]["url"])
backward = [row for page in reversed(walk(last, "prev")) for row in page]

ids = [row["id"] for row in forward]
assert len(ids) == len(set(ids)), "a row twice"
assert ids == [row["id"] for row in backward], "back by prev lists other rows"
assert {row["author_id"] for row in forward} == {1, 2, 3}
assert ids == by_tokens(), "the links list other rows than the tokens"
print(f"Link walk: {len(ids)} rows forward by rel=next and back by rel=prev, each once")
