-- The authors of the posts (`posts.author_id`), by name: what a listing grouped by its author
-- joins. The index of their names is generated (`ByAuthor`).
CREATE TABLE authors (
    id BIGINT PRIMARY KEY NOT NULL,
    name TEXT NOT NULL
);
