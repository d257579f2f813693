-- Written by keyset from the models' sort orders. Do not edit: change the models.
CREATE UNIQUE INDEX IF NOT EXISTS "authors_keyset_name_asc_id_asc_unique" ON "authors" ("name" ASC, "id" ASC);
