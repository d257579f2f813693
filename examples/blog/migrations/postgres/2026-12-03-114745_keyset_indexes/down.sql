-- Written by keyset from the models' sort orders. Do not edit: change the models.
DROP INDEX IF EXISTS "posts_keyset_author_id_asc_created_at_desc_id_desc";
