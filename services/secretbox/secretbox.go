// Package secretbox encrypts secrets at rest (TOTP seeds, mirror
// credentials, Actions secrets) with a key derived from [security]
// SECRET_KEY, using AES-256-GCM.
package secretbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"errors"
)

// Box seals and opens secrets. Each purpose gets its own derived key, so a
// value sealed for one purpose cannot be opened as another.
type Box struct {
	aead cipher.AEAD
}

// New derives a key for purpose from secretKey.
func New(secretKey, purpose string) (*Box, error) {
	if secretKey == "" {
		return nil, errors.New("secretbox: empty SECRET_KEY")
	}
	key := sha256.Sum256([]byte("forge secretbox v1\x00" + purpose + "\x00" + secretKey))
	block, err := aes.NewCipher(key[:])
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Box{aead: aead}, nil
}

// Seal encrypts plaintext; the random nonce is prepended.
func (b *Box) Seal(plaintext []byte) []byte {
	nonce := make([]byte, b.aead.NonceSize(), b.aead.NonceSize()+len(plaintext)+b.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return b.aead.Seal(nonce, nonce, plaintext, nil)
}

// ErrCorrupt is returned for data that was not sealed by this key.
var ErrCorrupt = errors.New("secretbox: cannot decrypt (wrong SECRET_KEY or corrupt data)")

// Open decrypts data produced by Seal.
func (b *Box) Open(sealed []byte) ([]byte, error) {
	n := b.aead.NonceSize()
	if len(sealed) < n {
		return nil, ErrCorrupt
	}
	out, err := b.aead.Open(nil, sealed[:n], sealed[n:], nil)
	if err != nil {
		return nil, ErrCorrupt
	}
	return out, nil
}
