-- Written by keyset from the models' sort orders. Do not edit: change the models.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "posts_keyset_rank_desc_nulls_last_id_desc" ON "posts" ("rank" DESC NULLS LAST, "id" DESC);
