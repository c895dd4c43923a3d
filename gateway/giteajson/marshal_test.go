package giteajson

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	adminv1 "forge/gen/forge/admin/v1"
	tokensv1 "forge/gen/forge/tokens/v1"
	usersv1 "forge/gen/forge/users/v1"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

var tokyo = time.FixedZone("JST", 9*60*60)

// fullUser has every field set; the times are whole seconds plus some
// nanoseconds that must be dropped.
func fullUser() *usersv1.User {
	return &usersv1.User{
		Id:                42,
		Login:             "alice",
		LoginName:         "alice@ldap",
		SourceId:          3,
		FullName:          "Alice <A&B> Liddell",
		Email:             "alice@example.com",
		AvatarUrl:         "http://localhost:3000/avatars/a?s=80&d=x",
		HtmlUrl:           "http://localhost:3000/alice",
		Language:          "en-US",
		IsAdmin:           true,
		LastLogin:         &timestamppb.Timestamp{Seconds: 1731656697, Nanos: 123456789},
		Created:           &timestamppb.Timestamp{Seconds: 1700000000},
		Restricted:        true,
		Active:            true,
		ProhibitLogin:     true,
		Location:          "Wonderland",
		Website:           "https://example.com",
		Description:       "line 1\nline 2\t\"quoted\"",
		Visibility:        "public",
		FollowersCount:    9007199254740993,
		FollowingCount:    -1,
		StarredReposCount: 7,
		Username:          "alice",
	}
}

const fullUserJSON = `{"id":42,"login":"alice","login_name":"alice@ldap","source_id":3,` +
	`"full_name":"Alice \u003cA\u0026B\u003e Liddell","email":"alice@example.com",` +
	`"avatar_url":"http://localhost:3000/avatars/a?s=80\u0026d=x","html_url":"http://localhost:3000/alice",` +
	`"language":"en-US","is_admin":true,"last_login":"2024-11-15T16:44:57+09:00",` +
	`"created":"2023-11-15T07:13:20+09:00","restricted":true,"active":true,"prohibit_login":true,` +
	`"location":"Wonderland","website":"https://example.com","description":"line 1\nline 2\t\"quoted\"",` +
	`"visibility":"public","followers_count":9007199254740993,"following_count":-1,` +
	`"starred_repos_count":7,"max_repo_creation":null,"username":"alice"}`

const zeroUserJSON = `{"id":0,"login":"","login_name":"","source_id":0,"full_name":"","email":"",` +
	`"avatar_url":"","html_url":"","language":"","is_admin":false,"last_login":null,"created":null,` +
	`"restricted":false,"active":false,"prohibit_login":false,"location":"","website":"",` +
	`"description":"","visibility":"","followers_count":0,"following_count":0,` +
	`"starred_repos_count":0,"max_repo_creation":null,"username":""}`

func TestMarshal(t *testing.T) {
	emptyTime := &timestamppb.Timestamp{}
	tests := []struct {
		name string
		in   any
		want string // without the trailing newline
	}{
		{"full user", fullUser(), fullUserJSON},
		{"zero user", &usersv1.User{}, zeroUserJSON},
		{"nil user", (*usersv1.User)(nil), `null`},
		{"nil", nil, `null`},
		{
			"token without scopes",
			&tokensv1.AccessToken{Id: 1, Name: "ci", Sha1: "abc", TokenLastEight: "12345678"},
			`{"id":1,"name":"ci","sha1":"abc","token_last_eight":"12345678","scopes":null,"created_at":null,"last_used_at":null}`,
		},
		{
			"token with empty scopes",
			&tokensv1.AccessToken{Scopes: []string{}},
			`{"id":0,"name":"","sha1":"","token_last_eight":"","scopes":null,"created_at":null,"last_used_at":null}`,
		},
		{
			"token with scopes",
			&tokensv1.AccessToken{Scopes: []string{"read:user", "write:repository"}, CreatedAt: emptyTime},
			`{"id":0,"name":"","sha1":"","token_last_eight":"","scopes":["read:user","write:repository"],"created_at":"1970-01-01T09:00:00+09:00","last_used_at":null}`,
		},
		{
			"search hides total_count, empty data is []",
			&usersv1.SearchUsersResponse{Ok: true, TotalCount: 99},
			`{"ok":true,"data":[]}`,
		},
		{
			"search with users",
			&usersv1.SearchUsersResponse{Ok: true, Data: []*usersv1.User{{}}, TotalCount: 1},
			`{"ok":true,"data":[` + zeroUserJSON + `]}`,
		},
		{"user slice", []*usersv1.User{fullUser(), {}}, `[` + fullUserJSON + `,` + zeroUserJSON + `]`},
		{"user slice with nil", []*usersv1.User{nil}, `[null]`},
		{"empty user slice", []*usersv1.User{}, `[]`},
		{"nil user slice", []*usersv1.User(nil), `[]`},
		{"user map", map[string]*usersv1.User{"b": {}, "a": nil}, `{"a":null,"b":` + zeroUserJSON + `}`},
		{
			"optional fields unset",
			&adminv1.EditUserRequest{Username: "bob"},
			`{"username":"bob","source_id":0,"login_name":"","email":null,"full_name":null,"password":"",` +
				`"must_change_password":null,"website":null,"location":null,"description":null,"active":null,` +
				`"admin":null,"allow_git_hook":null,"allow_import_local":null,"max_repo_creation":null,` +
				`"prohibit_login":null,"allow_create_organization":null,"restricted":null,"visibility":""}`,
		},
		{
			"optional fields set to zero",
			&adminv1.EditUserRequest{Email: proto.String(""), Admin: proto.Bool(false), MaxRepoCreation: proto.Int32(0)},
			`{"username":"","source_id":0,"login_name":"","email":"","full_name":null,"password":"",` +
				`"must_change_password":null,"website":null,"location":null,"description":null,"active":null,` +
				`"admin":false,"allow_git_hook":null,"allow_import_local":null,"max_repo_creation":0,` +
				`"prohibit_login":null,"allow_create_organization":null,"restricted":null,"visibility":""}`,
		},
		{"top-level timestamp", timestamppb.New(time.Date(2024, 11, 15, 7, 44, 57, 999999999, time.UTC)), `"2024-11-15T16:44:57+09:00"`},
		{"go zero time keeps Z", &timestamppb.Timestamp{Seconds: -62135596800}, `"0001-01-01T00:00:00Z"`},
		{"duration", durationpb.New(8 * time.Hour), `"8h0m0s"`},
		{"negative duration", durationpb.New(-1500 * time.Millisecond), `"-1.5s"`},
		{"int64 wrapper", wrapperspb.Int64(1 << 60), `1152921504606846976`},
		{"string wrapper", wrapperspb.String("<x>"), `"\u003cx\u003e"`},
		{"bool wrapper", wrapperspb.Bool(false), `false`},
		{"bytes wrapper", wrapperspb.Bytes([]byte{0xfb, 0xff}), `"+/8="`},
		{"empty", &emptypb.Empty{}, `{}`},
		{"struct", mustStruct(t, map[string]any{"z": nil, "a": []any{1.5, "s", true, map[string]any{}}}), `{"a":[1.5,"s",true,{}],"z":null}`},
		{"empty value", &structpb.Value{}, `null`},
		{"non-message falls back to encoding/json", map[string]any{"message": "<b>", "url": "u"}, `{"message":"\u003cb\u003e","url":"u"}`},
		{"enum", structpb.NullValue_NULL_VALUE, `"NULL_VALUE"`},
		{"enum slice, unknown number", []structpb.NullValue{0, 5}, `["NULL_VALUE",5]`},
		{"nil string slice", []string(nil), `[]`},
		{"string slice", []string{"a"}, `["a"]`},
	}
	m := New(tokyo)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := m.Marshal(tt.in)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			if want := tt.want + "\n"; string(got) != want {
				t.Errorf("Marshal:\n got %s\nwant %s", got, want)
			}
			var buf bytes.Buffer
			if err := m.NewEncoder(&buf).Encode(tt.in); err != nil {
				t.Fatalf("Encode: %v", err)
			}
			if buf.String() != string(got) {
				t.Errorf("Encode differs from Marshal:\n got %s\nwant %s", buf.String(), got)
			}
			if !json.Valid(got) {
				t.Errorf("invalid JSON: %s", got)
			}
		})
	}
}

func mustStruct(t *testing.T, v map[string]any) *structpb.Struct {
	t.Helper()
	s, err := structpb.NewStruct(v)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestMarshalLocation(t *testing.T) {
	ts := &usersv1.User{Created: &timestamppb.Timestamp{Seconds: 1731656697, Nanos: 5}}
	tests := []struct {
		loc  *time.Location
		want string
	}{
		{time.UTC, `"2024-11-15T07:44:57Z"`},
		{tokyo, `"2024-11-15T16:44:57+09:00"`},
		{time.FixedZone("", -(3*60*60 + 30*60)), `"2024-11-15T04:14:57-03:30"`},
		{nil, `"` + time.Unix(1731656697, 0).In(time.Local).Format(time.RFC3339) + `"`},
	}
	for _, tt := range tests {
		got, err := New(tt.loc).Append(nil, ts)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(got, []byte(`"created":`+tt.want)) {
			t.Errorf("loc %v: got %s, want created %s", tt.loc, got, tt.want)
		}
	}
}

func TestMarshalErrors(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"NaN", &structpb.Value{Kind: &structpb.Value_NumberValue{NumberValue: math.NaN()}}, "unsupported value NaN"},
		{"Inf", wrapperspb.Double(math.Inf(1)), "unsupported value +Inf"},
		{"timestamp out of range", &timestamppb.Timestamp{Seconds: 253402300800}, "out of range"},
		{"timestamp bad nanos", &timestamppb.Timestamp{Nanos: -1}, "out of range"},
		{"duration overflow", &durationpb.Duration{Seconds: 1 << 62}, "out of range"},
		{"any", newTestMessage(t, "WithAny", `any {}`), "google.protobuf.Any is not supported"},
	}
	m := New(time.UTC)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := m.Marshal(tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Marshal = %s, %v; want error containing %q", got, err, tt.want)
			}
		})
	}
}

const zeroKindsJSON = `{"i32":0,"i64":0,"u32":0,"u64":0,"s32":0,"s64":0,"f32":0,"f64":0,"sf32":0,"sf64":0,` +
	`"flt":0,"dbl":0,"bl":false,"str":"","byt":"","color":"COLOR_UNSPECIFIED","Do":"","merge_title":"",` +
	`"colors":[],"labels":{},"by_id":null,"child":null,"children":[],"ts":null,"dur":null,"i64w":null,` +
	`"strw":null,"blw":null,"st":null,"val":null,"lst":null,"empty":null,"opt_i64":null,"pick_str":null,` +
	`"pick_msg":null,"bytes_list":[],"dw":null}`

const fullKindsText = `
i32: -5 i64: 9007199254740993 u32: 4294967295 u64: 18446744073709551615
s32: -7 s64: -9223372036854775808 f32: 7 f64: 8 sf32: -9 sf64: -10
flt: 1.5 dbl: 1e-7 bl: true str: "<&>" byt: "\x00\xffhi" color: COLOR_RED
do: "yes" merge_title: "t"
colors: [COLOR_RED, COLOR_UNSPECIFIED, 7]
labels { key: "b" value: "2" } labels { key: "a" value: "1" } labels { key: "é" value: "3" }
by_id { key: 10 value: COLOR_RED } by_id { key: 2 value: COLOR_UNSPECIFIED } by_id { key: -1 value: COLOR_RED }
child { str: "c" }
children { i32: 1 }
ts { seconds: 1731656697 }
dur { seconds: 28800 }
i64w { value: 9007199254740993 }
strw { value: "" }
blw { value: false }
st {
  fields { key: "b" value { list_value { values { number_value: 1 } values { string_value: "x" } values { null_value: NULL_VALUE } } } }
  fields { key: "a" value { struct_value { fields { key: "n" value { bool_value: true } } } } }
}
val { number_value: 2.5 }
lst { values { bool_value: false } }
empty {}
opt_i64: 0
pick_str: "p"
bytes_list: ["a", ""]
dw { value: 0.1 }
`

// TestMarshalKinds checks every field of the test schema: key order and each
// value.
func TestMarshalKinds(t *testing.T) {
	m := New(tokyo)
	zero, err := m.Marshal(newTestMessage(t, "Kinds", ``))
	if err != nil {
		t.Fatal(err)
	}
	if string(zero) != zeroKindsJSON+"\n" {
		t.Errorf("zero Kinds:\n got %s\nwant %s", zero, zeroKindsJSON)
	}

	full := newTestMessage(t, "Kinds", fullKindsText+` hidden: "secret"`)
	got, err := m.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ key, val string }{
		{"i32", `-5`},
		{"i64", `9007199254740993`},
		{"u32", `4294967295`},
		{"u64", `18446744073709551615`},
		{"s32", `-7`},
		{"s64", `-9223372036854775808`},
		{"f32", `7`},
		{"f64", `8`},
		{"sf32", `-9`},
		{"sf64", `-10`},
		{"flt", `1.5`},
		{"dbl", `1e-7`},
		{"bl", `true`},
		{"str", `"\u003c\u0026\u003e"`},
		{"byt", `"AP9oaQ=="`},
		{"color", `"COLOR_RED"`},
		{"Do", `"yes"`},        // explicit json_name
		{"merge_title", `"t"`}, // json_name equal to protoc's default is not explicit
		{"colors", `["COLOR_RED","COLOR_UNSPECIFIED",7]`},
		{"labels", `{"a":"1","b":"2","é":"3"}`},
		{"by_id", `{"-1":"COLOR_RED","10":"COLOR_RED","2":"COLOR_UNSPECIFIED"}`},
		{"child", strings.Replace(zeroKindsJSON, `"str":""`, `"str":"c"`, 1)},
		{"children", `[` + strings.Replace(zeroKindsJSON, `"i32":0`, `"i32":1`, 1) + `]`},
		{"ts", `"2024-11-15T16:44:57+09:00"`},
		{"dur", `"8h0m0s"`},
		{"i64w", `9007199254740993`},
		{"strw", `""`},
		{"blw", `false`},
		{"st", `{"a":{"n":true},"b":[1,"x",null]}`},
		{"val", `2.5`},
		{"lst", `[false]`},
		{"empty", `{}`},
		{"opt_i64", `0`},
		{"pick_str", `"p"`},
		{"pick_msg", `null`},
		{"bytes_list", `["YQ==",""]`},
		{"dw", `0.1`},
	}
	keys, vals := topLevel(t, got)
	if len(keys) != len(want) {
		t.Fatalf("got keys %q, want %d keys", keys, len(want))
	}
	for i, w := range want {
		if keys[i] != w.key {
			t.Errorf("key %d = %q, want %q", i, keys[i], w.key)
		}
		if vals[w.key] != w.val {
			t.Errorf("%s = %s, want %s", w.key, vals[w.key], w.val)
		}
	}
}

// topLevel returns the keys of a JSON object in order and their raw values.
func topLevel(t *testing.T, data []byte) ([]string, map[string]string) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", data)
	}
	var keys []string
	vals := map[string]string{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		vals[tok.(string)] = string(raw)
	}
	return keys, vals
}

// stringCorpus holds strings whose escaping must match encoding/json.
var stringCorpus = []string{
	"",
	"plain ascii",
	`<script>alert("x & y")</script>`,
	"quote \" backslash \\ slash /",
	"\b\f\n\r\t",
	"\x00\x01\x1f\x7f",
	"line\u2028sep\u2029para",
	"日本語 テキスト",
	"emoji 😀 and ü",
	"invalid \xff\xfe bytes",
	"truncated \xe6\x97",
	"surrogate \xed\xa0\x80 half",
	"overlong \xc0\xaf",
	"\xf4\x90\x80\x80 beyond U+10FFFF",
	"mixed <\xff>&\u2028",
	"\ufffd literal replacement char",
	"'single' `back`",
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range stringCorpus {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendString(nil, s); string(got) != string(want) {
			t.Errorf("appendString(%q) = %s, want %s", s, got, want)
		}
	}
	// The same strings inside a message, as field values.
	m := New(time.UTC)
	for _, s := range stringCorpus {
		got, err := m.Append(nil, &tokensv1.AccessToken{Name: s})
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(s)
		if !bytes.Contains(got, append([]byte(`"name":`), want...)) {
			t.Errorf("AccessToken{Name: %q} = %s, want name %s", s, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range stringCorpus {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); string(got) != string(want) {
			t.Errorf("appendString(%q) = %s, want %s", s, got, want)
		}
	})
}

func TestAppendFloatMatchesEncodingJSON(t *testing.T) {
	floats := []float64{0, 1, -1, 0.1, 1.5, 1e-6, 1e-7, 123456789, 1e20, 1e21, 1e-300,
		math.MaxFloat64, math.SmallestNonzeroFloat64, -2.5e-8, 3.0000001, math.Pi}
	f64 := &fieldPlan{}
	for _, x := range floats {
		want, _ := json.Marshal(x)
		got, err := appendFloat(nil, x, 64, f64)
		if err != nil || string(got) != string(want) {
			t.Errorf("appendFloat(%v, 64) = %s, %v; want %s", x, got, err, want)
		}
		x32 := float32(x)
		if math.IsInf(float64(x32), 0) {
			continue
		}
		want, _ = json.Marshal(x32)
		got, err = appendFloat(nil, float64(x32), 32, f64)
		if err != nil || string(got) != string(want) {
			t.Errorf("appendFloat(%v, 32) = %s, %v; want %s", x32, got, err, want)
		}
	}
}

func TestContentType(t *testing.T) {
	if got := New(nil).ContentType(&usersv1.User{}); got != "application/json;charset=utf-8" {
		t.Errorf("ContentType = %q", got)
	}
}

func TestAppendKeepsPrefix(t *testing.T) {
	got, err := New(time.UTC).Append([]byte("x="), &tokensv1.DeleteAccessTokenResponse{})
	if err != nil || string(got) != "x={}" {
		t.Errorf("Append = %q, %v", got, err)
	}
}
