package git

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
)

// Reported ref moves.
//
// A forge process sees the ref moves of its own machine through the ref
// watch (RefMoves), but not those of forge processes on other machines
// that share the repositories. For them, a Store told to
// (ReportRefMoves) hands every git command it runs a marker file name;
// forge's reference-transaction hook creates that file before git moves
// any ref ("prepared", so a ref never moves without it), and when the
// command has ended, before its Wait returns, the Store removes the file
// and, if it was there, calls the report. forge's report commits to the
// database (store.CountRefMove), so every process's answer mark moves
// before the write that moved the refs is acknowledged.
const refsMovedEnv = "FORGE_REFS_MOVED"

// ReportRefMoves makes s call report once for each git command it runs
// that prepared a ref transaction (one that moved no ref after all
// included), after the command ended and before its Wait returns. report
// runs on the command's goroutine with the command's context, cancelled
// or not. Set it before the Store is used.
func (s *Store) ReportRefMoves(report func(ctx context.Context)) {
	var b [8]byte
	rand.Read(b[:])
	// Markers live in the shared scratch directory: a random prefix keeps
	// them apart from those of processes on other machines.
	s.movedPrefix = "moved-" + hex.EncodeToString(b[:]) + "-"
	s.reportMoves = report
}

// watchMoves gives cmd a marker when ref moves are reported.
func (s *Store) watchMoves(ctx context.Context, cmd *limitedCmd) {
	if s.reportMoves == nil {
		return
	}
	cmd.moved = filepath.Join(s.tmpDir, s.movedPrefix+strconv.FormatUint(s.movedSeq.Add(1), 10))
	cmd.Env = append(cmd.Env, refsMovedEnv+"="+cmd.moved)
	cmd.report = func() { s.reportMoves(context.WithoutCancel(ctx)) }
}

// reportMoved reports cmd's ref transaction, if it prepared one; called
// once the process has ended.
func (c *limitedCmd) reportMoved() {
	if c.moved == "" {
		return
	}
	if os.Remove(c.moved) == nil {
		c.report()
	}
}
