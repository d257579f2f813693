CREATE TABLE posts (
    id BIGINT PRIMARY KEY,
    created_at TIMESTAMP NOT NULL,
    score INTEGER NOT NULL,
    rank INTEGER,
    slug TEXT NOT NULL,
    title TEXT NOT NULL
);
CREATE TABLE memberships (
    team_id INTEGER NOT NULL,
    user_id INTEGER NOT NULL,
    joined_at TIMESTAMP NOT NULL,
    PRIMARY KEY (team_id, user_id)
);
