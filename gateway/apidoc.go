package gateway

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// APIBasePath is the prefix of every REST route the OpenAPI document
// lists; its paths are relative to it, as in Gitea's document.
const APIBasePath = "/api/v1"

// Security scheme names of the OpenAPI document (Gitea's names).
const (
	securityToken = "AuthorizationHeaderToken"
	securityBasic = "BasicAuth"
	securitySudo  = "SudoHeader"
	securityOTP   = "TOTPHeader"
)

// apiDocument turns the document buf generates from the protos into the
// one served at /swagger.v1.json: forge's title and version; paths
// relative to APIBasePath; each operation's success status as its rpc
// declares it (forge.options.v1.success_status; protoc-gen-openapiv2 says
// 200 for all); Gitea's error body; the token, basic, sudo and OTP
// headers as security schemes; and the gateway's hand-written routes
// (raw files, diffs, uploads), which no google.api.http option declares.
// Every route under APIBasePath must end up documented exactly once.
func (g *gateway) apiDocument(generated []byte, version string) ([]byte, error) {
	var doc map[string]any
	if err := json.Unmarshal(generated, &doc); err != nil {
		return nil, fmt.Errorf("gateway: OpenAPI document: %w", err)
	}
	if version == "" {
		version = "unknown"
	}
	doc["info"] = map[string]any{
		"title":       "forge API",
		"version":     version,
		"description": "The REST API of forge, compatible with Gitea's API v1. Authenticate with `Authorization: token <token>` (Authorize, then Try it out).",
	}
	doc["basePath"] = APIBasePath
	doc["securityDefinitions"] = map[string]any{
		securityToken: map[string]any{"type": "apiKey", "in": "header", "name": "Authorization",
			"description": "An access token, sent as `token <token>`."},
		securityBasic: map[string]any{"type": "basic"},
		securitySudo: map[string]any{"type": "apiKey", "in": "header", "name": "Sudo",
			"description": "An administrator acts as the named user."},
		securityOTP: map[string]any{"type": "apiKey", "in": "header", "name": "X-Gitea-OTP",
			"description": "The current TOTP code, for basic authentication of accounts with two-factor authentication."},
	}
	doc["security"] = []any{
		map[string]any{securityToken: []any{}},
		map[string]any{securityBasic: []any{}},
		map[string]any{securitySudo: []any{}},
		map[string]any{securityOTP: []any{}},
	}
	defs, _ := doc["definitions"].(map[string]any)
	if defs == nil {
		defs = map[string]any{}
		doc["definitions"] = defs
	}
	defs["APIError"] = map[string]any{
		"type":        "object",
		"description": "The body of every error response (Gitea's APIError); some errors add fields.",
		"properties": map[string]any{
			"message": map[string]any{"type": "string"},
			"url":     map[string]any{"type": "string"},
		},
	}

	// The routes, keyed as the document keys its operations.
	routed := map[string]string{} // "GET /repos/{owner}/{repo}" -> gRPC method
	for key, method := range g.routes {
		verb, path, _ := strings.Cut(key, " ")
		if !strings.HasPrefix(path, APIBasePath+"/") {
			continue // the attachment download link, outside the API
		}
		routed[verb+" "+docPath(path)] = method
	}
	for path, method := range diffPatterns {
		routed["GET "+docPath(path)] = method
	}
	routed["GET "+docPath(archivePattern)] = archiveMethod

	generatedPaths, _ := doc["paths"].(map[string]any)
	paths := map[string]any{}
	documented := map[string]bool{}
	for path, v := range generatedPaths {
		if !strings.HasPrefix(path, APIBasePath+"/") {
			return nil, fmt.Errorf("gateway: OpenAPI document: path %s outside %s", path, APIBasePath)
		}
		rel := docPath(path)
		ops, _ := v.(map[string]any)
		for verb, o := range ops {
			op, ok := o.(map[string]any)
			if !ok {
				continue // path-level parameters
			}
			key := strings.ToUpper(verb) + " " + rel
			method, ok := routed[key]
			if !ok {
				return nil, fmt.Errorf("gateway: OpenAPI document: %s is documented but not routed", key)
			}
			documented[key] = true
			setResponses(op, g.success[method])
		}
		paths[rel] = ops
	}
	for _, extra := range handWrittenOperations() {
		if documented[extra.key] {
			return nil, fmt.Errorf("gateway: OpenAPI document: %s is both generated and hand-written", extra.key)
		}
		method, ok := routed[extra.key]
		if !ok {
			return nil, fmt.Errorf("gateway: OpenAPI document: hand-written %s is not routed", extra.key)
		}
		documented[extra.key] = true
		setResponses(extra.op, g.success[method])
		verb, path, _ := strings.Cut(extra.key, " ")
		ops, _ := paths[path].(map[string]any)
		if ops == nil {
			ops = map[string]any{}
			paths[path] = ops
		}
		ops[strings.ToLower(verb)] = extra.op
	}
	var missing []string
	for key := range routed {
		if !documented[key] {
			missing = append(missing, key)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, fmt.Errorf("gateway: OpenAPI document: routes without documentation: %s", strings.Join(missing, ", "))
	}
	doc["paths"] = paths
	return json.MarshalIndent(doc, "", "  ")
}

var templateVariable = regexp.MustCompile(`\{([A-Za-z0-9_.]+)(=[^}]*)?\}`)

// docPath is a route template as the document writes it: relative to
// APIBasePath, variables without their segment patterns.
func docPath(template string) string {
	return strings.TrimPrefix(templateVariable.ReplaceAllString(template, "{${1}}"), APIBasePath)
}

// setResponses states the declared success status (the generator's "200"
// moves there; 204 and 205 carry no body) and Gitea's error body.
func setResponses(op map[string]any, status int) {
	if status == 0 {
		status = http.StatusOK
	}
	responses, _ := op["responses"].(map[string]any)
	if responses == nil {
		responses = map[string]any{}
		op["responses"] = responses
	}
	ok, _ := responses["200"].(map[string]any)
	if ok == nil {
		ok = map[string]any{}
	}
	delete(responses, "200")
	ok["description"] = http.StatusText(status)
	if status == http.StatusNoContent || status == http.StatusResetContent {
		delete(ok, "schema")
	}
	responses[strconv.Itoa(status)] = ok
	responses["default"] = map[string]any{
		"description": "An error (Gitea's status and message).",
		"schema":      map[string]any{"$ref": "#/definitions/APIError"},
	}
}

type docOperation struct {
	key string // "GET /repos/{owner}/{repo}/raw/{filepath}"
	op  map[string]any
}

func pathParam(name, typ, description string) map[string]any {
	p := map[string]any{"name": name, "in": "path", "required": true, "type": typ}
	if description != "" {
		p["description"] = description
	}
	return p
}

func queryParam(name, description string) map[string]any {
	return map[string]any{"name": name, "in": "query", "required": false, "type": "string", "description": description}
}

// handWrittenOperations documents the routes the gateway serves itself
// (raw.go, diff.go, upload.go).
func handWrittenOperations() []docOperation {
	owner := pathParam("owner", "string", "owner of the repository")
	repo := pathParam("repo", "string", "name of the repository")
	var out []docOperation
	for _, r := range []struct{ path, summary, id string }{
		{"/repos/{owner}/{repo}/raw/{filepath}", "Get a file's bytes from a repository (a path and an optional ref).", "ContentService_GetRawFile"},
		{"/repos/{owner}/{repo}/media/{filepath}", "Get a file's bytes, or its LFS object, from a repository.", "ContentService_GetMediaFile"},
	} {
		out = append(out, docOperation{key: "GET " + r.path, op: map[string]any{
			"summary":     r.summary,
			"operationId": r.id,
			"produces":    []any{"application/octet-stream"},
			"parameters": []any{owner, repo,
				pathParam("filepath", "string", "path of the file, optionally after the branch, tag or commit"),
				queryParam("ref", "branch, tag or commit (default: the default branch)")},
			"responses": map[string]any{"200": map[string]any{"schema": map[string]any{"type": "file"}}},
			"tags":      []any{"ContentService"},
		}})
	}
	archive := pathParam("archive", "string", "the branch, tag or commit followed by .zip, .tar.gz or .bundle")
	out = append(out, docOperation{key: "GET /repos/{owner}/{repo}/archive/{archive}", op: map[string]any{
		"summary":     "Get an archive of a repository (zip, tar.gz or git bundle).",
		"operationId": "GitDataService_GetArchive",
		"produces":    []any{"application/zip", "application/gzip", "application/octet-stream"},
		"parameters":  []any{owner, repo, archive},
		"responses":   map[string]any{"200": map[string]any{"schema": map[string]any{"type": "file"}}},
		"tags":        []any{"GitDataService"},
	}})
	for _, r := range []struct{ path, summary, id, idName, idDesc string }{
		{"/repos/{owner}/{repo}/pulls/{index}.{format}", "Get a pull request's diff or patch.", "PullDiffService_GetPullRequestDiff", "index", "number of the pull request"},
		{"/repos/{owner}/{repo}/git/commits/{sha}.{format}", "Get a commit's diff or patch.", "PullDiffService_GetCommitDiff", "sha", "SHA of the commit"},
	} {
		typ := "string"
		if r.idName == "index" {
			typ = "integer"
		}
		diffType := pathParam("format", "string", "whether the output is a diff or a patch")
		diffType["enum"] = []any{"diff", "patch"}
		out = append(out, docOperation{key: "GET " + r.path, op: map[string]any{
			"summary":     r.summary,
			"operationId": r.id,
			"produces":    []any{"text/plain"},
			"parameters":  []any{owner, repo, pathParam(r.idName, typ, r.idDesc), diffType},
			"responses":   map[string]any{"200": map[string]any{"schema": map[string]any{"type": "string"}}},
			"tags":        []any{"PullDiffService"},
		}})
	}
	for _, r := range []struct{ path, summary, id, idName, idDesc string }{
		{"/repos/{owner}/{repo}/releases/{id}/assets", "Create a release attachment.", "AttachmentService_CreateReleaseAttachment", "id", "id of the release"},
		{"/repos/{owner}/{repo}/issues/{index}/assets", "Create an issue attachment.", "AttachmentService_CreateIssueAttachment", "index", "number of the issue"},
		{"/repos/{owner}/{repo}/issues/comments/{id}/assets", "Create a comment attachment.", "AttachmentService_CreateCommentAttachment", "id", "id of the comment"},
	} {
		out = append(out, docOperation{key: "POST " + r.path, op: map[string]any{
			"summary":     r.summary,
			"operationId": r.id,
			"consumes":    []any{"multipart/form-data"},
			"parameters": []any{owner, repo, pathParam(r.idName, "integer", r.idDesc),
				queryParam("name", "name of the attachment (default: the file's name)"),
				map[string]any{"name": "attachment", "in": "formData", "required": true, "type": "file", "description": "the file"}},
			"responses": map[string]any{"200": map[string]any{"schema": map[string]any{"$ref": "#/definitions/v1Attachment"}}},
			"tags":      []any{"AttachmentService"},
		}})
	}
	return out
}
