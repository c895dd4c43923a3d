//go:build !unix

package store

import "errors"

// mapSHM is not available here: every request reads the generations.
func mapSHM(string) ([]byte, error) { return nil, errors.New("store: no shared memory mapping") }

func unmapSHM([]byte) {}
