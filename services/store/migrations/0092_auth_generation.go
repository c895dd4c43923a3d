package migrations

import "gorm.io/gorm"

// Step0092_auth_generation adds the authentication generation: one row
// whose value the database itself bumps, by triggers, in the transaction
// of any change that can alter what a token authenticates as: a user row
// updated (every update bumps users.version; TOTP step claims do not) or
// deleted, a token deleted or re-pointed. Every process reads it before
// trusting its cache of authenticated principals (store.AuthGeneration),
// so a change committed by any process, the command line included, is
// seen by the next request everywhere. Triggers rather than Go code: no
// writer can forget them.
func (History) Step0092_auth_generation(tx *gorm.DB) error {
	stmts := []string{
		`CREATE TABLE auth_generation (id integer PRIMARY KEY, value bigint NOT NULL)`,
		`INSERT INTO auth_generation (id, value) VALUES (1, 0)`,
	}
	if tx.Dialector.Name() == "postgres" {
		stmts = append(stmts,
			`CREATE FUNCTION bump_auth_generation() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN UPDATE auth_generation SET value = value + 1 WHERE id = 1; RETURN NULL; END $$`,
			`CREATE TRIGGER users_auth_generation_update AFTER UPDATE ON users FOR EACH ROW
			WHEN (OLD.version IS DISTINCT FROM NEW.version) EXECUTE FUNCTION bump_auth_generation()`,
			`CREATE TRIGGER users_auth_generation_delete AFTER DELETE ON users
			FOR EACH STATEMENT EXECUTE FUNCTION bump_auth_generation()`,
			`CREATE TRIGGER access_tokens_auth_generation_update AFTER UPDATE ON access_tokens FOR EACH ROW
			WHEN (OLD.uid IS DISTINCT FROM NEW.uid OR OLD.token_hash IS DISTINCT FROM NEW.token_hash OR OLD.scope IS DISTINCT FROM NEW.scope)
			EXECUTE FUNCTION bump_auth_generation()`,
			`CREATE TRIGGER access_tokens_auth_generation_delete AFTER DELETE ON access_tokens
			FOR EACH STATEMENT EXECUTE FUNCTION bump_auth_generation()`,
		)
	} else {
		const bump = `BEGIN UPDATE auth_generation SET value = value + 1 WHERE id = 1; END`
		stmts = append(stmts,
			`CREATE TRIGGER users_auth_generation_update AFTER UPDATE ON users FOR EACH ROW
			WHEN OLD.version IS NOT NEW.version `+bump,
			`CREATE TRIGGER users_auth_generation_delete AFTER DELETE ON users FOR EACH ROW `+bump,
			`CREATE TRIGGER access_tokens_auth_generation_update AFTER UPDATE ON access_tokens FOR EACH ROW
			WHEN OLD.uid IS NOT NEW.uid OR OLD.token_hash IS NOT NEW.token_hash OR OLD.scope IS NOT NEW.scope `+bump,
			`CREATE TRIGGER access_tokens_auth_generation_delete AFTER DELETE ON access_tokens FOR EACH ROW `+bump,
		)
	}
	for _, q := range stmts {
		if err := tx.Exec(q).Error; err != nil {
			return err
		}
	}
	return nil
}
