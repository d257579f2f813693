-- Written by keyset from the models' sort orders. Do not edit: change the models.
DROP INDEX CONCURRENTLY IF EXISTS "posts_keyset_rank_desc_nulls_last_id_desc";
