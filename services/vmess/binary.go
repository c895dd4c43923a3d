package vmess

import (
	"bytes"
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/proto"

	"forge/gen/v2ray/core/proxy/vmess/inbound"
)

// Marshal encodes cfg in protobuf binary form: the bytes V2Ray's own
// generated types write for the same Config.
func Marshal(cfg *inbound.Config) ([]byte, error) {
	return proto.MarshalOptions{Deterministic: true}.Marshal(cfg)
}

// Unmarshal decodes a binary Config. Accounts stay packed (see
// UnpackAccount) and unknown fields are kept; Validate reports them.
func Unmarshal(data []byte) (*inbound.Config, error) {
	cfg := &inbound.Config{}
	if err := proto.Unmarshal(data, cfg); err != nil {
		return nil, fmt.Errorf("not a binary VMess inbound Config: %w", err)
	}
	return cfg, nil
}

// Format is the form of an input: JSON or binary protobuf.
type Format string

// The two forms Check reads.
const (
	FormatJSON   Format = "json"
	FormatBinary Format = "binary"
)

// DetectFormat tells the JSON form from the binary one. Input is JSON when
// it is valid JSON, or when it starts with "{" (after white space) and is not
// a valid binary Config either, so that broken JSON gets a JSON error.
// Anything else, empty input included (an empty Config), is binary. A binary
// Config is never valid JSON unless its users hold nothing but unknown
// fields: the tags and lengths of the known ones are control bytes, which
// JSON does not allow.
func DetectFormat(data []byte) Format {
	if json.Valid(data) {
		return FormatJSON
	}
	rest := bytes.TrimLeft(data, " \t\r\n")
	if len(rest) > 0 && rest[0] == '{' {
		if _, err := Unmarshal(data); err != nil {
			return FormatJSON
		}
	}
	return FormatBinary
}

// Report is what Check found.
type Report struct {
	Format Format
	// Config is as much as could be read, even when there are problems; nil
	// when the input could not be read at all.
	Config   *inbound.Config
	Problems Problems
}

// Check reads either form (see DetectFormat) and reports every problem:
// CompileTag's for JSON, Unmarshal's or Validate's for binary. tag selects a
// VMess inbound in a JSON config file, as in CompileTag.
func Check(data []byte, tag string) Report {
	if DetectFormat(data) == FormatJSON {
		cfg, problems := compile(data, tag)
		return Report{Format: FormatJSON, Config: cfg, Problems: problems}
	}
	report := Report{Format: FormatBinary}
	if tag != "" {
		report.Problems.add("", "a tag (%q) applies to a JSON config file, and this is the binary form", tag)
		return report
	}
	cfg, err := Unmarshal(data)
	if err != nil {
		report.Problems.add("", "%v", err)
		return report
	}
	report.Config = cfg
	report.Problems = validate(cfg).sorted()
	return report
}
