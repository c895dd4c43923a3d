//go:build unix

package store

import (
	"errors"
	"os"
	"syscall"
)

// mapSHM maps the start of a SQLite -shm file read-only: the WAL-index
// header and the checkpoint information, 136 bytes (genwatch.go).
func mapSHM(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() < 136 {
		return nil, errors.New("store: -shm file too short")
	}
	return syscall.Mmap(int(f.Fd()), 0, 136, syscall.PROT_READ, syscall.MAP_SHARED)
}

func unmapSHM(b []byte) { syscall.Munmap(b) }
