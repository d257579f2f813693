-- Written by keyset from the models' sort orders. Do not edit: change the models.
DROP INDEX IF EXISTS "authors_keyset_name_asc_id_asc_unique";
