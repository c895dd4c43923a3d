// Package vmess compiles V2Ray's JSON settings for a VMess inbound into the
// protobuf Config V2Ray v5 runs (v2ray.core.proxy.vmess.inbound.Config), and
// back.
//
// The JSON is V2Ray v4's format, read with the same matching rules as V2Ray's
// loader (keys case-insensitive, unknown keys ignored, wrong JSON types are
// errors). forge is stricter than V2Ray where V2Ray checks late or not at
// all: see Validate. Every problem is reported, each at its JSON path, as
// Problems.
//
// The binary form is byte-compatible with V2Ray v5's own types: accounts are
// packed with the type URL AccountTypeURL, and read back from that form or
// from V2Ray v4's bare type name.
package vmess
