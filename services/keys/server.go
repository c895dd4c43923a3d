// Package keys serves forge.keys.v1.KeyService: users' SSH public keys and
// repositories' deploy keys, checked as Gitea checks them. The SSH server
// (services/sshd) signs callers in with them.
package keys

import (
	"context"
	"errors"
	"strconv"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	keysv1 "forge/gen/forge/keys/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/paging"
	"forge/services/repos"
	"forge/services/store"
	"forge/services/users"
)

// Store is what the keys area needs of the database.
type Store interface {
	access.VisibilityStore
	// AddPublicKey returns store.ErrKeyUsed, store.ErrKeyTitleUsed.
	AddPublicKey(ctx context.Context, k *store.PublicKey) error
	// PublicKeyByID returns store.ErrNotFound for no user's key of that id.
	PublicKeyByID(ctx context.Context, id int64) (*store.PublicKey, error)
	ListPublicKeys(ctx context.Context, ownerID int64, fingerprint string, offset, limit int) ([]store.PublicKey, int64, error)
	// DeletePublicKey returns store.ErrNotFound unless the owner has it.
	DeletePublicKey(ctx context.Context, ownerID, id int64) error
	// AddDeployKey returns store.ErrKeyUsed, store.ErrDeployKeyAdded,
	// store.ErrDeployKeyNameUsed.
	AddDeployKey(ctx context.Context, repoID int64, name, fingerprint, content string, mode store.AccessMode) (*store.DeployKey, error)
	ListDeployKeys(ctx context.Context, repoID, keyID int64, fingerprint string, offset, limit int) ([]store.DeployKey, int64, error)
	// DeployKeyOf returns store.ErrNotFound unless the repository has it.
	DeployKeyOf(ctx context.Context, repoID, id int64) (*store.DeployKey, error)
	// DeleteDeployKey returns store.ErrNotFound unless the repository has it.
	DeleteDeployKey(ctx context.Context, repoID, id int64) error
}

// Server implements keysv1.KeyServiceServer.
type Server struct {
	keysv1.UnimplementedKeyServiceServer
	store   Store
	rules   Rules
	users   users.Renderer
	repos   repos.Renderer
	rootURL string
	limits  paging.Limits
}

var _ keysv1.KeyServiceServer = (*Server)(nil)

// NewServer serves keys from s, checking new keys with rules.
func NewServer(s Store, rules Rules, u users.Renderer, r repos.Renderer, rootURL string, limits paging.Limits) *Server {
	return &Server{store: s, rules: rules, users: u, repos: r, rootURL: rootURL, limits: limits}
}

// errKeyNotFound is the answer for a key that is not there or not the
// caller's (Gitea's NotFound).
var errKeyNotFound = errs.New(errs.NotFound, "")

func (s *Server) ListMyPublicKeys(ctx context.Context, req *keysv1.ListMyPublicKeysRequest) (*keysv1.ListMyPublicKeysResponse, error) {
	me := auth.FromContext(ctx)
	list, total, err := s.list(ctx, me.User, me, req.GetFingerprint(), int(req.GetPage()), int(req.GetLimit()))
	if err != nil {
		return nil, err
	}
	return &keysv1.ListMyPublicKeysResponse{Keys: list, TotalCount: total}, nil
}

func (s *Server) ListPublicKeys(ctx context.Context, req *keysv1.ListPublicKeysRequest) (*keysv1.ListPublicKeysResponse, error) {
	viewer := auth.FromContext(ctx)
	u, err := access.VisibleUser(ctx, s.store, req.GetUsername(), viewer)
	if err != nil {
		return nil, err
	}
	list, total, err := s.list(ctx, u, viewer, req.GetFingerprint(), int(req.GetPage()), int(req.GetLimit()))
	if err != nil {
		return nil, err
	}
	return &keysv1.ListPublicKeysResponse{Keys: list, TotalCount: total}, nil
}

func (s *Server) list(ctx context.Context, owner *store.User, viewer *auth.Principal, fingerprint string, page, limit int) ([]*keysv1.PublicKey, int64, error) {
	p := s.limits.Normalize(page, limit)
	found, total, err := s.store.ListPublicKeys(ctx, owner.ID, fingerprint, p.Offset(), p.Size)
	if err != nil {
		return nil, 0, errs.Wrap(err, "list public keys")
	}
	out := make([]*keysv1.PublicKey, len(found))
	for i := range found {
		out[i] = s.publicKey(&found[i], owner, viewer)
	}
	return out, total, nil
}

func (s *Server) CreatePublicKey(ctx context.Context, req *keysv1.CreatePublicKeyRequest) (*keysv1.CreatePublicKeyResponse, error) {
	me := auth.FromContext(ctx)
	k, err := s.add(ctx, me.User, req.GetTitle(), req.GetKey())
	if err != nil {
		return nil, err
	}
	return &keysv1.CreatePublicKeyResponse{Key: s.publicKey(k, me.User, me)}, nil
}

func (s *Server) AdminCreatePublicKey(ctx context.Context, req *keysv1.AdminCreatePublicKeyRequest) (*keysv1.AdminCreatePublicKeyResponse, error) {
	u, err := s.individual(ctx, req.GetUsername())
	if err != nil {
		return nil, err
	}
	k, err := s.add(ctx, u, req.GetTitle(), req.GetKey())
	if err != nil {
		return nil, err
	}
	return &keysv1.AdminCreatePublicKeyResponse{Key: s.publicKey(k, u, auth.FromContext(ctx))}, nil
}

// individual is the user an administrator names (an organization has no
// keys: not found).
func (s *Server) individual(ctx context.Context, name string) (*store.User, error) {
	u, err := s.store.UserByName(ctx, name)
	if errors.Is(err, store.ErrNotFound) || (err == nil && u.Type != store.UserTypeIndividual) {
		return nil, access.UserNotFound(name)
	}
	return u, err
}

func (s *Server) add(ctx context.Context, owner *store.User, title, content string) (*store.PublicKey, error) {
	p, err := s.rules.Parse(content)
	if err != nil {
		return nil, err
	}
	k := &store.PublicKey{OwnerID: owner.ID, Name: title, Fingerprint: p.Fingerprint, Content: p.Content}
	if err := s.store.AddPublicKey(ctx, k); err != nil {
		return nil, err
	}
	return k, nil
}

func (s *Server) GetPublicKey(ctx context.Context, req *keysv1.GetPublicKeyRequest) (*keysv1.GetPublicKeyResponse, error) {
	me := auth.FromContext(ctx)
	k, err := s.store.PublicKeyByID(ctx, req.GetId())
	if errors.Is(err, store.ErrNotFound) || (err == nil && k.OwnerID != me.ID()) {
		return nil, errKeyNotFound
	}
	if err != nil {
		return nil, errs.Wrap(err, "get public key")
	}
	return &keysv1.GetPublicKeyResponse{Key: s.publicKey(k, me.User, me)}, nil
}

func (s *Server) DeletePublicKey(ctx context.Context, req *keysv1.DeletePublicKeyRequest) (*keysv1.DeletePublicKeyResponse, error) {
	if err := s.store.DeletePublicKey(ctx, auth.FromContext(ctx).ID(), req.GetId()); err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errKeyNotFound)
	}
	return &keysv1.DeletePublicKeyResponse{}, nil
}

func (s *Server) AdminDeletePublicKey(ctx context.Context, req *keysv1.AdminDeletePublicKeyRequest) (*keysv1.AdminDeletePublicKeyResponse, error) {
	u, err := s.individual(ctx, req.GetUsername())
	if err != nil {
		return nil, err
	}
	if err := s.store.DeletePublicKey(ctx, u.ID, req.GetId()); err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errKeyNotFound)
	}
	return &keysv1.AdminDeletePublicKeyResponse{}, nil
}

// publicKey renders k, owned by owner, as viewer sees it: the owner's
// account, the mode and the type only for the owner and administrators.
func (s *Server) publicKey(k *store.PublicKey, owner *store.User, viewer *auth.Principal) *keysv1.PublicKey {
	out := &keysv1.PublicKey{
		Id:          k.ID,
		Key:         k.Content,
		Url:         s.rootURL + "api/v1/user/keys/" + strconv.FormatInt(k.ID, 10),
		Title:       k.Name,
		Fingerprint: k.Fingerprint,
		CreatedAt:   timestamppb.New(time.Unix(k.CreatedUnix, 0)),
	}
	if viewer != nil && (viewer.IsAdmin() || viewer.ID() == k.OwnerID) {
		out.KeyType = "user"
		// The account as it sees itself, as Gitea.
		out.User = s.users.User(owner, &auth.Principal{User: owner})
		out.ReadOnly = k.Mode == store.AccessRead
	}
	return out
}

func (s *Server) ListDeployKeys(ctx context.Context, req *keysv1.ListDeployKeysRequest) (*keysv1.ListDeployKeysResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	p := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	found, total, err := s.store.ListDeployKeys(ctx, r.ID, req.GetKeyId(), req.GetFingerprint(), p.Offset(), p.Size)
	if err != nil {
		return nil, errs.Wrap(err, "list deploy keys")
	}
	out := &keysv1.ListDeployKeysResponse{Keys: make([]*keysv1.DeployKey, len(found)), TotalCount: total}
	viewer := auth.FromContext(ctx)
	for i := range found {
		out.Keys[i] = s.deployKey(&found[i], r, viewer)
	}
	return out, nil
}

func (s *Server) CreateDeployKey(ctx context.Context, req *keysv1.CreateDeployKeyRequest) (*keysv1.CreateDeployKeyResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	p, err := s.rules.Parse(req.GetKey())
	if err != nil {
		return nil, err
	}
	mode := store.AccessWrite
	if req.GetReadOnly() {
		mode = store.AccessRead
	}
	k, err := s.store.AddDeployKey(ctx, r.ID, req.GetTitle(), p.Fingerprint, p.Content, mode)
	if err != nil {
		return nil, err
	}
	return &keysv1.CreateDeployKeyResponse{Key: s.deployKey(k, r, auth.FromContext(ctx))}, nil
}

func (s *Server) GetDeployKey(ctx context.Context, req *keysv1.GetDeployKeyRequest) (*keysv1.GetDeployKeyResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	k, err := s.store.DeployKeyOf(ctx, r.ID, req.GetId())
	if err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errKeyNotFound)
	}
	return &keysv1.GetDeployKeyResponse{Key: s.deployKey(k, r, auth.FromContext(ctx))}, nil
}

func (s *Server) DeleteDeployKey(ctx context.Context, req *keysv1.DeleteDeployKeyRequest) (*keysv1.DeleteDeployKeyResponse, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.store.DeleteDeployKey(ctx, r.ID, req.GetId()); err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errKeyNotFound)
	}
	return &keysv1.DeleteDeployKeyResponse{}, nil
}

// deployKey renders k of r; the repository only for site administrators
// and the repository's owner, as Gitea.
func (s *Server) deployKey(k *store.DeployKey, r *access.Repo, viewer *auth.Principal) *keysv1.DeployKey {
	out := &keysv1.DeployKey{
		Id:          k.ID,
		KeyId:       k.KeyID,
		Key:         k.Content,
		Url:         s.rootURL + "api/v1/repos/" + r.Owner.Name + "/" + r.Name + "/keys/" + strconv.FormatInt(k.ID, 10),
		Title:       k.Name,
		Fingerprint: k.Fingerprint,
		CreatedAt:   timestamppb.New(time.Unix(k.CreatedUnix, 0)),
		ReadOnly:    k.Mode == store.AccessRead,
	}
	if viewer.IsAdmin() || viewer.ID() == r.OwnerID {
		out.Repository = s.repos.Repository(r, viewer)
	}
	return out
}
