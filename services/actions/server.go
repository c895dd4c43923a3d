package actions

import (
	"context"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	actionsv1 "forge/gen/forge/actions/v1"
	"forge/services/errs"
	"forge/services/store"
)

// Server implements actionsv1.ActionsServiceServer: thin adapters from
// each level's rpcs to the use cases.
type Server struct {
	actionsv1.UnimplementedActionsServiceServer
	svc *Service
}

var _ actionsv1.ActionsServiceServer = (*Server)(nil)

// NewServer serves svc.
func NewServer(svc *Service) *Server { return &Server{svc: svc} }

func secretsJSON(list []store.ActionSecret) []*actionsv1.Secret {
	out := make([]*actionsv1.Secret, len(list))
	for i, s := range list {
		out[i] = &actionsv1.Secret{Name: s.Name, CreatedAt: timestamppb.New(time.Unix(s.CreatedUnix, 0))}
	}
	return out
}

func variableJSON(v *store.ActionVariable) *actionsv1.ActionVariable {
	return &actionsv1.ActionVariable{OwnerId: v.OwnerID, RepoId: v.RepoID, Name: v.Name, Data: v.Data, Description: v.Description}
}

func variablesJSON(list []store.ActionVariable) []*actionsv1.ActionVariable {
	out := make([]*actionsv1.ActionVariable, len(list))
	for i := range list {
		out[i] = variableJSON(&list[i])
	}
	return out
}

func (s *Server) ListOrgSecrets(ctx context.Context, req *actionsv1.ListOrgSecretsRequest) (*actionsv1.ListOrgSecretsResponse, error) {
	list, total, err := s.svc.listSecrets(ctx, orgScope, req.GetPage(), req.GetLimit())
	if err != nil {
		return nil, errs.Wrap(err, "list secrets")
	}
	return &actionsv1.ListOrgSecretsResponse{Secrets: secretsJSON(list), TotalCount: total}, nil
}

func (s *Server) PutOrgSecret(ctx context.Context, req *actionsv1.PutOrgSecretRequest) (*actionsv1.PutOrgSecretResponse, error) {
	created, err := s.svc.putSecret(ctx, orgScope, req.GetSecretname(), req.GetData(), req.GetDescription())
	if err != nil {
		return nil, err
	}
	return &actionsv1.PutOrgSecretResponse{Created: created}, nil
}

func (s *Server) DeleteOrgSecret(ctx context.Context, req *actionsv1.DeleteOrgSecretRequest) (*actionsv1.DeleteOrgSecretResponse, error) {
	if err := s.svc.deleteSecret(ctx, orgScope, req.GetSecretname()); err != nil {
		return nil, err
	}
	return &actionsv1.DeleteOrgSecretResponse{}, nil
}

func (s *Server) ListOrgVariables(ctx context.Context, req *actionsv1.ListOrgVariablesRequest) (*actionsv1.ListOrgVariablesResponse, error) {
	list, total, err := s.svc.listVariables(ctx, orgScope, req.GetPage(), req.GetLimit())
	if err != nil {
		return nil, errs.Wrap(err, "list variables")
	}
	return &actionsv1.ListOrgVariablesResponse{Variables: variablesJSON(list), TotalCount: total}, nil
}

func (s *Server) GetOrgVariable(ctx context.Context, req *actionsv1.GetOrgVariableRequest) (*actionsv1.GetOrgVariableResponse, error) {
	v, err := s.svc.getVariable(ctx, orgScope, req.GetVariablename())
	if err != nil {
		return nil, err
	}
	return &actionsv1.GetOrgVariableResponse{Variable: variableJSON(v)}, nil
}

func (s *Server) CreateOrgVariable(ctx context.Context, req *actionsv1.CreateOrgVariableRequest) (*actionsv1.CreateOrgVariableResponse, error) {
	if err := s.svc.createVariable(ctx, orgScope, req.GetVariablename(), req.GetValue(), req.GetDescription()); err != nil {
		return nil, err
	}
	return &actionsv1.CreateOrgVariableResponse{}, nil
}

func (s *Server) UpdateOrgVariable(ctx context.Context, req *actionsv1.UpdateOrgVariableRequest) (*actionsv1.UpdateOrgVariableResponse, error) {
	if err := s.svc.updateVariable(ctx, orgScope, req.GetVariablename(), req.GetName(), req.GetValue(), req.GetDescription()); err != nil {
		return nil, err
	}
	return &actionsv1.UpdateOrgVariableResponse{}, nil
}

func (s *Server) DeleteOrgVariable(ctx context.Context, req *actionsv1.DeleteOrgVariableRequest) (*actionsv1.DeleteOrgVariableResponse, error) {
	if err := s.svc.deleteVariable(ctx, orgScope, req.GetVariablename()); err != nil {
		return nil, err
	}
	return &actionsv1.DeleteOrgVariableResponse{}, nil
}

func (s *Server) ListRepoSecrets(ctx context.Context, req *actionsv1.ListRepoSecretsRequest) (*actionsv1.ListRepoSecretsResponse, error) {
	list, total, err := s.svc.listSecrets(ctx, repoScope, req.GetPage(), req.GetLimit())
	if err != nil {
		return nil, errs.Wrap(err, "list secrets")
	}
	return &actionsv1.ListRepoSecretsResponse{Secrets: secretsJSON(list), TotalCount: total}, nil
}

func (s *Server) PutRepoSecret(ctx context.Context, req *actionsv1.PutRepoSecretRequest) (*actionsv1.PutRepoSecretResponse, error) {
	created, err := s.svc.putSecret(ctx, repoScope, req.GetSecretname(), req.GetData(), req.GetDescription())
	if err != nil {
		return nil, err
	}
	return &actionsv1.PutRepoSecretResponse{Created: created}, nil
}

func (s *Server) DeleteRepoSecret(ctx context.Context, req *actionsv1.DeleteRepoSecretRequest) (*actionsv1.DeleteRepoSecretResponse, error) {
	if err := s.svc.deleteSecret(ctx, repoScope, req.GetSecretname()); err != nil {
		return nil, err
	}
	return &actionsv1.DeleteRepoSecretResponse{}, nil
}

func (s *Server) ListRepoVariables(ctx context.Context, req *actionsv1.ListRepoVariablesRequest) (*actionsv1.ListRepoVariablesResponse, error) {
	list, total, err := s.svc.listVariables(ctx, repoScope, req.GetPage(), req.GetLimit())
	if err != nil {
		return nil, errs.Wrap(err, "list variables")
	}
	return &actionsv1.ListRepoVariablesResponse{Variables: variablesJSON(list), TotalCount: total}, nil
}

func (s *Server) GetRepoVariable(ctx context.Context, req *actionsv1.GetRepoVariableRequest) (*actionsv1.GetRepoVariableResponse, error) {
	v, err := s.svc.getVariable(ctx, repoScope, req.GetVariablename())
	if err != nil {
		return nil, err
	}
	return &actionsv1.GetRepoVariableResponse{Variable: variableJSON(v)}, nil
}

func (s *Server) CreateRepoVariable(ctx context.Context, req *actionsv1.CreateRepoVariableRequest) (*actionsv1.CreateRepoVariableResponse, error) {
	if err := s.svc.createVariable(ctx, repoScope, req.GetVariablename(), req.GetValue(), req.GetDescription()); err != nil {
		return nil, err
	}
	return &actionsv1.CreateRepoVariableResponse{}, nil
}

func (s *Server) UpdateRepoVariable(ctx context.Context, req *actionsv1.UpdateRepoVariableRequest) (*actionsv1.UpdateRepoVariableResponse, error) {
	if err := s.svc.updateVariable(ctx, repoScope, req.GetVariablename(), req.GetName(), req.GetValue(), req.GetDescription()); err != nil {
		return nil, err
	}
	return &actionsv1.UpdateRepoVariableResponse{}, nil
}

func (s *Server) DeleteRepoVariable(ctx context.Context, req *actionsv1.DeleteRepoVariableRequest) (*actionsv1.DeleteRepoVariableResponse, error) {
	if err := s.svc.deleteVariable(ctx, repoScope, req.GetVariablename()); err != nil {
		return nil, err
	}
	return &actionsv1.DeleteRepoVariableResponse{}, nil
}

func (s *Server) ListUserSecrets(ctx context.Context, req *actionsv1.ListUserSecretsRequest) (*actionsv1.ListUserSecretsResponse, error) {
	list, total, err := s.svc.listSecrets(ctx, userScope, req.GetPage(), req.GetLimit())
	if err != nil {
		return nil, errs.Wrap(err, "list secrets")
	}
	return &actionsv1.ListUserSecretsResponse{Secrets: secretsJSON(list), TotalCount: total}, nil
}

func (s *Server) PutUserSecret(ctx context.Context, req *actionsv1.PutUserSecretRequest) (*actionsv1.PutUserSecretResponse, error) {
	created, err := s.svc.putSecret(ctx, userScope, req.GetSecretname(), req.GetData(), req.GetDescription())
	if err != nil {
		return nil, err
	}
	return &actionsv1.PutUserSecretResponse{Created: created}, nil
}

func (s *Server) DeleteUserSecret(ctx context.Context, req *actionsv1.DeleteUserSecretRequest) (*actionsv1.DeleteUserSecretResponse, error) {
	if err := s.svc.deleteSecret(ctx, userScope, req.GetSecretname()); err != nil {
		return nil, err
	}
	return &actionsv1.DeleteUserSecretResponse{}, nil
}

func (s *Server) ListUserVariables(ctx context.Context, req *actionsv1.ListUserVariablesRequest) (*actionsv1.ListUserVariablesResponse, error) {
	list, total, err := s.svc.listVariables(ctx, userScope, req.GetPage(), req.GetLimit())
	if err != nil {
		return nil, errs.Wrap(err, "list variables")
	}
	return &actionsv1.ListUserVariablesResponse{Variables: variablesJSON(list), TotalCount: total}, nil
}

func (s *Server) GetUserVariable(ctx context.Context, req *actionsv1.GetUserVariableRequest) (*actionsv1.GetUserVariableResponse, error) {
	v, err := s.svc.getVariable(ctx, userScope, req.GetVariablename())
	if err != nil {
		return nil, err
	}
	return &actionsv1.GetUserVariableResponse{Variable: variableJSON(v)}, nil
}

func (s *Server) CreateUserVariable(ctx context.Context, req *actionsv1.CreateUserVariableRequest) (*actionsv1.CreateUserVariableResponse, error) {
	if err := s.svc.createVariable(ctx, userScope, req.GetVariablename(), req.GetValue(), req.GetDescription()); err != nil {
		return nil, err
	}
	return &actionsv1.CreateUserVariableResponse{}, nil
}

func (s *Server) UpdateUserVariable(ctx context.Context, req *actionsv1.UpdateUserVariableRequest) (*actionsv1.UpdateUserVariableResponse, error) {
	if err := s.svc.updateVariable(ctx, userScope, req.GetVariablename(), req.GetName(), req.GetValue(), req.GetDescription()); err != nil {
		return nil, err
	}
	return &actionsv1.UpdateUserVariableResponse{}, nil
}

func (s *Server) DeleteUserVariable(ctx context.Context, req *actionsv1.DeleteUserVariableRequest) (*actionsv1.DeleteUserVariableResponse, error) {
	if err := s.svc.deleteVariable(ctx, userScope, req.GetVariablename()); err != nil {
		return nil, err
	}
	return &actionsv1.DeleteUserVariableResponse{}, nil
}

func (s *Server) GetOrgRunnerRegistrationToken(ctx context.Context, _ *actionsv1.GetOrgRunnerRegistrationTokenRequest) (*actionsv1.GetOrgRunnerRegistrationTokenResponse, error) {
	t, err := s.svc.runnerToken(ctx, orgScope)
	if err != nil {
		return nil, err
	}
	return &actionsv1.GetOrgRunnerRegistrationTokenResponse{Token: t}, nil
}

func (s *Server) CreateOrgRunnerRegistrationToken(ctx context.Context, _ *actionsv1.CreateOrgRunnerRegistrationTokenRequest) (*actionsv1.CreateOrgRunnerRegistrationTokenResponse, error) {
	t, err := s.svc.runnerToken(ctx, orgScope)
	if err != nil {
		return nil, err
	}
	return &actionsv1.CreateOrgRunnerRegistrationTokenResponse{Token: t}, nil
}

func (s *Server) GetRepoRunnerRegistrationToken(ctx context.Context, _ *actionsv1.GetRepoRunnerRegistrationTokenRequest) (*actionsv1.GetRepoRunnerRegistrationTokenResponse, error) {
	t, err := s.svc.runnerToken(ctx, repoScope)
	if err != nil {
		return nil, err
	}
	return &actionsv1.GetRepoRunnerRegistrationTokenResponse{Token: t}, nil
}

func (s *Server) CreateRepoRunnerRegistrationToken(ctx context.Context, _ *actionsv1.CreateRepoRunnerRegistrationTokenRequest) (*actionsv1.CreateRepoRunnerRegistrationTokenResponse, error) {
	t, err := s.svc.runnerToken(ctx, repoScope)
	if err != nil {
		return nil, err
	}
	return &actionsv1.CreateRepoRunnerRegistrationTokenResponse{Token: t}, nil
}

func (s *Server) GetUserRunnerRegistrationToken(ctx context.Context, _ *actionsv1.GetUserRunnerRegistrationTokenRequest) (*actionsv1.GetUserRunnerRegistrationTokenResponse, error) {
	t, err := s.svc.runnerToken(ctx, userScope)
	if err != nil {
		return nil, err
	}
	return &actionsv1.GetUserRunnerRegistrationTokenResponse{Token: t}, nil
}

func (s *Server) CreateUserRunnerRegistrationToken(ctx context.Context, _ *actionsv1.CreateUserRunnerRegistrationTokenRequest) (*actionsv1.CreateUserRunnerRegistrationTokenResponse, error) {
	t, err := s.svc.runnerToken(ctx, userScope)
	if err != nil {
		return nil, err
	}
	return &actionsv1.CreateUserRunnerRegistrationTokenResponse{Token: t}, nil
}

func (s *Server) GetGlobalRunnerRegistrationToken(ctx context.Context, _ *actionsv1.GetGlobalRunnerRegistrationTokenRequest) (*actionsv1.GetGlobalRunnerRegistrationTokenResponse, error) {
	t, err := s.svc.runnerToken(ctx, globalScope)
	if err != nil {
		return nil, err
	}
	return &actionsv1.GetGlobalRunnerRegistrationTokenResponse{Token: t}, nil
}

func (s *Server) CreateGlobalRunnerRegistrationToken(ctx context.Context, _ *actionsv1.CreateGlobalRunnerRegistrationTokenRequest) (*actionsv1.CreateGlobalRunnerRegistrationTokenResponse, error) {
	t, err := s.svc.runnerToken(ctx, globalScope)
	if err != nil {
		return nil, err
	}
	return &actionsv1.CreateGlobalRunnerRegistrationTokenResponse{Token: t}, nil
}
