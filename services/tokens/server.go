// Package tokens serves forge.tokens.v1.TokenService: personal access
// tokens, created and listed over Basic auth only.
package tokens

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	tokensv1 "forge/gen/forge/tokens/v1"
	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/paging"
	"forge/services/store"
)

// Store is what the token service needs.
type Store interface {
	UserByName(ctx context.Context, name string) (*store.User, error)
	CreateAccessToken(ctx context.Context, t *store.AccessToken) error
	ListAccessTokens(ctx context.Context, uid int64, offset, limit int) ([]store.AccessToken, int64, error)
	AccessTokensByName(ctx context.Context, uid int64, name string) ([]store.AccessToken, error)
	DeleteAccessToken(ctx context.Context, uid, id int64) error
}

// Server implements tokensv1.TokenServiceServer.
type Server struct {
	tokensv1.UnimplementedTokenServiceServer
	store  Store
	limits paging.Limits
}

var _ tokensv1.TokenServiceServer = (*Server)(nil)

func NewServer(s Store, limits paging.Limits) *Server {
	return &Server{store: s, limits: limits}
}

func (s *Server) owner(ctx context.Context, name string) (*store.User, error) {
	u, err := s.store.UserByName(ctx, name)
	if errors.Is(err, store.ErrNotFound) || (err == nil && u.Type != store.UserTypeIndividual) {
		return nil, access.UserNotFound(name)
	}
	if err != nil {
		return nil, err
	}
	return u, nil
}

func (s *Server) ListAccessTokens(ctx context.Context, req *tokensv1.ListAccessTokensRequest) (*tokensv1.ListAccessTokensResponse, error) {
	u, err := s.owner(ctx, req.GetUsername())
	if err != nil {
		return nil, err
	}
	page := s.limits.Normalize(int(req.GetPage()), int(req.GetLimit()))
	list, total, err := s.store.ListAccessTokens(ctx, u.ID, page.Offset(), page.Size)
	if err != nil {
		return nil, errs.Wrap(err, "list access tokens")
	}
	out := &tokensv1.ListAccessTokensResponse{Tokens: make([]*tokensv1.AccessToken, len(list)), TotalCount: total}
	for i, t := range list {
		pt := render(&t)
		// Gitea splits the stored string, so a scope-less token lists [""].
		pt.Scopes = strings.Split(t.Scope, ",")
		out.Tokens[i] = pt
	}
	return out, nil
}

func render(t *store.AccessToken) *tokensv1.AccessToken {
	pt := &tokensv1.AccessToken{
		Id:             t.ID,
		Name:           t.Name,
		TokenLastEight: t.TokenLastEight,
		CreatedAt:      timestamppb.New(time.Unix(t.CreatedUnix, 0)),
		LastUsedAt:     timestamppb.New(time.Unix(t.LastUsedUnix, 0)),
	}
	return pt
}

func (s *Server) CreateAccessToken(ctx context.Context, req *tokensv1.CreateAccessTokenRequest) (*tokensv1.CreateAccessTokenResponse, error) {
	scopes, err := auth.ParseScopes(req.GetScopes())
	if err != nil {
		return nil, errs.Newf(errs.FailedPrecondition, "invalid access token scope provided: %v", err)
	}
	// A token used as the Basic password must not mint a wider one.
	if err := auth.MayGrant(auth.FromContext(ctx), scopes); err != nil {
		return nil, err
	}
	u, err := s.owner(ctx, req.GetUsername())
	if err != nil {
		return nil, err
	}
	plain, hash := auth.NewToken()
	t := &store.AccessToken{UID: u.ID, Name: req.GetName(), TokenHash: hash, TokenLastEight: plain[len(plain)-8:], Scope: scopes.String()}
	if err := s.store.CreateAccessToken(ctx, t); err != nil {
		return nil, err // store.ErrTokenNameUsed for a used name
	}
	pt := render(t)
	pt.Sha1 = plain // shown once; scopes stay null in this response, as Gitea
	return &tokensv1.CreateAccessTokenResponse{Token: pt}, nil
}

func (s *Server) DeleteAccessToken(ctx context.Context, req *tokensv1.DeleteAccessTokenRequest) (*tokensv1.DeleteAccessTokenResponse, error) {
	u, err := s.owner(ctx, req.GetUsername())
	if err != nil {
		return nil, err
	}
	notFound := errs.New(errs.NotFound, "access token does not exist ["+req.GetToken()+"]")
	id, _ := strconv.ParseInt(req.GetToken(), 10, 64)
	if id <= 0 { // not a number: a token name
		matches, err := s.store.AccessTokensByName(ctx, u.ID, req.GetToken())
		if err != nil {
			return nil, errs.Wrap(err, "find access tokens by name")
		}
		switch len(matches) {
		case 0:
			return nil, notFound
		case 1:
			id = matches[0].ID
		default:
			return nil, errs.Newf(errs.Invalid, "multiple matches for token name '%s'", req.GetToken())
		}
	}
	if err := s.store.DeleteAccessToken(ctx, u.ID, id); err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, notFound)
	}
	return &tokensv1.DeleteAccessTokenResponse{}, nil
}
