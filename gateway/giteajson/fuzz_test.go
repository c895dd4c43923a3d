package giteajson

import (
	"bytes"
	"runtime"
	"testing"

	"google.golang.org/protobuf/proto"

	adminv1 "forge/gen/forge/admin/v1"
	contentsv1 "forge/gen/forge/contents/v1"
	reposv1 "forge/gen/forge/repos/v1"
	tokensv1 "forge/gen/forge/tokens/v1"
	usersv1 "forge/gen/forge/users/v1"
)

// fuzzTargets are request and response messages with every kind of field
// the decoder handles: scalars, int64 as strings, optional presence,
// bytes (base64), timestamps, enums, repeated and nested messages.
var fuzzTargets = []func() proto.Message{
	func() proto.Message { return &usersv1.User{} },
	func() proto.Message { return &adminv1.EditUserRequest{} },
	func() proto.Message { return &tokensv1.CreateAccessTokenRequest{} },
	func() proto.Message { return &contentsv1.CreateFileRequest{} },
	func() proto.Message { return &reposv1.EditRepoRequest{} },
	func() proto.Message { return &reposv1.Repository{} },
}

// FuzzDecode: decoding any input into any message never panics, and
// allocates in proportion to the input (no amplification: a small body
// cannot make the decoder build a huge value). The seeds run in every
// `go test`; `go test -fuzz FuzzDecode ./gateway/giteajson` explores.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		``, `null`, `{}`, `[]`, `"x"`, `{"id": 1e3}`, `{"id": "9007199254740993"}`, `{"id": 1e400}`,
		`{"login": "alice", "created": "2024-01-02T03:04:05Z", "bogus": {"a": [1, {"b": null}]}}`,
		`{"admin": false, "email": null, "max_repo_creation": -1}`,
		`{"name": "t", "scopes": ["read:user", "write:repository"]}`,
		`{"content": "aGVsbG8=", "author": {"name": "a", "email": "a@b"}, "dates": {"author": "2024-01-02T03:04:05+02:00"}}`,
		`{"content": "!!notbase64"}`,
		`{"owner": {"login": "x", "id": "1"}, "permissions": {"admin": true}, "internal_tracker": {}}`,
		`{"name": "a"} {"name": "b"}`,
		`{"id": 1,}`, `{"id"`, `[[[[[[[[[[`, `{"a":` + `[` + `"` + "\xff" + `"]}`,
		`{"default_merge_style": "rebase", "has_issues": true, "description": "\u0000\ud800"}`,
	} {
		for i := range fuzzTargets {
			f.Add(byte(i), []byte(seed))
		}
	}
	m := New(nil)
	f.Fuzz(func(t *testing.T, which byte, data []byte) {
		target := fuzzTargets[int(which)%len(fuzzTargets)]
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)

		_ = m.Unmarshal(data, target())
		dec := m.NewDecoder(bytes.NewReader(data))
		for range 4 { // successive values, as a stream may hold several
			if err := dec.Decode(target()); err != nil {
				break
			}
		}

		runtime.ReadMemStats(&after)
		if grew, bound := after.TotalAlloc-before.TotalAlloc, uint64(1<<20+256*len(data)); grew > bound {
			t.Fatalf("decoding %d bytes allocated %d bytes", len(data), grew)
		}
	})
}
