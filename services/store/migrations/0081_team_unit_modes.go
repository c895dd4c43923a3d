package migrations

import "gorm.io/gorm"

// Step0081_team_unit_modes clamps to write (2) the unit modes above write
// held by teams whose own access is below admin (3). A team's unit mode
// never gives more than write: repository admin comes only from the
// team's access, as in Gitea; earlier versions stored units_map "admin"
// on read and write teams, and the access checker read it as repository
// admin.
func (History) Step0081_team_unit_modes(tx *gorm.DB) error {
	return tx.Exec(`UPDATE team_units SET access_mode = 2
		WHERE access_mode > 2 AND team_id IN (SELECT id FROM teams WHERE authorize < 3)`).Error
}
