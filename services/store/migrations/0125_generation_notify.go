package migrations

import "gorm.io/gorm"

// Step0125_generation_notify makes the PostgreSQL functions that bump the
// generations (0092, 0093) also send a notification on the channel
// forge_generation. PostgreSQL delivers it when the bumping transaction
// commits (never for one rolled back) and folds the notifications of one
// transaction into one. Each forge process listens and so learns of
// another process's change without reading the generations on every
// request (store/genwatch.go). SQLite has no notifications: there a
// process watches PRAGMA data_version instead, and nothing changes.
func (History) Step0125_generation_notify(tx *gorm.DB) error {
	if tx.Dialector.Name() != "postgres" {
		return nil
	}
	for _, q := range []string{
		`CREATE OR REPLACE FUNCTION bump_auth_generation() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN UPDATE auth_generation SET value = value + 1 WHERE id = 1;
		PERFORM pg_notify('forge_generation', ''); RETURN NULL; END $$`,
		`CREATE OR REPLACE FUNCTION bump_resource_generation() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN UPDATE auth_generation SET resource_value = resource_value + 1 WHERE id = 1;
		PERFORM pg_notify('forge_generation', ''); RETURN NULL; END $$`,
	} {
		if err := tx.Exec(q).Error; err != nil {
			return err
		}
	}
	return nil
}
