// Package area is how a service package declares itself to the server:
// one value per area carries its gRPC services (whose protos declare each
// method's policy), its REST registration, the methods it serves over gRPC only and the tables whose
// rows belong to a repository or a user. Package all lists the areas
// once, each with the constructor of its implementations, and the server
// derives everything from that list (policy merge, gRPC registration on
// both transports, gateway registration, deletes), so a new area cannot
// be half wired. See docs/adding-an-area.md.
package area

import (
	"context"
	"fmt"
	"reflect"
	"sort"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"

	"forge/services/access"
	"forge/services/auth"
)

// Gateway registers REST handlers for an area's services on mux, calling
// them through cc (the in-process channel with the interceptor chain).
type Gateway = func(ctx context.Context, mux *runtime.ServeMux, cc grpc.ClientConnInterface) error

// Area is the declaration of one service package.
type Area struct {
	// Name identifies the area in errors and docs ("repos").
	Name string
	// Services are the generated descriptors of the area's gRPC services
	// (<pkg>v1.<X>Service_ServiceDesc). Bind registers each with the
	// implementation given for it. Every method declares its policy in its
	// proto (option (forge.options.v1.policy)); Policies reads them.
	Services []*grpc.ServiceDesc
	// Surfaces are services declared only for their policies: methods
	// served outside gRPC (git's smart HTTP protocol), authorized by the
	// interceptor's own check (auth.Authenticator.Authorize). They are
	// never registered; their policies join the table like the others.
	Surfaces []*grpc.ServiceDesc
	// Gateways register the area's REST handlers (usually one per service,
	// built with Handlers). A method with no REST route must be in GRPCOnly.
	Gateways []Gateway
	// GRPCOnly lists the full method names deliberately served over gRPC
	// only, with no option (google.api.http) in their proto.
	GRPCOnly []string
	// RepoTables are the tables whose rows belong to a repository, by their
	// repo_id column; they are deleted with the repository. Every table
	// with a repo_id column must be declared by exactly one area.
	RepoTables []string
	// UserTables are the tables whose rows belong to a user, and the column
	// holding the user's id; they are deleted with the user. Every user_id
	// and uid column must be declared; other columns holding a user's id
	// (issue_assignees.assignee_id) are declared when their rows must go
	// with the user, and left out when they stay pointing at a ghost (an
	// issue's poster_id, as in Gitea). A table may have several.
	UserTables []Column
}

// Column names a table and the column holding its owner's id.
type Column struct {
	Table  string
	Column string
}

// Handlers adapts a generated Register<X>HandlerClient and New<X>Client
// pair to a Gateway, so an area needs no hand-written closure.
func Handlers[C any](register func(context.Context, *runtime.ServeMux, C) error, client func(grpc.ClientConnInterface) C) Gateway {
	return func(ctx context.Context, mux *runtime.ServeMux, cc grpc.ClientConnInterface) error {
		return register(ctx, mux, client(cc))
	}
}

// Policies reads the policies the areas' methods declare in their protos
// (auth.Declared), keyed by full method name. A malformed declaration, or a
// service listed by two areas, is an error that stops start-up; a method
// declaring none is left out, so the interceptor refuses it and
// TestAreasDeclareEveryMethod names it.
func Policies(areas []Area) (auth.Policies, error) {
	out := auth.Policies{}
	owner := map[string]string{}
	for _, a := range areas {
		services := append(append([]*grpc.ServiceDesc{}, a.Services...), a.Surfaces...)
		declared, err := auth.Declared(services)
		if err == nil {
			err = access.CheckRules(services, declared)
		}
		if err != nil {
			return nil, fmt.Errorf("area %s: %w", a.Name, err)
		}
		for m, p := range declared {
			if prev, dup := owner[m]; dup {
				return nil, fmt.Errorf("area: %s declared by %s and %s", m, prev, a.Name)
			}
			owner[m] = a.Name
			out[m] = p
		}
	}
	return out, nil
}

// Gateways lists every area's REST registrations, in area order.
func Gateways(areas []Area) []Gateway {
	var out []Gateway
	for _, a := range areas {
		out = append(out, a.Gateways...)
	}
	return out
}

// Methods returns the full names ("/pkg.Service/Method") of every method
// of every area's services, sorted.
func Methods(areas []Area) []string {
	var out []string
	for _, a := range areas {
		out = append(out, methodNames(a.Services)...)
	}
	sort.Strings(out)
	return out
}

// methodNames lists the full names of the methods of services.
func methodNames(services []*grpc.ServiceDesc) []string {
	var out []string
	for _, sd := range services {
		for _, m := range sd.Methods {
			out = append(out, "/"+sd.ServiceName+"/"+m.MethodName)
		}
		for _, s := range sd.Streams {
			out = append(out, "/"+sd.ServiceName+"/"+s.StreamName)
		}
	}
	return out
}

// SurfaceMethods returns the full names of the methods the areas declare
// for surfaces served outside gRPC (Area.Surfaces), sorted.
func SurfaceMethods(areas []Area) []string {
	var out []string
	for _, a := range areas {
		out = append(out, methodNames(a.Surfaces)...)
	}
	sort.Strings(out)
	return out
}

// GRPCOnly returns the set of methods the areas serve over gRPC only.
func GRPCOnly(areas []Area) map[string]bool {
	out := map[string]bool{}
	for _, a := range areas {
		for _, m := range a.GRPCOnly {
			out[m] = true
		}
	}
	return out
}

// RepoTables lists the tables deleted with a repository; a table declared
// by two areas is an error (one owner per table).
func RepoTables(areas []Area) ([]string, error) {
	owner := map[string]string{}
	var out []string
	for _, a := range areas {
		for _, t := range a.RepoTables {
			if prev, dup := owner[t]; dup {
				return nil, fmt.Errorf("area: repository table %q declared by %s and %s", t, prev, a.Name)
			}
			owner[t] = a.Name
			out = append(out, t)
		}
	}
	return out, nil
}

// UserTables lists the columns whose rows are deleted with a user; a
// table declared by two areas, or a column declared twice, is an error.
func UserTables(areas []Area) ([]Column, error) {
	owner := map[string]string{}
	seen := map[Column]bool{}
	var out []Column
	for _, a := range areas {
		for _, c := range a.UserTables {
			if prev, dup := owner[c.Table]; dup && prev != a.Name {
				return nil, fmt.Errorf("area: user table %q declared by %s and %s", c.Table, prev, a.Name)
			}
			if seen[c] {
				return nil, fmt.Errorf("area: user column %s.%s declared twice by %s", c.Table, c.Column, a.Name)
			}
			owner[c.Table], seen[c] = a.Name, true
			out = append(out, c)
		}
	}
	return out, nil
}

// Bind pairs every service of the areas with the one implementation in
// impls that implements it, and returns a function registering them all on
// a server or channel (called once per transport). It fails when a service
// has no implementation or several, or an implementation serves none, so a
// forgotten or misplaced constructor stops start-up instead of leaving a
// method Unimplemented.
func Bind(areas []Area, impls ...any) (func(grpc.ServiceRegistrar), error) {
	type binding struct {
		desc *grpc.ServiceDesc
		impl any
	}
	var bound []binding
	used := make([]bool, len(impls))
	for _, a := range areas {
		for _, sd := range a.Services {
			want := reflect.TypeOf(sd.HandlerType).Elem()
			found := -1
			for i, impl := range impls {
				if impl == nil || !reflect.TypeOf(impl).Implements(want) {
					continue
				}
				if found >= 0 {
					return nil, fmt.Errorf("area %s: %s has two implementations (%T, %T)", a.Name, sd.ServiceName, impls[found], impl)
				}
				found = i
			}
			if found < 0 {
				return nil, fmt.Errorf("area %s: no implementation given for %s", a.Name, sd.ServiceName)
			}
			used[found] = true
			bound = append(bound, binding{sd, impls[found]})
		}
	}
	for i, u := range used {
		if !u {
			return nil, fmt.Errorf("area: %T implements no declared service", impls[i])
		}
	}
	return func(r grpc.ServiceRegistrar) {
		for _, b := range bound {
			r.RegisterService(b.desc, b.impl)
		}
	}, nil
}
