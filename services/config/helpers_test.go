package config

import (
	"sort"
	"strconv"
	"strings"
)

func itoa(n int) string  { return strconv.Itoa(n) }
func btoa(b bool) string { return strconv.FormatBool(b) }

func cidrs(c *Config) string {
	var s []string
	for _, n := range c.Security.ReverseProxyTrustedProxies {
		s = append(s, n.String())
	}
	return strings.Join(s, ",")
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
