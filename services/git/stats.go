package git

// ReaderStats reports the pool of cat-file readers: processes open (idle
// or in use), idle ones, and the cap.
func (s *Store) ReaderStats() (open, idle, limit int) {
	s.readers.mu.Lock()
	defer s.readers.mu.Unlock()
	for _, l := range s.readers.idle {
		idle += len(l)
	}
	limit, _ = s.readers.limits()
	return s.readers.open, idle, limit
}
