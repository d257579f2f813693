DROP TABLE authors;
