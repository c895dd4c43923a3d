package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
)

// NewToken returns a fresh 160-bit token as 40 lowercase hex characters,
// with the hash to store. A random token needs no slow KDF: SHA-256 is
// enough and keeps per-request authentication cheap.
func NewToken() (plain, hash string) {
	b := make([]byte, 20)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	plain = hex.EncodeToString(b)
	return plain, HashToken(plain)
}

// HashToken is the stored form of a token value.
func HashToken(plain string) string {
	sum := sha256.Sum256([]byte(plain))
	return hex.EncodeToString(sum[:])
}

// LooksLikeToken reports whether s has the shape of a forge token, so
// passwords are not looked up as tokens needlessly.
func LooksLikeToken(s string) bool {
	if len(s) != 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
