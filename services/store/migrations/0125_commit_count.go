package migrations

import "gorm.io/gorm"

// Step0125_commit_count adds, on PostgreSQL, the count of forge's
// committed writing transactions (store.CommitCount): the answer cache's
// mark there, as the WAL-index header is on SQLite. PostgreSQL keeps no
// such count of one database (pg_current_snapshot() is the whole
// server's), so the database keeps it itself: every writing statement on
// any of forge's tables fires forge_commit_count(), which the first time
// in a transaction adds one to its connection's row. Rows per backend
// process, not one row: writers never wait for each other's row, so no
// lock is added to any transaction's order of locks. The count is the sum
// of the rows; a transaction's increment becomes visible with its commit
// and vanishes with its rollback, so two reads of an equal sum mean that
// nothing committed between them. Row 0 holds the increments of
// processes that ended (store.compactCommitCount). The triggers themselves are
// installed by Apply on every table, so a table added later has its own
// (commitCountTriggers).
func (History) Step0125_commit_count(tx *gorm.DB) error {
	if tx.Dialector.Name() != "postgres" {
		return nil
	}
	for _, q := range []string{
		`CREATE TABLE commit_count (pid integer PRIMARY KEY, n bigint NOT NULL)`,
		`INSERT INTO commit_count (pid, n) VALUES (0, 0)`,
		// The transaction-local setting makes the increment once per
		// transaction; a rollback to a savepoint undoes both.
		`CREATE FUNCTION forge_commit_count() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF current_setting('forge.commit_counted', true) IS DISTINCT FROM 'on' THEN
				PERFORM set_config('forge.commit_counted', 'on', true);
				INSERT INTO commit_count (pid, n) VALUES (pg_backend_pid(), 1)
					ON CONFLICT (pid) DO UPDATE SET n = commit_count.n + 1;
			END IF;
			RETURN NULL;
		END $$`,
	} {
		if err := tx.Exec(q).Error; err != nil {
			return err
		}
	}
	return nil
}
