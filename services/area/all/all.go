// Package all lists every area forge serves, once. The server
// (cmd/forge/app) and the gateway's tests derive everything from this
// list, so an area added here is wired everywhere and one left out is
// wired nowhere.
package all

import (
	"forge/services/admin"
	"forge/services/area"
	"forge/services/attachments"
	"forge/services/code"
	"forge/services/issuedeps"
	"forge/services/issues"
	"forge/services/labels"
	"forge/services/mirrors"
	"forge/services/misc"
	"forge/services/notify"
	"forge/services/orgs"
	"forge/services/releases"
	"forge/services/repos"
	"forge/services/tokens"
	"forge/services/users"
	"forge/services/watch"
)

// Areas lists every area forge serves, once. Policies, gRPC registration
// on both transports, REST registration and the tables deletes clear all
// come from this list (see package area and docs/adding-an-area.md).
var Areas = []area.Area{
	misc.Area,
	users.Area,
	admin.Area,
	tokens.Area,
	repos.Area,
	mirrors.Area,
	releases.Area,
	watch.Area,
	code.Area,
	issues.Area,
	issuedeps.Area,
	labels.Area,
	orgs.Area,
	attachments.Area,
	notify.Area,
}
