package store

import (
	"errors"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"

	"forge/services/errs"
)

// errBadText: PostgreSQL refused a text value (SQLSTATE 22021,
// character_not_in_repertoire: a NUL character or invalid UTF-8). The
// request interceptor (services/validate) refuses such strings before any
// handler runs; this is the defence behind it for text that reaches the
// database another way, so it is a client's 422 and not a 500.
var errBadText = errs.New(errs.Invalid, "text contains a NUL character or invalid UTF-8")

// translateBadText registers, after every kind of statement, the
// translation of SQLSTATE 22021 into errBadText.
func translateBadText(db *gorm.DB) error {
	translate := func(tx *gorm.DB) {
		if tx.Error != nil {
			tx.Error = badText(tx.Error)
		}
	}
	cb := db.Callback()
	for _, err := range []error{
		cb.Create().After("*").Register("forge:bad_text", translate),
		cb.Query().After("*").Register("forge:bad_text", translate),
		cb.Update().After("*").Register("forge:bad_text", translate),
		cb.Delete().After("*").Register("forge:bad_text", translate),
		cb.Row().After("*").Register("forge:bad_text", translate),
		cb.Raw().After("*").Register("forge:bad_text", translate),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}

// badText is errBadText when err is SQLSTATE 22021, else err.
func badText(err error) error {
	var pg *pgconn.PgError
	if errors.As(err, &pg) && pg.Code == "22021" {
		return errBadText
	}
	return err
}

// storableText is text read from git (a commit message), which may hold
// any bytes, as a copy either database stores: invalid UTF-8 replaced by
// U+FFFD, NUL characters dropped. Text from requests never needs it: the
// request interceptor refuses both.
func storableText(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}
