// Apollo Client pages the GraphQL example as a React app would, with the `relayStylePagination`
// field policy: `fetchMore` forward from the first page to the end, and backward from the last
// page to the start, while a writer inserts and deletes posts between the pages (through psql,
// on the example's PostgreSQL database). Every post present throughout the walk must be listed
// exactly once, each way; no post twice; the cache's merged connection in the order's order.
//
// Usage: node walk.mjs http://127.0.0.1:PORT/graphql postgres://..
import { execFileSync } from "node:child_process";

import { ApolloClient, HttpLink, InMemoryCache, gql } from "@apollo/client";
import { relayStylePagination } from "@apollo/client/utilities";

const [uri, database] = process.argv.slice(2);
const sql = (query) => execFileSync("psql", [database, "-qAtc", query], { encoding: "utf8" }).trim();

const POSTS = gql`
  query Posts($first: Int, $after: String, $last: Int, $before: String) {
    posts(orderBy: TOP, direction: ASC, first: $first, after: $after, last: $last, before: $before) {
      edges { cursor node { id score } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }
`;

function client() {
  const cache = new InMemoryCache({
    typePolicies: { Query: { fields: { posts: relayStylePagination(["orderBy", "direction"]) } } },
  });
  return new ApolloClient({ link: new HttpLink({ uri }), cache });
}

function fail(message) {
  console.error(`Apollo walk: ${message}`);
  process.exit(1);
}

// The writer's step between two pages: a new post (the best score, so it lands at the end of
// `top asc`, past any cursor), and the deletion of one that was there from the start.
const inserted = new Set();
const deleted = new Set();
function write(step) {
  const id = sql(`INSERT INTO posts (author_id, created_at, score, title)
                  VALUES (1, now(), 1000000 + ${step}, 'apollo ${step}') RETURNING id`);
  inserted.add(Number(id));
  const victim = sql("SELECT id FROM posts WHERE title NOT LIKE 'apollo %' ORDER BY random() LIMIT 1");
  if (victim) {
    sql(`DELETE FROM posts WHERE id = ${victim}`);
    deleted.add(Number(victim));
  }
}

async function walk(direction) {
  const forward = direction === "forward";
  const observable = client().watchQuery({
    query: POSTS,
    variables: forward ? { first: 7 } : { last: 7 },
  });
  // The next settled result: the cache's merged connection, which reaches the query after
  // `fetchMore` resolves.
  let waiting = [];
  const subscription = observable.subscribe({
    next: (result) => {
      if (result.loading) return;
      const resolve = waiting;
      waiting = [];
      resolve.forEach((settle) => settle(result));
    },
    error: (error) => fail(`${direction}: ${error.message}`),
  });
  const settled = () =>
    Promise.race([
      new Promise((resolve) => waiting.push(resolve)),
      new Promise((_, reject) => setTimeout(() => reject(new Error("no result in 10 s")), 10_000)),
    ]);
  let result = await settled();
  let pages = 1;
  for (;;) {
    const { pageInfo } = result.data.posts;
    const more = forward ? pageInfo.hasNextPage : pageInfo.hasPreviousPage;
    if (!more) break;
    write(pages);
    const variables = forward
      ? { first: 7, after: pageInfo.endCursor }
      : { last: 7, before: pageInfo.startCursor };
    const next = settled();
    await observable.fetchMore({ variables });
    result = await next;
    pages += 1;
  }
  subscription.unsubscribe();
  const edges = result.data.posts.edges;
  return { ids: edges.map((edge) => Number(edge.node.id)), scores: edges.map((e) => e.node.score), pages };
}

for (const direction of ["forward", "backward"]) {
  const present = new Set(sql("SELECT id FROM posts").split("\n").filter(Boolean).map(Number));
  inserted.clear();
  deleted.clear();
  const { ids, scores, pages } = await walk(direction);
  const seen = new Set(ids);
  if (seen.size !== ids.length) fail(`${direction}: a post twice`);
  for (const id of present) {
    if (!deleted.has(id) && !seen.has(id)) fail(`${direction}: post ${id} was there throughout and is missing`);
  }
  for (const id of ids) {
    if (!present.has(id) && !inserted.has(id)) fail(`${direction}: post ${id} was never there`);
  }
  for (let i = 1; i < scores.length; i++) {
    if (scores[i - 1] > scores[i]) fail(`${direction}: the merged connection is out of order at ${i}`);
  }
  console.log(
    `Apollo walk ${direction}: ${ids.length} posts in ${pages} fetches, each once, ` +
      `${inserted.size} inserted and ${deleted.size} deleted meanwhile`,
  );
}
