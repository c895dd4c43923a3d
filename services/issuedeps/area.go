// Package issuedeps serves issue dependencies ("depends on") and blocks:
// GET/POST/DELETE /repos/{o}/{r}/issues/{index}/dependencies and
// .../blocks, over forge.issues.v1.DependencyService.
package issuedeps

import "forge/services/area"

// Area declares the dependencies area to the server (see package area).
var Area = area.Area{
	Name:       "issuedeps",
	RepoTables: []string{"issue_dependencies"},
}
