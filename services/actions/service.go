// Package actions serves forge.actions.v1.ActionsService: the Actions
// secrets, variables and runner registration tokens of organizations,
// repositories, users and (tokens) the instance. Who may call is declared
// on each rpc; the handlers only pick the level the request names.
package actions

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/paging"
	"forge/services/secretbox"
	"forge/services/store"
)

// Store is what the Actions settings need.
type Store interface {
	// ActionSecrets lists a page of a level's secrets by name (values
	// left out) and their total.
	ActionSecrets(ctx context.Context, sc store.ActionScope, offset, limit int) ([]store.ActionSecret, int64, error)
	// PutActionSecret creates or updates a secret; created tells which.
	PutActionSecret(ctx context.Context, sc store.ActionScope, name string, sealed []byte, description string) (bool, error)
	// DeleteActionSecret: store.ErrNotFound when there is none.
	DeleteActionSecret(ctx context.Context, sc store.ActionScope, name string) error
	ActionVariables(ctx context.Context, sc store.ActionScope, offset, limit int) ([]store.ActionVariable, int64, error)
	// ActionVariableByName: store.ErrNotFound when there is none.
	ActionVariableByName(ctx context.Context, sc store.ActionScope, name string) (*store.ActionVariable, error)
	// CreateActionVariable: store.ErrVariableExists for a taken name.
	CreateActionVariable(ctx context.Context, v *store.ActionVariable) error
	// UpdateActionVariable: store.ErrNotFound, store.ErrVariableExists.
	UpdateActionVariable(ctx context.Context, sc store.ActionScope, name, newName, data, description string) error
	// DeleteActionVariable: store.ErrNotFound when there is none.
	DeleteActionVariable(ctx context.Context, sc store.ActionScope, name string) error
	// RunnerToken returns the level's active token, storing fresh() when
	// it has none.
	RunnerToken(ctx context.Context, sc store.ActionScope, fresh func() ([]byte, string)) (*store.ActionRunnerToken, error)
}

// Service holds the use cases.
type Service struct {
	store   Store
	secrets *secretbox.Box // secret values
	tokens  *secretbox.Box // runner registration tokens
	limits  paging.Limits
}

// NewService derives its keys from [security] SECRET_KEY.
func NewService(s Store, secretKey string, limits paging.Limits) (*Service, error) {
	secrets, err := secretbox.New(secretKey, "actions secrets")
	if err != nil {
		return nil, err
	}
	tokens, err := secretbox.New(secretKey, "actions runner tokens")
	if err != nil {
		return nil, err
	}
	return &Service{store: s, secrets: secrets, tokens: tokens, limits: limits}, nil
}

// Gitea's name rules for secrets and variables, checked upper-cased: a
// shell variable name, not starting with GITEA_ or GITHUB_; variables may
// not start with CI either.
var (
	namePattern     = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)
	reservedPrefix  = regexp.MustCompile(`^GIT(EA|HUB)_`)
	errSecretName   = errs.New(errs.FailedPrecondition, "invalid secret name")
	errVariableName = errs.New(errs.FailedPrecondition, "invalid variable or secret name")
)

func secretName(name string) (string, error) {
	n := strings.ToUpper(name)
	if !namePattern.MatchString(n) || reservedPrefix.MatchString(n) {
		return "", errSecretName
	}
	return n, nil
}

func variableName(name string) (string, error) {
	n, err := secretName(name)
	if err != nil {
		return "", err
	}
	if strings.HasPrefix(n, "CI") {
		return "", errVariableName
	}
	return n, nil
}

// orgScope, repoScope and userScope are the level the interceptor
// resolved and authorized for this call.
// scopeOf resolves the scope of a call from what the interceptor chain
// resolved (organization, repository, caller) or the instance.
type scopeOf func(context.Context) (store.ActionScope, error)

func orgScope(ctx context.Context) (store.ActionScope, error) {
	o, err := access.OrgFrom(ctx)
	if err != nil {
		return store.ActionScope{}, err
	}
	return store.ActionScope{OwnerID: o.ID}, nil
}

func repoScope(ctx context.Context) (store.ActionScope, error) {
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return store.ActionScope{}, err
	}
	return store.ActionScope{RepoID: r.ID}, nil
}

func userScope(ctx context.Context) (store.ActionScope, error) {
	p := auth.FromContext(ctx)
	if p == nil {
		return store.ActionScope{}, errs.New(errs.Internal, "actions: no caller")
	}
	return store.ActionScope{OwnerID: p.ID()}, nil
}

// globalScope is the instance's.
func globalScope(context.Context) (store.ActionScope, error) { return store.ActionScope{}, nil }

func (s *Service) listSecrets(ctx context.Context, scope scopeOf, page, limit int32) ([]store.ActionSecret, int64, error) {
	sc, err := scope(ctx)
	if err != nil {
		return nil, 0, err
	}
	p := s.limits.Normalize(int(page), int(limit))
	return s.store.ActionSecrets(ctx, sc, p.Offset(), p.Size)
}

// putSecret seals the value; it is never logged nor returned.
func (s *Service) putSecret(ctx context.Context, scope scopeOf, name, data, description string) (bool, error) {
	sc, err := scope(ctx)
	if err != nil {
		return false, err
	}
	n, err := secretName(name)
	if err != nil {
		return false, err
	}
	return s.store.PutActionSecret(ctx, sc, n, s.secrets.Seal([]byte(data)), description)
}

func (s *Service) deleteSecret(ctx context.Context, scope scopeOf, name string) error {
	sc, err := scope(ctx)
	if err != nil {
		return err
	}
	n, err := secretName(name)
	if err != nil {
		return err
	}
	// Gitea's text, name left empty as it prints it.
	return errs.Replace(s.store.DeleteActionSecret(ctx, sc, n), store.ErrNotFound,
		errs.New(errs.NotFound, "secret was not found [name: ]"))
}

var errVariableNotFound = errs.New(errs.NotFound, "variable not found")

func (s *Service) listVariables(ctx context.Context, scope scopeOf, page, limit int32) ([]store.ActionVariable, int64, error) {
	sc, err := scope(ctx)
	if err != nil {
		return nil, 0, err
	}
	p := s.limits.Normalize(int(page), int(limit))
	return s.store.ActionVariables(ctx, sc, p.Offset(), p.Size)
}

func (s *Service) getVariable(ctx context.Context, scope scopeOf, name string) (*store.ActionVariable, error) {
	sc, err := scope(ctx)
	if err != nil {
		return nil, err
	}
	v, err := s.store.ActionVariableByName(ctx, sc, strings.ToUpper(name))
	return v, errs.Replace(err, store.ErrNotFound, errVariableNotFound)
}

func (s *Service) createVariable(ctx context.Context, scope scopeOf, name, data, description string) error {
	sc, err := scope(ctx)
	if err != nil {
		return err
	}
	n, err := variableName(name)
	if err != nil {
		return err
	}
	err = s.store.CreateActionVariable(ctx, &store.ActionVariable{OwnerID: sc.OwnerID, RepoID: sc.RepoID,
		Name: n, Data: data, Description: description})
	return errs.Replace(err, store.ErrVariableExists, errs.Newf(errs.Conflict, "variable name %s already exists", name))
}

// updateVariable renames the variable when newName is given, as Gitea.
func (s *Service) updateVariable(ctx context.Context, scope scopeOf, name, newName, data, description string) error {
	sc, err := scope(ctx)
	if err != nil {
		return err
	}
	if newName == "" {
		newName = name
	}
	n, err := variableName(newName)
	if err != nil {
		return err
	}
	err = s.store.UpdateActionVariable(ctx, sc, strings.ToUpper(name), n, data, description)
	err = errs.Replace(err, store.ErrNotFound, errVariableNotFound)
	return errs.Replace(err, store.ErrVariableExists, errs.Newf(errs.Conflict, "variable name %s already exists", newName))
}

func (s *Service) deleteVariable(ctx context.Context, scope scopeOf, name string) error {
	sc, err := scope(ctx)
	if err != nil {
		return err
	}
	return errs.Replace(s.store.DeleteActionVariable(ctx, sc, strings.ToUpper(name)), store.ErrNotFound, errVariableNotFound)
}

// runnerToken is the level's active registration token: the same on every
// call (GET or POST), stored sealed so it can be shown again.
func (s *Service) runnerToken(ctx context.Context, scope scopeOf) (string, error) {
	sc, err := scope(ctx)
	if err != nil {
		return "", err
	}
	t, err := s.store.RunnerToken(ctx, sc, func() ([]byte, string) {
		b := make([]byte, 20)
		_, _ = rand.Read(b) // crypto/rand never fails on supported platforms
		plain := hex.EncodeToString(b)
		sum := sha256.Sum256([]byte(plain))
		return s.tokens.Seal([]byte(plain)), hex.EncodeToString(sum[:])
	})
	if err != nil {
		return "", errs.Wrap(err, "runner registration token")
	}
	plain, err := s.tokens.Open(t.Token)
	if err != nil {
		return "", errs.Wrap(err, "open runner registration token")
	}
	return string(plain), nil
}
