// Package giteajson writes and reads protobuf messages as the JSON that
// Gitea's API v1 speaks, for grpc-gateway (see Marshaler) or on its own.
//
// Output, unlike protojson: keys are proto field names (or an explicit
// json_name), in declaration order; every field is written, zero values
// included; 64-bit integers are numbers; unset message fields and unset
// proto3 optional fields are null; empty repeated fields are [] (null with
// the forge.options.v1.null_if_empty option); map keys are sorted; fields
// with forge.options.v1.rest_hidden are left out; strings are escaped like
// encoding/json, HTML characters included; Timestamps are RFC 3339 with
// second precision in the marshaler's zone (Go's zero time is always
// 0001-01-01T00:00:00Z, as Gitea writes it); Durations are Go duration
// strings; wrappers are bare values.
//
// Input follows encoding/json: keys match field names case-insensitively,
// unknown keys are ignored, null leaves a field unset, and integers may also
// come as numeric strings. Errors read like Gitea's binding errors:
// "[]: <reason>".
package giteajson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// ContentType is what Gitea sends with every JSON body.
const ContentType = "application/json;charset=utf-8"

// Marshaler is a grpc-gateway runtime.Marshaler producing Gitea's JSON.
// It is safe for concurrent use.
type Marshaler struct {
	enc encoder
}

var _ runtime.Marshaler = (*Marshaler)(nil)

// New returns a Marshaler that writes timestamps in loc (time.Local when nil).
func New(loc *time.Location) *Marshaler {
	if loc == nil {
		loc = time.Local
	}
	return &Marshaler{enc: encoder{loc: loc}}
}

// ContentType returns ContentType whatever v is.
func (*Marshaler) ContentType(any) string { return ContentType }

// Append appends the JSON form of msg to b, without a trailing newline. A nil
// msg is written as null.
func (m *Marshaler) Append(b []byte, msg proto.Message) ([]byte, error) {
	if msg == nil {
		return append(b, "null"...), nil
	}
	pm := msg.ProtoReflect()
	if !pm.IsValid() {
		return append(b, "null"...), nil
	}
	return m.enc.message(b, planFor(pm.Descriptor()), pm)
}

// Marshal returns the JSON form of v followed by a newline. v may be a
// proto.Message, a protobuf enum, or a slice or map of either (what
// grpc-gateway passes for response_body on a repeated field), which becomes a
// JSON array or object; a nil slice is []. Anything else is written by
// encoding/json.
func (m *Marshaler) Marshal(v any) ([]byte, error) {
	bp := getBuffer()
	b, err := m.appendAny((*bp)[:0], v)
	if err != nil {
		putBuffer(bp, b)
		return nil, err
	}
	b = append(b, '\n')
	out := slices.Clone(b)
	putBuffer(bp, b)
	return out, nil
}

// NewEncoder returns an Encoder writing each value as Marshal does.
func (m *Marshaler) NewEncoder(w io.Writer) runtime.Encoder {
	return runtime.EncoderFunc(func(v any) error {
		bp := getBuffer()
		b, err := m.appendAny((*bp)[:0], v)
		if err == nil {
			b = append(b, '\n')
			_, err = w.Write(b)
		}
		putBuffer(bp, b)
		return err
	})
}

// Unmarshal reads one JSON value into v (see Decode); an empty or all-space
// data leaves v untouched. Data after the value is an error.
func (m *Marshaler) Unmarshal(data []byte, v any) error {
	d := newDecoder(bytes.NewReader(data))
	if err := d.decode(v); err != nil {
		if err == io.EOF {
			return nil
		}
		return err
	}
	if _, err := d.dec.Token(); err != io.EOF {
		return errorf("invalid data after top-level value")
	}
	return nil
}

// NewDecoder returns a Decoder reading successive JSON values from r. Decode
// returns io.EOF when r holds no more values, which grpc-gateway takes as an
// empty body.
//
// Decoding into a proto.Message (or a pointer to a message pointer, or to a
// slice of message pointers) merges into it: present keys overwrite fields,
// arrays replace repeated fields, objects merge into message and map fields.
// Other values are decoded by encoding/json.
func (m *Marshaler) NewDecoder(r io.Reader) runtime.Decoder {
	d := newDecoder(r)
	return runtime.DecoderFunc(d.decode)
}

var (
	messageType = reflect.TypeFor[proto.Message]()
	enumType    = reflect.TypeFor[protoreflect.Enum]()
)

func (m *Marshaler) appendAny(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case proto.Message:
		return m.Append(b, v)
	case protoreflect.Enum:
		return appendEnum(b, v), nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice:
		if et := rv.Type().Elem(); et.Implements(messageType) || et.Implements(enumType) {
			return m.appendSlice(b, rv)
		}
		if rv.IsNil() && rv.Type().Elem().Kind() != reflect.Uint8 {
			return append(b, "[]"...), nil
		}
	case reflect.Map:
		if et := rv.Type().Elem(); et.Implements(messageType) || et.Implements(enumType) {
			return m.appendMap(b, rv)
		}
		if rv.IsNil() {
			// A map body (GET /languages) is an object even when empty:
			// an empty proto map arrives as nil.
			return append(b, "{}"...), nil
		}
	}
	j, err := json.Marshal(v)
	return append(b, j...), err
}

func (m *Marshaler) appendSlice(b []byte, rv reflect.Value) ([]byte, error) {
	b = append(b, '[')
	var p *messagePlan
	for i := range rv.Len() {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		switch x := rv.Index(i).Interface().(type) {
		case proto.Message:
			pm := x.ProtoReflect()
			if !pm.IsValid() {
				b = append(b, "null"...)
				continue
			}
			if p == nil || p.desc != pm.Descriptor() {
				p = planFor(pm.Descriptor())
			}
			b, err = m.enc.message(b, p, pm)
		case protoreflect.Enum:
			b = appendEnum(b, x)
		default:
			b = append(b, "null"...)
		}
		if err != nil {
			return b, err
		}
	}
	return append(b, ']'), nil
}

func (m *Marshaler) appendMap(b []byte, rv reflect.Value) ([]byte, error) {
	keys := rv.MapKeys()
	type entry struct {
		key string
		val any
	}
	entries := make([]entry, 0, len(keys))
	for _, k := range keys {
		var ks string
		switch k.Kind() {
		case reflect.String:
			ks = k.String()
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			ks = strconv.FormatInt(k.Int(), 10)
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			ks = strconv.FormatUint(k.Uint(), 10)
		case reflect.Bool:
			ks = strconv.FormatBool(k.Bool())
		default:
			return b, fmt.Errorf("giteajson: unsupported map key type %s", k.Type())
		}
		entries = append(entries, entry{ks, rv.MapIndex(k).Interface()})
	}
	slices.SortFunc(entries, func(x, y entry) int { return strings.Compare(x.key, y.key) })
	b = append(b, '{')
	for i, ent := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, ent.key)
		b = append(b, ':')
		var err error
		if b, err = m.appendAny(b, ent.val); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

func appendEnum(b []byte, e protoreflect.Enum) []byte {
	n := e.Number()
	if ev := e.Descriptor().Values().ByNumber(n); ev != nil {
		return appendString(b, string(ev.Name()))
	}
	return strconv.AppendInt(b, int64(n), 10)
}

// Output buffers are pooled; a buffer that grew past maxPooled is dropped
// rather than kept alive.
const maxPooled = 1 << 20

var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

func getBuffer() *[]byte { return buffers.Get().(*[]byte) }

func putBuffer(bp *[]byte, b []byte) {
	if cap(b) > maxPooled {
		return
	}
	*bp = b[:0]
	buffers.Put(bp)
}
