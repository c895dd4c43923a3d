package giteajson

import (
	"strings"
	"testing"
	"time"

	adminv1 "forge/gen/forge/admin/v1"
	usersv1 "forge/gen/forge/users/v1"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/protobuf/encoding/protojson"
)

// jsonPb is grpc-gateway's default marshaler as forge would otherwise
// configure it.
var jsonPb = &runtime.JSONPb{
	MarshalOptions: protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true},
}

func userList(n int) []*usersv1.User {
	us := make([]*usersv1.User, n)
	for i := range us {
		us[i] = fullUser()
		us[i].Id = int64(i + 1)
	}
	return us
}

func benchmarkMarshal(b *testing.B, m runtime.Marshaler, v any) {
	b.ReportAllocs()
	out, err := m.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(out)))
	for b.Loop() {
		if _, err := m.Marshal(v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarshalUser(b *testing.B) {
	benchmarkMarshal(b, New(tokyo), fullUser())
}

func BenchmarkMarshalUserJSONPb(b *testing.B) {
	benchmarkMarshal(b, jsonPb, fullUser())
}

func BenchmarkMarshalUsers50(b *testing.B) {
	benchmarkMarshal(b, New(tokyo), userList(50))
}

func BenchmarkMarshalUsers50JSONPb(b *testing.B) {
	benchmarkMarshal(b, jsonPb, userList(50))
}

const editUserBody = `{"email":"alice@example.com","full_name":"Alice","login_name":"alice","source_id":0,` +
	`"active":true,"admin":false,"allow_git_hook":false,"max_repo_creation":-1,"website":"https://example.com",` +
	`"location":"Wonderland","description":"hello","visibility":"public"}`

func benchmarkDecode(b *testing.B, m runtime.Marshaler) {
	b.ReportAllocs()
	b.SetBytes(int64(len(editUserBody)))
	for b.Loop() {
		var req adminv1.EditUserRequest
		if err := m.NewDecoder(strings.NewReader(editUserBody)).Decode(&req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeEditUser(b *testing.B) {
	benchmarkDecode(b, New(time.UTC))
}

func BenchmarkDecodeEditUserJSONPb(b *testing.B) {
	benchmarkDecode(b, jsonPb)
}
