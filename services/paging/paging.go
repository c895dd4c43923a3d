// Package paging normalises Gitea's page/limit query parameters, once for
// the services (which apply them) and the gateway (which writes Link headers).
package paging

// Limits are [api] DEFAULT_PAGING_NUM and MAX_RESPONSE_ITEMS.
type Limits struct {
	Default int
	Max     int
}

// Page is a normalised 1-based page.
type Page struct {
	Number int // 1-based
	Size   int
}

// Normalize applies Gitea's rules: page <= 0 is 1; limit <= 0 is the
// default; limit above the maximum is the maximum.
func (l Limits) Normalize(page, limit int) Page {
	if page <= 0 {
		page = 1
	}
	switch {
	case limit <= 0:
		limit = l.Default
	case limit > l.Max:
		limit = l.Max
	}
	return Page{Number: page, Size: limit}
}

// Offset is the number of items before this page.
func (p Page) Offset() int { return (p.Number - 1) * p.Size }
