package main

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"strconv"
	"time"
)

// generateCommand is Gitea's `generate secret NAME`: a fresh random value
// for an app.ini secret, printed on standard output (never logged).
func generateCommand(args []string, stdout, stderr io.Writer) int {
	const use = "usage: forge generate secret SECRET_KEY|INTERNAL_TOKEN|JWT_SECRET|LFS_JWT_SECRET\n"
	if len(args) == 1 && isHelp(args[0]) || len(args) == 2 && args[0] == "secret" && isHelp(args[1]) {
		fmt.Fprint(stdout, use)
		return 0
	}
	if len(args) != 2 || args[0] != "secret" {
		fmt.Fprint(stderr, use)
		return 2
	}
	var (
		v   string
		err error
	)
	switch args[1] {
	case "SECRET_KEY":
		v, err = randomString(64)
	case "INTERNAL_TOKEN":
		v, err = internalToken()
	case "JWT_SECRET", "LFS_JWT_SECRET":
		var b []byte
		if b, err = randomBytes(32); err == nil {
			v = base64.RawURLEncoding.EncodeToString(b)
		}
	default:
		fmt.Fprintf(stderr, "forge generate secret: unknown secret %q (SECRET_KEY, INTERNAL_TOKEN, JWT_SECRET, LFS_JWT_SECRET)\n", args[1])
		return 2
	}
	if err != nil {
		fmt.Fprintln(stderr, "forge:", err)
		return 1
	}
	fmt.Fprintln(stdout, v)
	return 0
}

func randomBytes(n int) ([]byte, error) {
	b := make([]byte, n)
	_, err := rand.Read(b)
	return b, err
}

// randomString is n letters and digits, uniformly drawn.
func randomString(n int) (string, error) {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	out := make([]byte, 0, n)
	for len(out) < n {
		b, err := randomBytes(n)
		if err != nil {
			return "", err
		}
		for _, c := range b {
			if int(c) < 256-256%len(alphabet) && len(out) < n { // no modulo bias
				out = append(out, alphabet[int(c)%len(alphabet)])
			}
		}
	}
	return string(out), nil
}

// internalToken is a token of Gitea's INTERNAL_TOKEN form: a JWT (HS256)
// whose only claim is its not-before time, signed with a random key that
// is thrown away.
func internalToken() (string, error) {
	key, err := randomBytes(32)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	unsigned := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." +
		enc.EncodeToString([]byte(`{"nbf":`+strconv.FormatInt(time.Now().Unix(), 10)+`}`))
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(unsigned))
	return unsigned + "." + enc.EncodeToString(mac.Sum(nil)), nil
}
