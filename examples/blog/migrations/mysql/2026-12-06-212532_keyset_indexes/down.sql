-- Written by keyset from the models' sort orders. Do not edit: change the models.
DROP INDEX `authors_keyset_name_asc_id_asc_unique` ON `authors`;
