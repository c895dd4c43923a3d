package access

import (
	"context"

	"google.golang.org/protobuf/proto"

	"forge/services/auth"
)

// DecideForTest runs the rule name for caller on req, with the resource
// the interceptor would have resolved (repo or org, either may be nil).
func DecideForTest(ctx context.Context, c *Checker, name string, req proto.Message, caller *auth.Principal, repo *Repo, org *Org) (*Object, error) {
	s := &subject{req: req.ProtoReflect(), caller: caller, repo: repo, org: org}
	return Rules[name].decide(ctx, c, s)
}
