// Package webhooks serves forge.webhooks.v1.WebhookService (the hooks of
// repositories, owners and the instance) and delivers what happens in
// repositories to them: changes record an event in their own transaction
// (store.HookEvent), the Worker renders each into one delivery per
// listening hook (store.HookTask) and sends those with retries, signed
// with the hook's secret, refusing addresses the [webhook]
// ALLOWED_HOST_LIST does not allow.
package webhooks

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"forge/services/access"
	"forge/services/auth"
	"forge/services/errs"
	"forge/services/paging"
	"forge/services/protection"
	"forge/services/secretbox"
	"forge/services/store"
)

// Store is what the hooks' settings need.
type Store interface {
	// Hooks lists a page of a level's hooks and their total.
	Hooks(ctx context.Context, sc store.HookScope, offset, limit int) ([]store.Webhook, int64, error)
	// HookByID: store.ErrNotFound when the level has no hook of that id.
	HookByID(ctx context.Context, sc store.HookScope, id int64) (*store.Webhook, error)
	CreateHook(ctx context.Context, h *store.Webhook) error
	// UpdateHook: store.ErrNotFound when the hook is gone.
	UpdateHook(ctx context.Context, h *store.Webhook) error
	// DeleteHook: store.ErrNotFound when the level has no hook of that id.
	DeleteHook(ctx context.Context, sc store.HookScope, id int64) error
	// EnqueueHookEvent queues an event (a test delivery names its hook).
	EnqueueHookEvent(ctx context.Context, e store.HookEvent) error
}

// Service holds the use cases.
type Service struct {
	store    Store
	box      *secretbox.Box // hook secrets and authorization headers
	limits   paging.Limits
	disabled bool // [security] DISABLE_WEBHOOKS
}

// NewService derives its key from [security] SECRET_KEY.
func NewService(s Store, secretKey string, limits paging.Limits, disabled bool) (*Service, error) {
	box, err := NewBox(secretKey)
	if err != nil {
		return nil, err
	}
	return &Service{store: s, box: box, limits: limits, disabled: disabled}, nil
}

// NewBox is the sealing of hook secrets and authorization headers, for
// the service and the worker alike.
func NewBox(secretKey string) (*secretbox.Box, error) { return secretbox.New(secretKey, "webhooks") }

// Hook types and content types, as Gitea names them.
var hookTypes = map[string]bool{"gitea": true, "gogs": true, "slack": true, "discord": true, "dingtalk": true,
	"telegram": true, "msteams": true, "feishu": true, "matrix": true, "wechatwork": true, "packagist": true}

const (
	contentJSON = 1
	contentForm = 2
)

func contentType(name string) (int, bool) {
	switch name {
	case "json":
		return contentJSON, true
	case "form":
		return contentForm, true
	}
	return 0, false
}

func contentTypeName(ct int) string {
	if ct == contentForm {
		return "form"
	}
	return "json"
}

// slackMeta is a slack hook's settings (store.Webhook.Meta).
type slackMeta struct {
	Channel  string `json:"channel"`
	Username string `json:"username"`
	IconURL  string `json:"icon_url"`
	Color    string `json:"color"`
}

var (
	errDisabled = errs.New(errs.PermissionDenied, "webhooks disabled by administrator")
	errNotFound = errs.New(errs.NotFound, "")
	errBadURL   = errs.New(errs.Invalid, "Invalid config option: url")
)

// Levels: each resolves the scope the interceptor authorized.
func (s *Service) repoScope(ctx context.Context) (store.HookScope, error) {
	if s.disabled {
		return store.HookScope{}, errDisabled
	}
	r, err := access.RepoFrom(ctx)
	if err != nil {
		return store.HookScope{}, err
	}
	return store.HookScope{RepoID: r.ID}, nil
}

func (s *Service) orgScope(ctx context.Context) (store.HookScope, error) {
	if s.disabled {
		return store.HookScope{}, errDisabled
	}
	o, err := access.OrgFrom(ctx)
	if err != nil {
		return store.HookScope{}, err
	}
	return store.HookScope{OwnerID: o.ID}, nil
}

func (s *Service) userScope(ctx context.Context) (store.HookScope, error) {
	if s.disabled {
		return store.HookScope{}, errDisabled
	}
	p := auth.FromContext(ctx)
	if p == nil {
		return store.HookScope{}, errs.New(errs.Internal, "webhooks: no caller")
	}
	return store.HookScope{OwnerID: p.ID()}, nil
}

// adminListScope is the instance's hooks of kind (empty: system).
func adminListScope(kind string) (store.HookScope, error) {
	switch kind {
	case "", store.HookKindSystem:
		return store.HookScope{Instance: true, Kind: store.HookKindSystem}, nil
	case store.HookKindDefault, store.HookKindAll:
		return store.HookScope{Instance: true, Kind: kind}, nil
	}
	return store.HookScope{}, errs.Newf(errs.Invalid, "Invalid type: %s (system, default or all)", kind)
}

func (s *Service) list(ctx context.Context, sc store.HookScope, page, limit int32) ([]store.Webhook, int64, error) {
	p := s.limits.Normalize(int(page), int(limit))
	list, total, err := s.store.Hooks(ctx, sc, p.Offset(), p.Size)
	if err != nil {
		return nil, 0, errs.Wrap(err, "list hooks")
	}
	return list, total, nil
}

func (s *Service) get(ctx context.Context, sc store.HookScope, id int64) (*store.Webhook, error) {
	h, err := s.store.HookByID(ctx, sc, id)
	return h, errs.Replace(err, store.ErrNotFound, errNotFound)
}

// CreateInput is Gitea's CreateHookOption.
type CreateInput struct {
	Type                string
	Config              map[string]string
	Events              []string
	BranchFilter        string
	AuthorizationHeader string
	Active              bool
}

// systemFlag reads config.is_system_webhook: set tells whether it was
// given.
func systemFlag(config map[string]string) (system, set bool, err error) {
	v, ok := config["is_system_webhook"]
	if !ok {
		return false, false, nil
	}
	b, perr := strconv.ParseBool(v)
	if perr != nil {
		return false, false, errs.New(errs.Invalid, "Invalid is_system_webhook value")
	}
	return b, true, nil
}

// create checks in Gitea's order and stores the hook at sc. adminKind is
// the ?type of POST /admin/hooks ("" unless sc is the instance's).
func (s *Service) create(ctx context.Context, sc store.HookScope, in CreateInput, adminKind string) (*store.Webhook, error) {
	if strings.TrimSpace(in.Type) == "" {
		return nil, errs.New(errs.Invalid, "[Type]: Required")
	}
	if in.Config == nil {
		return nil, errs.New(errs.Invalid, "[Config]: Required")
	}
	if !hookTypes[in.Type] {
		return nil, errs.Newf(errs.Invalid, "Invalid hook type: %s", in.Type)
	}
	for _, k := range []string{"url", "content_type"} {
		if _, ok := in.Config[k]; !ok {
			return nil, errs.New(errs.Invalid, "Missing config option: "+k)
		}
	}
	ct, ok := contentType(in.Config["content_type"])
	if !ok {
		return nil, errs.New(errs.Invalid, "Invalid content type")
	}
	if !validURL(in.Config["url"]) {
		return nil, errBadURL
	}
	system, set, err := systemFlag(in.Config)
	if err != nil {
		return nil, err
	}
	if sc.Instance {
		switch adminKind {
		case "":
			sc.Kind = store.HookKindSystem
			if set && !system {
				sc.Kind = store.HookKindDefault
			}
		case store.HookKindSystem, store.HookKindDefault:
			sc.Kind = adminKind
		default:
			return nil, errs.Newf(errs.Invalid, "Invalid type: %s (system or default)", adminKind)
		}
	}
	h := &store.Webhook{RepoID: sc.RepoID, OwnerID: sc.OwnerID, IsSystem: sc.Instance && sc.Kind == store.HookKindSystem,
		Type: in.Type, URL: in.Config["url"], HTTPMethod: "POST", ContentType: ct,
		Events: chooseEvents(in.Events), Active: in.Active}
	if in.Type == "slack" {
		m := slackMeta{Username: in.Config["username"], IconURL: in.Config["icon_url"], Color: in.Config["color"]}
		ch, ok := in.Config["channel"]
		if !ok {
			return nil, errs.New(errs.Invalid, "Missing config option: channel")
		}
		if !validSlackChannel(ch) {
			return nil, errs.New(errs.FailedPrecondition, "Invalid slack channel name")
		}
		m.Channel = strings.TrimSpace(ch)
		b, _ := json.Marshal(m)
		h.Meta = string(b)
	}
	if err := s.setBranchFilter(h, in.BranchFilter); err != nil {
		return nil, err
	}
	if sec := in.Config["secret"]; sec != "" {
		h.Secret = s.box.Seal([]byte(sec))
	}
	if in.AuthorizationHeader != "" {
		h.AuthorizationHeader = s.box.Seal([]byte(in.AuthorizationHeader))
	}
	if err := s.store.CreateHook(ctx, h); err != nil {
		return nil, errs.Wrap(err, "create hook")
	}
	return h, nil
}

func (s *Service) setBranchFilter(h *store.Webhook, filter string) error {
	if filter != "" && filter != "*" && !protection.ValidGlob(filter) {
		return errs.New(errs.Invalid, "[BranchFilter]: GlobPattern")
	}
	h.BranchFilter = filter
	return nil
}

// validURL: an absolute http or https URL with a host.
func validURL(s string) bool {
	u, err := url.Parse(strings.TrimSpace(s))
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// validSlackChannel is Gitea's rule: not blank, and not a lone #.
func validSlackChannel(name string) bool {
	switch len(strings.TrimSpace(name)) {
	case 0:
		return false
	case 1:
		return name[0] != '#'
	}
	return true
}

// EditInput is Gitea's EditHookOption.
type EditInput struct {
	Config              map[string]string
	Events              []string
	BranchFilter        string
	AuthorizationHeader string
	Active              *bool
}

// edit applies Gitea's edit: config keys given, events, branch filter and
// authorization header replaced, active when given.
func (s *Service) edit(ctx context.Context, sc store.HookScope, id int64, in EditInput) (*store.Webhook, error) {
	h, err := s.get(ctx, sc, id)
	if err != nil {
		return nil, err
	}
	if u, ok := in.Config["url"]; ok {
		if !validURL(u) {
			return nil, errBadURL
		}
		h.URL = u
	}
	if name, ok := in.Config["content_type"]; ok {
		ct, ok := contentType(name)
		if !ok {
			return nil, errs.New(errs.Invalid, "Invalid content type")
		}
		h.ContentType = ct
	}
	if sec, ok := in.Config["secret"]; ok {
		h.Secret = nil
		if sec != "" {
			h.Secret = s.box.Seal([]byte(sec))
		}
	}
	if h.Type == "slack" {
		var m slackMeta
		_ = json.Unmarshal([]byte(h.Meta), &m)
		if ch, ok := in.Config["channel"]; ok {
			if !validSlackChannel(ch) {
				return nil, errs.New(errs.FailedPrecondition, "Invalid slack channel name")
			}
			m.Channel = strings.TrimSpace(ch)
		}
		for k, dst := range map[string]*string{"username": &m.Username, "icon_url": &m.IconURL, "color": &m.Color} {
			if v, ok := in.Config[k]; ok {
				*dst = v
			}
		}
		b, _ := json.Marshal(m)
		h.Meta = string(b)
	}
	h.Events = chooseEvents(in.Events)
	if err := s.setBranchFilter(h, in.BranchFilter); err != nil {
		return nil, err
	}
	h.AuthorizationHeader = nil
	if in.AuthorizationHeader != "" {
		h.AuthorizationHeader = s.box.Seal([]byte(in.AuthorizationHeader))
	}
	if in.Active != nil {
		h.Active = *in.Active
	}
	if err := s.store.UpdateHook(ctx, h); err != nil {
		return nil, errs.Replace(err, store.ErrNotFound, errNotFound)
	}
	return h, nil
}

func (s *Service) delete(ctx context.Context, sc store.HookScope, id int64) error {
	return errs.Replace(s.store.DeleteHook(ctx, sc, id), store.ErrNotFound, errNotFound)
}

// test queues a push of ref (empty: the default branch) to the hook,
// whatever its events.
func (s *Service) test(ctx context.Context, sc store.HookScope, id int64, ref string) error {
	h, err := s.get(ctx, sc, id)
	if err != nil {
		return err
	}
	actor := int64(0)
	if p := auth.FromContext(ctx); p != nil {
		actor = p.ID()
	}
	return errs.Wrap(s.store.EnqueueHookEvent(ctx, store.HookEvent{Kind: KindTest, RepoID: sc.RepoID,
		HookID: h.ID, ActorID: actor, Ref: ref}), "queue test delivery")
}

// KindTest is the outbox kind of a test delivery: a push of the default
// branch's head (or the ref given) to one hook.
const KindTest = "test"
