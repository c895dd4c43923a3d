package misc

import (
	"context"
	"net/url"

	miscv1 "forge/gen/forge/misc/v1"
	"forge/services/errs"
	"forge/services/templates"
)

// licenseImplementation is the advice Gitea sends with each license, for
// GitHub compatibility.
const licenseImplementation = "Create a text file (typically named LICENSE or LICENSE.txt) in the root of your source code and copy the text of the license into the file"

// licenseURL is the API address of license name.
func (s *Server) licenseURL(name string) string {
	return s.rootURL + "api/v1/licenses/" + url.PathEscape(name)
}

func (s *Server) ListLicenseTemplates(context.Context, *miscv1.ListLicenseTemplatesRequest) (*miscv1.ListLicenseTemplatesResponse, error) {
	names := templates.Licenses()
	out := make([]*miscv1.LicensesTemplateListEntry, len(names))
	for i, n := range names {
		out[i] = &miscv1.LicensesTemplateListEntry{Key: n, Name: n, Url: s.licenseURL(n)}
	}
	return &miscv1.ListLicenseTemplatesResponse{Licenses: out}, nil
}

func (s *Server) GetLicenseTemplate(_ context.Context, req *miscv1.GetLicenseTemplateRequest) (*miscv1.GetLicenseTemplateResponse, error) {
	n := req.GetName()
	text, ok := templates.License(n)
	if !ok {
		return nil, errs.New(errs.NotFound, "")
	}
	return &miscv1.GetLicenseTemplateResponse{License: &miscv1.LicenseTemplateInfo{
		Key: n, Name: n, Url: s.licenseURL(n), Implementation: licenseImplementation, Body: string(text),
	}}, nil
}

func (s *Server) ListGitignoreTemplates(context.Context, *miscv1.ListGitignoreTemplatesRequest) (*miscv1.ListGitignoreTemplatesResponse, error) {
	return &miscv1.ListGitignoreTemplatesResponse{Names: templates.Gitignores()}, nil
}

func (s *Server) GetGitignoreTemplate(_ context.Context, req *miscv1.GetGitignoreTemplateRequest) (*miscv1.GetGitignoreTemplateResponse, error) {
	text, ok := templates.Gitignore(req.GetName())
	if !ok {
		return nil, errs.New(errs.NotFound, "")
	}
	return &miscv1.GetGitignoreTemplateResponse{Template: &miscv1.GitignoreTemplateInfo{Name: req.GetName(), Source: string(text)}}, nil
}

func (s *Server) ListLabelTemplates(context.Context, *miscv1.ListLabelTemplatesRequest) (*miscv1.ListLabelTemplatesResponse, error) {
	return &miscv1.ListLabelTemplatesResponse{Names: templates.LabelSets()}, nil
}

func (s *Server) GetLabelTemplate(_ context.Context, req *miscv1.GetLabelTemplateRequest) (*miscv1.GetLabelTemplateResponse, error) {
	set, ok := templates.LabelSet(req.GetName())
	if !ok {
		return nil, errs.New(errs.NotFound, "")
	}
	out := make([]*miscv1.LabelTemplate, len(set))
	for i, l := range set {
		out[i] = &miscv1.LabelTemplate{Name: l.Name, Exclusive: l.Exclusive, Color: l.Color, Description: l.Description}
	}
	return &miscv1.GetLabelTemplateResponse{Labels: out}, nil
}
