package attachments

import (
	"mime"
	"net/http"
	"path"
	"strings"

	"forge/services/errs"
)

// ErrTypeNotAllowed is Gitea's answer to a file its type list refuses.
var ErrTypeNotAllowed = errs.New(errs.Invalid, "This file extension or type is not allowed to be uploaded.")

// sniffLen is how much of a file the type check looks at.
const sniffLen = 512

// checkType applies an allowed-types list (Gitea's format: comma- or
// '|'-separated extensions ".zip", MIME types "image/png" and wildcards
// "image/*"; empty or "*/*" allows anything) to a file's name and first
// bytes (head; nil checks the name only). The file passes when its
// sniffed MIME type or its extension is listed.
func checkType(allowed, name string, head []byte) error {
	allowed = strings.ReplaceAll(allowed, "|", ",")
	var entries []string
	for _, e := range strings.Split(allowed, ",") {
		if e = strings.ToLower(strings.TrimSpace(e)); e != "" {
			entries = append(entries, e)
		}
	}
	if len(entries) == 0 {
		return nil
	}
	var full, bare string
	if head != nil {
		full = http.DetectContentType(head)
		bare, _, _ = mime.ParseMediaType(full)
	}
	ext := strings.ToLower(path.Ext(name))
	for _, e := range entries {
		switch {
		case e == "*/*":
			return nil
		case strings.HasPrefix(e, "."):
			if ext == e {
				return nil
			}
		case strings.HasSuffix(e, "/*"):
			if bare != "" && strings.HasPrefix(bare, strings.TrimSuffix(e, "*")) {
				return nil
			}
		case strings.Contains(e, "/"):
			if bare != "" && (e == bare || e == full) {
				return nil
			}
		}
	}
	return ErrTypeNotAllowed
}
