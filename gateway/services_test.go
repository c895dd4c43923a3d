package gateway

import (
	"forge/services/area"
	"forge/services/area/all"
)

// withServices gives the gateway under test every area's REST handlers, as
// cmd/forge/app does, from the same list (package all).
func withServices(o Options) Options {
	o.Services = area.Gateways(all.Areas)
	return o
}
