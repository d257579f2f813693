CREATE TABLE posts (
    id BIGINT PRIMARY KEY,
    created_at DATETIME(6) NOT NULL,
    score INTEGER NOT NULL,
    `rank` INTEGER,
    slug VARCHAR(100) NOT NULL,
    title VARCHAR(200) NOT NULL
) DEFAULT CHARSET = utf8mb4;
CREATE TABLE memberships (
    team_id INTEGER NOT NULL,
    user_id INTEGER NOT NULL,
    joined_at DATETIME(6) NOT NULL,
    PRIMARY KEY (team_id, user_id)
);
