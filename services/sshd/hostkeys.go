package sshd

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/crypto/ssh"
)

// hostKeys loads the server's host keys from dir, generating each the
// first time (ed25519 and RSA 3072, written 0600), so clients see the
// same host across restarts.
func hostKeys(dir string) ([]ssh.Signer, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("ssh host key directory: %w", err)
	}
	var signers []ssh.Signer
	for _, k := range []struct {
		file string
		gen  func() (any, error)
	}{
		{"forge.ed25519", func() (any, error) { _, priv, err := ed25519.GenerateKey(rand.Reader); return priv, err }},
		{"forge.rsa", func() (any, error) { return rsa.GenerateKey(rand.Reader, 3072) }},
	} {
		s, err := hostKey(filepath.Join(dir, k.file), k.gen)
		if err != nil {
			return nil, err
		}
		signers = append(signers, s)
	}
	return signers, nil
}

func hostKey(path string, gen func() (any, error)) (ssh.Signer, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		s, err := ssh.ParsePrivateKey(b)
		if err != nil {
			return nil, fmt.Errorf("ssh host key %s: %w", path, err)
		}
		return s, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("ssh host key: %w", err)
	}
	key, err := gen()
	if err != nil {
		return nil, err
	}
	block, err := ssh.MarshalPrivateKey(key, "")
	if err != nil {
		return nil, err
	}
	// Written beside and renamed: another process starting at once sees
	// a whole key or none; the later rename wins and both keys are valid
	// until the next start reads the winner.
	tmp, err := os.CreateTemp(filepath.Dir(path), ".hostkey-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return nil, err
	}
	if _, err := tmp.Write(pem.EncodeToMemory(block)); err != nil {
		tmp.Close()
		return nil, err
	}
	if err := tmp.Close(); err != nil {
		return nil, err
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	// Whoever linked first wins; read back what is there.
	b, err = os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ssh.ParsePrivateKey(b)
}
