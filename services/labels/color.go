package labels

import (
	"strings"

	"forge/services/errs"
)

// NormalizeColor accepts "#rrggbb", "rrggbb", "#rgb" and "rgb" in any case
// and returns "#rrggbb" in lowercase (the stored form); anything else is
// Gitea's 422 "bad color code: <color>".
func NormalizeColor(color string) (string, error) {
	hex := strings.TrimPrefix(color, "#")
	if len(hex) != 3 && len(hex) != 6 {
		return "", badColor(color)
	}
	for _, c := range hex {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return "", badColor(color)
		}
	}
	hex = strings.ToLower(hex)
	if len(hex) == 3 {
		hex = string([]byte{hex[0], hex[0], hex[1], hex[1], hex[2], hex[2]})
	}
	return "#" + hex, nil
}

func badColor(color string) error {
	return errs.Newf(errs.Invalid, "bad color code: %s", color)
}
