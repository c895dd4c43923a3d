package giteajson

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	adminv1 "forge/gen/forge/admin/v1"
	tokensv1 "forge/gen/forge/tokens/v1"
	usersv1 "forge/gen/forge/users/v1"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

func TestUnmarshal(t *testing.T) {
	tests := []struct {
		name string
		in   string
		into func() proto.Message
		want proto.Message
	}{
		{
			"case-insensitive keys, unknown keys ignored",
			`{"ID": 5, "LOGIN": "alice", "Full_Name": "A", "bogus": {"nested": [1, {"x": null}]}, "also": "x"}`,
			func() proto.Message { return &usersv1.User{} },
			&usersv1.User{Id: 5, Login: "alice", FullName: "A"},
		},
		{
			"camelCase json name accepted",
			`{"loginName": "l", "sourceId": 2}`,
			func() proto.Message { return &usersv1.User{} },
			&usersv1.User{LoginName: "l", SourceId: 2},
		},
		{
			"int64 as number and as string",
			`{"id": 9007199254740993, "followers_count": "9007199254740995", "following_count": "-3"}`,
			func() proto.Message { return &usersv1.User{} },
			&usersv1.User{Id: 9007199254740993, FollowersCount: 9007199254740995, FollowingCount: -3},
		},
		{
			"integral exponent and decimal forms",
			`{"id": 1e3, "source_id": "2.0"}`,
			func() proto.Message { return &usersv1.User{} },
			&usersv1.User{Id: 1000, SourceId: 2},
		},
		{
			"optional false sets presence, absent stays nil",
			`{"admin": false, "email": "", "max_repo_creation": 0}`,
			func() proto.Message { return &adminv1.EditUserRequest{} },
			&adminv1.EditUserRequest{Admin: proto.Bool(false), Email: proto.String(""), MaxRepoCreation: proto.Int32(0)},
		},
		{
			"null leaves fields unset",
			`{"admin": null, "username": null, "created_at": null, "source_id": null}`,
			func() proto.Message { return &adminv1.CreateUserRequest{} },
			&adminv1.CreateUserRequest{},
		},
		{
			"timestamp with offset",
			`{"created_at": "2024-11-15T16:44:57+09:00"}`,
			func() proto.Message { return &adminv1.CreateUserRequest{} },
			&adminv1.CreateUserRequest{CreatedAt: &timestamppb.Timestamp{Seconds: 1731656697}},
		},
		{
			"timestamp with fraction, UTC",
			`{"created_at": "2024-11-15T07:44:57.5Z"}`,
			func() proto.Message { return &adminv1.CreateUserRequest{} },
			&adminv1.CreateUserRequest{CreatedAt: &timestamppb.Timestamp{Seconds: 1731656697, Nanos: 500000000}},
		},
		{
			"go zero time",
			`{"created_at": "0001-01-01T00:00:00Z"}`,
			func() proto.Message { return &adminv1.CreateUserRequest{} },
			&adminv1.CreateUserRequest{CreatedAt: &timestamppb.Timestamp{Seconds: -62135596800}},
		},
		{
			"repeated strings",
			`{"scopes": ["read:user", "write:repository"]}`,
			func() proto.Message { return &tokensv1.CreateAccessTokenRequest{} },
			&tokensv1.CreateAccessTokenRequest{Scopes: []string{"read:user", "write:repository"}},
		},
		{
			"array replaces repeated field",
			`{"scopes": ["b"]}`,
			func() proto.Message { return &tokensv1.CreateAccessTokenRequest{Scopes: []string{"a", "c"}} },
			&tokensv1.CreateAccessTokenRequest{Scopes: []string{"b"}},
		},
		{
			"absent keys keep existing values",
			`{"name": "new"}`,
			func() proto.Message { return &tokensv1.CreateAccessTokenRequest{Username: "kept", Name: "old"} },
			&tokensv1.CreateAccessTokenRequest{Username: "kept", Name: "new"},
		},
		{
			"nested messages and lists of messages",
			`{"ok": true, "data": [{"id": 1, "created": "1970-01-01T00:00:00Z"}, null, {"login": "b"}], "total_count": 7}`,
			func() proto.Message { return &usersv1.SearchUsersResponse{} },
			&usersv1.SearchUsersResponse{Ok: true, Data: []*usersv1.User{
				{Id: 1, Created: &timestamppb.Timestamp{}}, {}, {Login: "b"},
			}},
		},
		{
			"null body",
			`null`,
			func() proto.Message { return &usersv1.User{Id: 3} },
			&usersv1.User{Id: 3},
		},
		{
			"empty body",
			` `,
			func() proto.Message { return &usersv1.User{Id: 3} },
			&usersv1.User{Id: 3},
		},
	}
	m := New(time.UTC)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.into()
			if err := m.Unmarshal([]byte(tt.in), got); err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			if !proto.Equal(got, tt.want) {
				t.Errorf("Unmarshal:\n got %v\nwant %v", got, tt.want)
			}
			// The same through the streaming decoder grpc-gateway uses.
			got = tt.into()
			if err := m.NewDecoder(strings.NewReader(tt.in)).Decode(got); err != nil && !errors.Is(err, io.EOF) {
				t.Fatalf("Decode: %v", err)
			}
			if !proto.Equal(got, tt.want) {
				t.Errorf("Decode:\n got %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestUnmarshalKinds(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // text format
	}{
		{"json_name and proto name, any case", `{"Do": "a", "merge_title": "b"}`, `do: "a" merge_title: "b"`},
		{"lower-case explicit json_name", `{"do": "a", "MERGETITLE": "b"}`, `do: "a" merge_title: "b"`},
		{"later key wins", `{"Do": "a", "do": "b"}`, `do: "b"`},
		{"every integer kind from strings", `{"i32": "-5", "u32": "4294967295", "u64": "18446744073709551615",
			"s64": "-9223372036854775808", "f32": 1, "f64": "2", "sf32": -3, "sf64": "-4"}`,
			`i32: -5 u32: 4294967295 u64: 18446744073709551615 s64: -9223372036854775808 f32: 1 f64: 2 sf32: -3 sf64: -4`},
		{"floats", `{"flt": 1.5, "dbl": "1e-7"}`, `flt: 1.5 dbl: 1e-7`},
		{"bytes, padded and not, url-safe", `{"byt": "AP9oaQ", "bytes_list": ["YQ==", "-_8"]}`,
			`byt: "\x00\xffhi" bytes_list: ["a", "\xfb\xff"]`},
		{"enum by name and number", `{"color": "COLOR_RED", "colors": [1, "COLOR_UNSPECIFIED", 7, "1"]}`,
			`color: COLOR_RED colors: [COLOR_RED, COLOR_UNSPECIFIED, 7, COLOR_RED]`},
		{"maps, null value is zero", `{"labels": {"a": "1", "b": null}, "by_id": {"-1": "COLOR_RED", "10": 0}}`,
			`labels { key: "a" value: "1" } labels { key: "b" value: "" }
			 by_id { key: -1 value: COLOR_RED } by_id { key: 10 value: COLOR_UNSPECIFIED }`},
		{"recursion", `{"child": {"child": {"str": "deep"}}, "children": [{}, {"i32": 2}]}`,
			`child { child { str: "deep" } } children {} children { i32: 2 }`},
		{"well-known types", `{"dur": "1h30m", "i64w": "5", "strw": "", "blw": false, "dw": 0.25, "empty": {"ignored": [1]}}`,
			`dur { seconds: 5400 } i64w { value: 5 } strw {} blw {} dw { value: 0.25 } empty {}`},
		{"struct, value, list", `{"st": {"k": {"z": [true, null, 1, "s"]}}, "val": [{}], "lst": [null, 1]}`,
			`st { fields { key: "k" value { struct_value { fields { key: "z" value { list_value {
			   values { bool_value: true } values { null_value: NULL_VALUE } values { number_value: 1 } values { string_value: "s" }
			 } } } } } } }
			 val { list_value { values { struct_value {} } } }
			 lst { values { null_value: NULL_VALUE } values { number_value: 1 } }`},
		{"null value field stays unset", `{"val": null, "st": null, "lst": null}`, ``},
		{"optional zero sets presence", `{"opt_i64": 0}`, `opt_i64: 0`},
		{"oneof, last wins", `{"pick_str": "s", "pick_msg": {"i32": 1}}`, `pick_msg { i32: 1 }`},
		{"rest_hidden ignored on input", `{"hidden": "x", "HIDDEN": 5}`, ``},
		{"null list and map stay unset", `{"colors": null, "labels": null}`, ``},
	}
	m := New(time.UTC)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := newTestMessage(t, "Kinds", ``)
			if err := m.Unmarshal([]byte(tt.in), got); err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			if want := newTestMessage(t, "Kinds", tt.want); !proto.Equal(got, want) {
				t.Errorf("Unmarshal:\n got %v\nwant %v", prototext.Format(got), prototext.Format(want))
			}
		})
	}
}

// TestKeyMatchingLikeEncodingJSON checks that keys pick the same field as
// they would for a Go struct with the same JSON names.
func TestKeyMatchingLikeEncodingJSON(t *testing.T) {
	type goKinds struct {
		Str string `json:"str"`
		Do  string `json:"Do"`
	}
	for _, key := range []string{"str", "STR", "Str", "ſtr", "do", "DO", "Do", "dO", "st r", "strx"} {
		in := `{"` + key + `": "v"}`
		var want goKinds
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatal(err)
		}
		got := newTestMessage(t, "Kinds", ``)
		if err := New(nil).Unmarshal([]byte(in), got); err != nil {
			t.Fatal(err)
		}
		wantMsg := newTestMessage(t, "Kinds", `str: "`+want.Str+`" do: "`+want.Do+`"`)
		if !proto.Equal(got, wantMsg) {
			t.Errorf("key %q: got %v, encoding/json filled %+v", key, prototext.Format(got), want)
		}
	}
}

func TestUnmarshalErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		into func() proto.Message
		want string
	}{
		{"bad JSON", `{"id": x}`, newUser, `[]: invalid character 'x' looking for beginning of value`},
		{"missing colon", `{"id" 1}`, newUser, `[]: invalid character '1' after object key`},
		{"truncated", `{"id": 1`, newUser, `[]: unexpected EOF`},
		{"truncated in a skipped value", `{"x": [1, {"y": `, newUser, `[]: unexpected EOF`},
		{"trailing data", `{} {}`, newUser, `[]: invalid data after top-level value`},
		{"top-level array", `[1]`, newUser, `[]: cannot unmarshal array into type forge.users.v1.User`},
		{"top-level string", `"x"`, newUser, `[]: cannot unmarshal string into type forge.users.v1.User`},
		{
			"string for repeated field", `{"scopes": "all"}`,
			func() proto.Message { return &tokensv1.AccessToken{} },
			`[]: cannot unmarshal string into field "scopes" of type repeated string`,
		},
		{
			"number in string list", `{"scopes": ["a", 1]}`,
			func() proto.Message { return &tokensv1.AccessToken{} },
			`[]: cannot unmarshal number into field "scopes[1]" of type string`,
		},
		{"fractional int", `{"id": 1.5}`, newUser, `[]: cannot unmarshal number 1.5 into field "id" of type int64: not an integer`},
		{"int64 overflow", `{"id": 9223372036854775808}`, newUser, `[]: cannot unmarshal number 9223372036854775808 into field "id" of type int64: out of range`},
		{"non-numeric string", `{"id": "abc"}`, newUser, `[]: cannot unmarshal string "abc" into field "id" of type int64: not a number`},
		{"bool for int", `{"id": true}`, newUser, `[]: cannot unmarshal bool into field "id" of type int64`},
		{"string for bool", `{"is_admin": "true"}`, newUser, `[]: cannot unmarshal string into field "is_admin" of type bool`},
		{"number for string", `{"login": 5}`, newUser, `[]: cannot unmarshal number into field "login" of type string`},
		{"object for string", `{"login": {}}`, newUser, `[]: cannot unmarshal object into field "login" of type string`},
		{"bad time", `{"created": "yesterday"}`, newUser, `[]: cannot unmarshal string "yesterday" into field "created" of type google.protobuf.Timestamp: not an RFC 3339 time`},
		{"number for time", `{"created": 5}`, newUser, `[]: cannot unmarshal number into field "created" of type google.protobuf.Timestamp`},
		{
			"nested path", `{"data": [{}, {"id": "x"}]}`,
			func() proto.Message { return &usersv1.SearchUsersResponse{} },
			`[]: cannot unmarshal string "x" into field "data[1].id" of type int64: not a number`,
		},
		{
			"optional int32 out of range", `{"max_repo_creation": 2147483648}`,
			func() proto.Message { return &adminv1.EditUserRequest{} },
			`[]: cannot unmarshal number 2147483648 into field "max_repo_creation" of type int32: out of range`,
		},
		{"negative uint", `{"u32": -1}`, newKinds, `[]: cannot unmarshal number -1 into field "u32" of type uint32: out of range`},
		{"unknown enum", `{"color": "COLOR_BLUE"}`, newKinds, `[]: cannot unmarshal string "COLOR_BLUE" into field "color" of type giteajson.test.Color: unknown value`},
		{"bad base64", `{"byt": "!!"}`, newKinds, `[]: cannot unmarshal string "!!" into field "byt" of type bytes: invalid base64`},
		{"map value", `{"labels": {"a": 1}}`, newKinds, `[]: cannot unmarshal number into field "labels[a]" of type string`},
		{"map key", `{"by_id": {"x": 1}}`, newKinds, `[]: cannot unmarshal object key "x" into field "by_id" of type map<int64, giteajson.test.Color>`},
		{"deep path", `{"child": {"children": [{"st": {"k": {"v": [1, {"q": 1e999}]}}}]}}`, newKinds,
			`[]: cannot unmarshal number 1e999 into field "child.children[0].st[k][v][1][q]" of type google.protobuf.Value: out of range`},
		{"NaN string", `{"dbl": "NaN"}`, newKinds, `[]: cannot unmarshal string "NaN" into field "dbl" of type double: not a number`},
		{"float32 overflow", `{"flt": 1e39}`, newKinds, `[]: cannot unmarshal number 1e39 into field "flt" of type float: out of range`},
		{"bad duration", `{"dur": "8 hours"}`, newKinds, `[]: cannot unmarshal string "8 hours" into field "dur" of type google.protobuf.Duration: not a duration`},
		{"wrapper type", `{"blw": "no"}`, newKinds, `[]: cannot unmarshal string into field "blw" of type bool`},
		{"struct type", `{"st": []}`, newKinds, `[]: cannot unmarshal array into field "st" of type google.protobuf.Struct`},
		{"any", `{"any": {}}`, func() proto.Message { return newTestMessage(t, "WithAny", ``) },
			`[]: cannot unmarshal into field "any" of type google.protobuf.Any: google.protobuf.Any is not supported`},
	}
	m := New(time.UTC)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := m.Unmarshal([]byte(tt.in), tt.into())
			if err == nil || err.Error() != tt.want {
				t.Errorf("Unmarshal error:\n got %v\nwant %s", err, tt.want)
			}
		})
	}
}

func newUser() proto.Message  { return &usersv1.User{} }
func newKinds() proto.Message { return dynamicpb.NewMessage(kindsFile.Messages().ByName("Kinds")) }

func TestUnmarshalSyntaxErrorIsWrapped(t *testing.T) {
	err := New(nil).Unmarshal([]byte(`{"id": x}`), &usersv1.User{})
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		t.Errorf("error %v does not wrap *json.SyntaxError", err)
	}
}

func TestUnmarshalDepthLimit(t *testing.T) {
	in := `{"val":` + strings.Repeat(`[`, maxDepth+10) + strings.Repeat(`]`, maxDepth+10) + `}`
	err := New(nil).Unmarshal([]byte(in), newKinds())
	if err == nil || !strings.Contains(err.Error(), "exceeded max depth") {
		t.Errorf("err = %v, want max depth error", err)
	}
}

func TestDecoder(t *testing.T) {
	m := New(nil)

	t.Run("empty stream is io.EOF", func(t *testing.T) {
		for _, in := range []string{"", "  \n"} {
			u := &usersv1.User{Id: 1}
			if err := m.NewDecoder(strings.NewReader(in)).Decode(u); err != io.EOF {
				t.Errorf("Decode(%q) = %v, want io.EOF", in, err)
			}
			if u.Id != 1 {
				t.Errorf("message changed")
			}
		}
	})

	t.Run("successive values", func(t *testing.T) {
		d := m.NewDecoder(strings.NewReader(`{"id": 1} {"id": 2}`))
		for _, want := range []int64{1, 2} {
			var u usersv1.User
			if err := d.Decode(&u); err != nil || u.Id != want {
				t.Errorf("Decode = %v, %v; want id %d", &u, err, want)
			}
		}
		if err := d.Decode(&usersv1.User{}); err != io.EOF {
			t.Errorf("Decode at end = %v, want io.EOF", err)
		}
	})

	t.Run("pointer to message pointer", func(t *testing.T) {
		var u *usersv1.User
		if err := m.NewDecoder(strings.NewReader(`{"login": "x"}`)).Decode(&u); err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(u, &usersv1.User{Login: "x"}) {
			t.Errorf("got %v", u)
		}
	})

	t.Run("pointer to message slice", func(t *testing.T) {
		var us []*usersv1.User
		if err := m.NewDecoder(strings.NewReader(`[{"id": 1}, null]`)).Decode(&us); err != nil {
			t.Fatal(err)
		}
		if len(us) != 2 || us[0].GetId() != 1 || !proto.Equal(us[1], &usersv1.User{}) {
			t.Errorf("got %v", us)
		}
		err := m.NewDecoder(strings.NewReader(`[{"id": "x"}]`)).Decode(&us)
		if want := `[]: cannot unmarshal string "x" into field "[0].id" of type int64: not a number`; err == nil || err.Error() != want {
			t.Errorf("err = %v, want %s", err, want)
		}
	})

	t.Run("non-proto values use encoding/json", func(t *testing.T) {
		var v map[string]any
		if err := m.NewDecoder(strings.NewReader(`{"a": 1}`)).Decode(&v); err != nil {
			t.Fatal(err)
		}
		if v["a"] != json.Number("1") {
			t.Errorf("got %#v", v)
		}
		var s string
		err := m.Unmarshal([]byte(`1`), &s)
		if err == nil || !strings.HasPrefix(err.Error(), "[]: ") {
			t.Errorf("err = %v, want [] prefix", err)
		}
	})
}

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		msg  proto.Message
	}{
		{"full user", &usersv1.User{
			Id: 42, Login: "alice", LoginName: "a", SourceId: 3, FullName: "Alice <A&B>\u2028", Email: "a@b",
			AvatarUrl: "u?a=1&b=2", HtmlUrl: "h", Language: "日本語", IsAdmin: true,
			LastLogin: &timestamppb.Timestamp{Seconds: 1731656697}, Created: &timestamppb.Timestamp{Seconds: -62135596800},
			Restricted: true, Active: true, ProhibitLogin: true, Location: "l", Website: "w", Description: "d\n\t\x00",
			Visibility: "private", FollowersCount: 9007199254740993, FollowingCount: -9223372036854775808,
			StarredReposCount: 9223372036854775807, Username: "alice",
		}},
		{"zero user", &usersv1.User{}},
		{"token", &tokensv1.AccessToken{Id: 1, Name: "n", Sha1: "s", TokenLastEight: "e",
			Scopes: []string{"read:user"}, CreatedAt: &timestamppb.Timestamp{}, LastUsedAt: &timestamppb.Timestamp{Seconds: 1}}},
		{"search", &usersv1.SearchUsersResponse{Ok: true, Data: []*usersv1.User{{Id: 1}, {Id: 2, Created: &timestamppb.Timestamp{Seconds: 5}}}}},
		{"edit user", &adminv1.EditUserRequest{Username: "u", Email: proto.String(""), Admin: proto.Bool(false),
			Active: proto.Bool(true), MaxRepoCreation: proto.Int32(-1), Visibility: "limited"}},
		{"create user", &adminv1.CreateUserRequest{Username: "u", MustChangePassword: proto.Bool(false),
			CreatedAt: &timestamppb.Timestamp{Seconds: 253402214399}}},
		{"kinds", newTestMessage(t, "Kinds", fullKindsText)},
	}
	for _, loc := range []*time.Location{time.UTC, tokyo, time.FixedZone("", -5*60*60)} {
		m := New(loc)
		for _, tt := range tests {
			t.Run(tt.name+"/"+loc.String(), func(t *testing.T) {
				data, err := m.Marshal(tt.msg)
				if err != nil {
					t.Fatal(err)
				}
				got := tt.msg.ProtoReflect().New().Interface()
				if err := m.Unmarshal(data, got); err != nil {
					t.Fatalf("Unmarshal(%s): %v", data, err)
				}
				if !proto.Equal(got, tt.msg) {
					t.Errorf("round trip through %s:\n got %v\nwant %v", data, got, tt.msg)
				}
			})
		}
	}
}

// FuzzUnmarshal checks that no input panics the decoder and that whatever it
// accepts can be written back.
func FuzzUnmarshal(f *testing.F) {
	for _, s := range []string{
		`{"i64": "5", "labels": {"a": null}, "st": {"k": [1, {"z": null}]}}`,
		`{"child": {"children": [{"ts": "2024-11-15T16:44:57+09:00", "dur": "1h"}]}}`,
		`{"colors": [1, "COLOR_RED"], "by_id": {"-3": 1}, "byt": "AP9o", "opt_i64": 0}`,
		`{"val": [true, "x", null, 1.5, {}], "lst": [], "dw": 1e300, "flt": "2.5"}`,
		`{"Do": "a", "pick_msg": {"pick_str": "b"}, "empty": {}}`,
		`null`, ``, `[`, `{"i32": 1e3}`,
	} {
		f.Add(s)
	}
	m := New(time.UTC)
	f.Fuzz(func(t *testing.T, in string) {
		msg := newKinds()
		if err := m.Unmarshal([]byte(in), msg); err != nil {
			if !strings.HasPrefix(err.Error(), "[]: ") {
				t.Errorf("error %q lacks the [] prefix", err)
			}
			return
		}
		if _, err := m.Marshal(msg); err != nil {
			t.Errorf("Marshal after Unmarshal(%q): %v", in, err)
		}
	})
}
