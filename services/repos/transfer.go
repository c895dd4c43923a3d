package repos

import (
	"context"
	"errors"
	"log/slog"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/failpoint"
	"forge/services/git"
	"forge/services/store"
)

// TransferStore is what transferring a repository reads and writes
// (store.Store).
type TransferStore interface {
	// OfferRepository records a pending transfer: store.ErrTransferPending
	// when one exists, store.ErrRepoExists when the recipient has the
	// name, store.ErrNotFound when the repository is gone.
	OfferRepository(ctx context.Context, t *store.RepoTransfer, addReader bool) error
	// PendingTransfer and PendingTransfersOf read pending transfers
	// (store.ErrNotFound, or absent from the map, when none).
	PendingTransfer(ctx context.Context, repoID int64) (*store.RepoTransfer, error)
	PendingTransfersOf(ctx context.Context, repoIDs []int64) (map[int64]*store.RepoTransfer, error)
	// CancelTransfer returns store.ErrNotFound when there is none.
	CancelTransfer(ctx context.Context, repoID int64) error
	// TransferRepository changes the owner in one transaction that runs
	// move before committing (see store.Store.TransferRepository).
	TransferRepository(ctx context.Context, t store.Transfer, move func(old, updated *store.Repository) error) (*store.Repository, error)
	// UserByID returns store.ErrNotFound for an unknown id.
	UserByID(ctx context.Context, id int64) (*store.User, error)
	MoveSettler
}

// MoveSettler reads the record a directory move settles on (store.Store).
type MoveSettler interface {
	// RepositoryByID returns store.ErrNotFound for an unknown id.
	RepositoryByID(ctx context.Context, id int64) (*store.Repository, error)
}

// The crash-test failpoints of a transfer: after the directory moved,
// before the record commits; after the commit, before the move's intent
// is forgotten.
const (
	FailpointTransferBeforeCommit = "repo-transfer-before-commit"
	FailpointTransferAfterCommit  = "repo-transfer-after-commit"
)

// Transfer gives r to target.User (POST /repos/{o}/{r}/transfer). The
// rule transfer-new-owner checked the new owner and the teams and decided
// whether the transfer needs the recipient's acceptance (target.Direct):
// if so it is recorded as pending and the result says so (pending true),
// and a recipient who cannot read the repository becomes a reader (as
// Gitea), so they can see what they are offered;
// otherwise the repository moves at once (see move).
func (s *Service) Transfer(ctx context.Context, r *access.Repo, target *access.Object, caller *auth.Principal) (Details, bool, error) {
	if target.User.ID == r.OwnerID {
		return Details{}, false, transferError(store.ErrRepoExists, r, target.User) // it already has that name, as Gitea answers
	}
	if !target.Direct {
		t := &store.RepoTransfer{RepoID: r.ID, DoerID: caller.ID(), RecipientID: target.User.ID, TeamIDs: store.JoinTeamIDs(target.Teams)}
		addReader := false
		if target.User.Type == store.UserTypeIndividual {
			mode, err := s.access.Mode(ctx, r.Repository, &auth.Principal{User: target.User})
			if err != nil {
				return Details{}, false, err
			}
			addReader = mode < store.AccessRead
		}
		if err := s.store.OfferRepository(ctx, t, addReader); err != nil {
			return Details{}, false, transferError(err, r, target.User)
		}
		// r's counters were read before the offer existed: the answer
		// shows the offer itself.
		d, err := s.detailsWith(ctx, r, caller, t)
		return d, true, err
	}
	updated, err := s.move(ctx, r.Repository, target.User, target.Teams, nil)
	if err != nil {
		return Details{}, false, transferError(err, r, target.User)
	}
	// Gitea answers with admin permissions, whoever the caller is now.
	d, err := s.Details(ctx, &access.Repo{Repository: updated, Owner: target.User, Mode: store.AccessAdmin}, caller)
	return d, false, err
}

// AcceptTransfer completes the pending transfer the rule
// transfer-recipient loaded (POST /repos/{o}/{r}/transfer/accept); the
// result is the repository as the caller now sees it.
func (s *Service) AcceptTransfer(ctx context.Context, obj *access.Object, caller *auth.Principal) (Details, error) {
	t, r := obj.Transfer, obj.Repo
	to, err := s.store.UserByID(ctx, t.RecipientID)
	if err != nil {
		return Details{}, errs.Replace(err, store.ErrNotFound, access.NoPendingTransfer(r.ID))
	}
	updated, err := s.move(ctx, r.Repository, to, t.Teams(), t)
	if errors.Is(err, store.ErrNotFound) {
		return Details{}, access.NoPendingTransfer(r.ID) // accepted or rejected meanwhile
	}
	if err != nil {
		return Details{}, transferError(err, r, to)
	}
	now, err := s.access.Resolve(ctx, to.Name, updated.Name, caller)
	if err != nil {
		now = &access.Repo{Repository: updated, Owner: to, Mode: store.AccessRead}
	}
	return s.Details(ctx, now, caller)
}

// RejectTransfer cancels the pending transfer the rule
// transfer-recipient loaded (POST /repos/{o}/{r}/transfer/reject).
func (s *Service) RejectTransfer(ctx context.Context, obj *access.Object, caller *auth.Principal) (Details, error) {
	if err := s.store.CancelTransfer(ctx, obj.Repo.ID); err != nil {
		return Details{}, errs.Replace(err, store.ErrNotFound, access.NoPendingTransfer(obj.Repo.ID))
	}
	return s.Details(ctx, obj.Repo, caller)
}

// transferError maps the store's refusals to Gitea's answers.
func transferError(err error, r *access.Repo, to *store.User) error {
	switch {
	case errors.Is(err, store.ErrRepoExists):
		return errs.Newf(errs.Invalid, "repository already exists [uname: %s, name: %s]", to.Name, r.Name)
	case errors.Is(err, store.ErrTransferPending):
		return errs.Newf(errs.AlreadyExists, "repository is already being transferred [uname: %s, name: %s]", r.Owner.Name, r.Name).
			WithHTTPStatus(409)
	case errors.Is(err, store.ErrNotFound):
		return access.ErrRepoNotFound
	}
	return errs.Wrap(err, "transfer repository")
}

// move changes rec's owner to to, with its directory, all or nothing even
// if the process dies at any moment: the intent to move is written first
// (git.Store.BeginMove), the directory is renamed inside the record's
// transaction just before it commits, and the intent is forgotten once
// both agree. A crash in between leaves the intent, which SettleMoves
// resolves at start-up from the record: the files go where it says.
func (s *Service) move(ctx context.Context, rec *store.Repository, to *store.User, teams []int64, pending *store.RepoTransfer) (*store.Repository, error) {
	oldPath, err := s.git.RepoPath(rec.OwnerName, rec.Name)
	if err != nil {
		return nil, errs.Wrap(err, "repository path")
	}
	newPath, err := s.git.RepoPath(to.Name, rec.Name)
	if err != nil {
		return nil, errs.Wrap(err, "repository path")
	}
	mv, err := s.git.BeginMove(rec.ID, oldPath, newPath)
	if err != nil {
		return nil, errs.Wrap(err, "record the move")
	}
	moved := false
	updated, err := s.store.TransferRepository(ctx, store.Transfer{RepoID: rec.ID, NewOwner: to, TeamIDs: teams, Pending: pending},
		func(old, _ *store.Repository) error {
			if p, _ := s.git.RepoPath(old.OwnerName, old.Name); p != oldPath {
				return store.ErrNotFound // renamed or transferred meanwhile
			}
			if err := mv.Do(); err != nil {
				return err
			}
			moved = true
			failpoint.Hit(FailpointTransferBeforeCommit)
			return nil
		})
	if err == nil {
		failpoint.Hit(FailpointTransferAfterCommit)
	}
	if !moved {
		mv.End()
		return updated, err
	}
	if err != nil {
		// The commit failed (or its answer was lost): the files follow
		// whatever the record says.
		if serr := settle(context.WithoutCancel(ctx), s.store, mv); serr != nil {
			slog.Error("settle the move of a failed transfer; left for the next sweep", "repo", rec.ID, "err", serr)
		}
		return nil, err
	}
	if err := mv.End(); err != nil {
		slog.Warn("forget a finished move", "repo", rec.ID, "err", err)
	}
	return updated, nil
}

// SettleMoves finishes the directory moves of transfers a crash cut short
// (git.Store.PendingMoves): each repository's files go where its record
// says. It runs at start-up, before requests are served, and with the
// periodic sweeps. It returns how many it settled.
func SettleMoves(ctx context.Context, st MoveSettler, g *git.Store) (int, error) {
	moves, err := g.PendingMoves()
	if err != nil {
		return 0, err
	}
	var errList []error
	for _, m := range moves {
		if err := settle(ctx, st, m); err != nil {
			errList = append(errList, err)
		}
	}
	return len(moves) - len(errList), errors.Join(errList...)
}

// settle puts m's files where the record of its repository says.
func settle(ctx context.Context, st MoveSettler, m *git.Move) error {
	rec, err := st.RepositoryByID(ctx, m.RepoID)
	if errors.Is(err, store.ErrNotFound) {
		return m.End() // deleted: whatever is left is cleared by the next create of the name
	}
	if err != nil {
		return err
	}
	want, err := gitPath(m, rec)
	if err != nil {
		return m.End()
	}
	switch want {
	case m.New:
		return m.Settle(true)
	case m.Old:
		return m.Settle(false)
	}
	return m.End() // moved again since: the record's own move settled it
}

// gitPath is where rec's files belong, in m's store.
func gitPath(m *git.Move, rec *store.Repository) (string, error) {
	return m.Path(rec.OwnerName, rec.Name)
}
