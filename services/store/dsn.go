package store

import (
	"net"
	"strings"
)

func splitHostPort(hostport string) (string, string, error) {
	return net.SplitHostPort(hostport)
}

// quote escapes a libpq key/value value.
func quote(v string) string {
	if v == "" {
		return "''"
	}
	if !strings.ContainsAny(v, ` '\`) {
		return v
	}
	v = strings.ReplaceAll(v, `\`, `\\`)
	v = strings.ReplaceAll(v, `'`, `\'`)
	return "'" + v + "'"
}
