package vmess

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"
)

// FuzzCompile: any input gives a Config or Problems, never a panic; and a
// Config that compiles is valid, decompiles, and compiles back to itself.
func FuzzCompile(f *testing.F) {
	for _, v := range goldenVectors {
		f.Add([]byte(v.json))
	}
	for _, c := range compileCases {
		f.Add([]byte(c.json))
	}
	files, err := filepath.Glob("testdata/*.json")
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{``, `{`, `[]`, `null`, `{"clients":[null]}`, `{"inbounds":null}`,
		`{"clients":[{"id":"` + uuidA + `","alterId":1e400}]}`, `{"features":{"detour":{}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		report := Check(data, "")
		cfg, err := Compile(data)
		if err != nil {
			var ps Problems
			if !errors.As(err, &ps) || len(ps) == 0 {
				t.Fatalf("error %v is not a non-empty Problems", err)
			}
			for _, p := range ps {
				if p.Message == "" {
					t.Fatalf("empty message at %q", p.Path)
				}
			}
			if report.Format == FormatJSON && len(report.Problems) == 0 {
				t.Fatalf("Check found no problems; Compile found %v", err)
			}
			return
		}
		if err := Validate(cfg); err != nil {
			t.Fatalf("compiled Config fails Validate: %v", err)
		}
		js, err := Decompile(cfg)
		if err != nil {
			t.Fatalf("compiled Config does not decompile: %v", err)
		}
		again, err := Compile(js)
		if err != nil {
			t.Fatalf("decompiled JSON does not compile: %v\n%s", err, js)
		}
		requireEqual(t, again, cfg)
		bin, err := Marshal(cfg)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Unmarshal(bin)
		if err != nil {
			t.Fatal(err)
		}
		requireEqual(t, back, cfg)
	})
}

// FuzzDecompile: any bytes give a Config or an error, never a panic; and a
// binary Config that passes Validate decompiles to JSON that compiles back
// to it (up to the account's type URL prefix and byte layout).
func FuzzDecompile(f *testing.F) {
	for _, v := range goldenVectors {
		f.Add(v.want)
	}
	f.Add(v4BareNameVector)
	f.Add(v4BareNameVectorWithLegacy())
	f.Add([]byte{0x0a, 0x05, 0x01})
	f.Add([]byte{0x1a, 0x03, 0x0a, 0x01, 0xff})
	f.Add(append([]byte{0x20, 0x01}, unknownField...))
	f.Fuzz(func(t *testing.T, data []byte) {
		Check(data, "")
		cfg, err := Unmarshal(data)
		if err != nil {
			return
		}
		js, decompileErr := Decompile(cfg)
		if Validate(cfg) != nil {
			return
		}
		if decompileErr != nil {
			t.Fatalf("valid Config does not decompile: %v", decompileErr)
		}
		again, err := Compile(js)
		if err != nil {
			t.Fatalf("decompiled JSON does not compile: %v\n%s", err, js)
		}
		requireEqual(t, canonical(t, again), canonical(t, cfg))
		if !proto.Equal(again, canonical(t, again)) {
			t.Fatal("Compile did not pack accounts canonically")
		}
	})
}
