-- Written by keyset from the models' sort orders. Do not edit: change the models.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "posts_keyset_author_id_asc_created_at_desc_id_desc" ON "posts" ("author_id" ASC, "created_at" DESC, "id" DESC);
