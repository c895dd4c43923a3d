package gateway

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

// withServices gives the gateway under test every area's REST handlers, as
// cmd/forge/app does. An area missing here leaves its routes unregistered,
// which TestPreflightSeesEveryRoute reports.
func withServices(o Options) Options {
	o.Services = area.Gateways([]area.Area{misc.Area, users.Area, admin.Area, tokens.Area, repos.Area,
		mirrors.Area, releases.Area, watch.Area, code.Area, issues.Area, issuedeps.Area,
		labels.Area, orgs.Area, attachments.Area, notify.Area})
	return o
}
