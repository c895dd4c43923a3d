package giteajson

import (
	"encoding/base64"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/timestamppb"
)

const (
	// Range of google.protobuf.Timestamp: 0001-01-01T00:00:00Z to
	// 9999-12-31T23:59:59Z.
	minTimestamp = -62135596800
	maxTimestamp = 253402300799

	// goZeroTime is Go's zero time.Time, which Gitea writes as
	// 0001-01-01T00:00:00Z whatever its zone.
	goZeroTime = minTimestamp
)

// encoder writes messages; loc is the zone timestamps are written in.
type encoder struct {
	loc *time.Location
}

func (e encoder) message(b []byte, p *messagePlan, m protoreflect.Message) ([]byte, error) {
	if p.wkt != wktNone {
		return e.wellKnown(b, p, m)
	}
	b = append(b, '{')
	var err error
	for i := range p.fields {
		f := &p.fields[i]
		if i == 0 {
			b = append(b, f.key[1:]...)
		} else {
			b = append(b, f.key...)
		}
		if b, err = e.field(b, f, m); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

func (e encoder) field(b []byte, f *fieldPlan, m protoreflect.Message) ([]byte, error) {
	switch {
	case f.list:
		return e.list(b, f, m.Get(f.fd).List())
	case f.isMap:
		return e.mapValue(b, f, m.Get(f.fd).Map())
	case f.presence && !m.Has(f.fd):
		return append(b, "null"...), nil
	}
	return e.value(b, f, m.Get(f.fd))
}

func (e encoder) list(b []byte, f *fieldPlan, l protoreflect.List) ([]byte, error) {
	n := l.Len()
	if n == 0 {
		if f.nullIfEmpty {
			return append(b, "null"...), nil
		}
		return append(b, "[]"...), nil
	}
	b = append(b, '[')
	var err error
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = e.value(b, f, l.Get(i)); err != nil {
			return b, err
		}
	}
	return append(b, ']'), nil
}

type mapEntry struct {
	key string
	val protoreflect.Value
}

func (e encoder) mapValue(b []byte, f *fieldPlan, mp protoreflect.Map) ([]byte, error) {
	if mp.Len() == 0 {
		if f.nullIfEmpty {
			return append(b, "null"...), nil
		}
		return append(b, "{}"...), nil
	}
	entries := make([]mapEntry, 0, mp.Len())
	mp.Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
		var s string
		switch x := k.Interface().(type) {
		case string:
			s = x
		case bool:
			s = strconv.FormatBool(x)
		case int32, int64:
			s = strconv.FormatInt(k.Int(), 10)
		default:
			s = strconv.FormatUint(k.Uint(), 10)
		}
		entries = append(entries, mapEntry{key: s, val: v})
		return true
	})
	slices.SortFunc(entries, func(a, b mapEntry) int { return strings.Compare(a.key, b.key) })
	b = append(b, '{')
	var err error
	for i, ent := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, ent.key)
		b = append(b, ':')
		if b, err = e.value(b, f.mapVal, ent.val); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// value writes one singular value of f's kind.
func (e encoder) value(b []byte, f *fieldPlan, v protoreflect.Value) ([]byte, error) {
	switch f.kind {
	case protoreflect.StringKind:
		return appendString(b, v.String()), nil
	case protoreflect.Int64Kind, protoreflect.Int32Kind, protoreflect.Sint64Kind,
		protoreflect.Sint32Kind, protoreflect.Sfixed64Kind, protoreflect.Sfixed32Kind:
		return strconv.AppendInt(b, v.Int(), 10), nil
	case protoreflect.Uint64Kind, protoreflect.Uint32Kind, protoreflect.Fixed64Kind,
		protoreflect.Fixed32Kind:
		return strconv.AppendUint(b, v.Uint(), 10), nil
	case protoreflect.BoolKind:
		return strconv.AppendBool(b, v.Bool()), nil
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return e.message(b, f.msg, v.Message())
	case protoreflect.DoubleKind:
		return appendFloat(b, v.Float(), 64, f)
	case protoreflect.FloatKind:
		return appendFloat(b, v.Float(), 32, f)
	case protoreflect.BytesKind:
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, v.Bytes())
		return append(b, '"'), nil
	case protoreflect.EnumKind:
		if f.enum.FullName() == "google.protobuf.NullValue" {
			return append(b, "null"...), nil
		}
		n := v.Enum()
		if ev := f.enum.Values().ByNumber(n); ev != nil {
			return appendString(b, string(ev.Name())), nil
		}
		return strconv.AppendInt(b, int64(n), 10), nil
	}
	return b, fmt.Errorf("giteajson: %s: unsupported kind %v", f.fd.FullName(), f.kind)
}

// appendFloat writes f like encoding/json does.
func appendFloat(b []byte, x float64, bits int, f *fieldPlan) ([]byte, error) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return b, fmt.Errorf("giteajson: %s: unsupported value %v", f.fd.FullName(), x)
	}
	format := byte('f')
	if abs := math.Abs(x); abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) ||
			bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b = strconv.AppendFloat(b, x, format, -1, bits)
	if format == 'e' {
		// Clean up e-09 to e-9, as encoding/json does.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

func (e encoder) wellKnown(b []byte, p *messagePlan, m protoreflect.Message) ([]byte, error) {
	switch p.wkt {
	case wktTimestamp:
		var sec int64
		var nsec int32
		if ts, ok := m.Interface().(*timestamppb.Timestamp); ok {
			sec, nsec = ts.GetSeconds(), ts.GetNanos()
		} else {
			sec, nsec = m.Get(p.fields[0].fd).Int(), int32(m.Get(p.fields[1].fd).Int())
		}
		return e.timestamp(b, p, sec, nsec)
	case wktDuration:
		return duration(b, p, m.Get(p.fields[0].fd).Int(), m.Get(p.fields[1].fd).Int())
	case wktWrapper:
		return e.value(b, &p.fields[0], m.Get(p.fields[0].fd))
	case wktStruct:
		return e.mapValue(b, &p.fields[0], m.Get(p.fields[0].fd).Map())
	case wktList:
		return e.list(b, &p.fields[0], m.Get(p.fields[0].fd).List())
	case wktValue:
		fd := m.WhichOneof(p.desc.Oneofs().Get(0))
		if fd == nil {
			return append(b, "null"...), nil
		}
		return e.value(b, p.fieldByNumber(fd.Number()), m.Get(fd))
	case wktEmpty:
		return append(b, "{}"...), nil
	}
	return b, fmt.Errorf("giteajson: %s is not supported", p.desc.FullName())
}

// timestamp writes an RFC 3339 time with second precision in e.loc.
func (e encoder) timestamp(b []byte, p *messagePlan, sec int64, nsec int32) ([]byte, error) {
	if sec < minTimestamp || sec > maxTimestamp || nsec < 0 || nsec >= 1e9 {
		return b, fmt.Errorf("giteajson: %s out of range: %d seconds, %d nanos", p.desc.FullName(), sec, nsec)
	}
	if sec == goZeroTime {
		return append(b, `"0001-01-01T00:00:00Z"`...), nil
	}
	t := time.Unix(sec, 0).In(e.loc)
	if y := t.Year(); y < 0 || y > 9999 {
		return b, fmt.Errorf("giteajson: %s out of range in %s: year %d", p.desc.FullName(), e.loc, y)
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339)
	return append(b, '"'), nil
}

// duration writes a Go duration string such as "8h0m0s".
func duration(b []byte, p *messagePlan, sec, nsec int64) ([]byte, error) {
	const maxSec = math.MaxInt64 / int64(time.Second)
	if sec > maxSec || sec < -maxSec || nsec <= -1e9 || nsec >= 1e9 || (sec > 0 && nsec < 0) || (sec < 0 && nsec > 0) {
		return b, fmt.Errorf("giteajson: %s out of range: %d seconds, %d nanos", p.desc.FullName(), sec, nsec)
	}
	d := time.Duration(sec)*time.Second + time.Duration(nsec)
	b = append(b, '"')
	b = append(b, d.String()...)
	return append(b, '"'), nil
}

// htmlSafe reports the ASCII bytes encoding/json writes unescaped when it
// escapes HTML.
var htmlSafe = func() (t [utf8.RuneSelf]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string exactly as encoding/json does with
// HTML escaping on: <, > and & as \u003c..., U+2028 and U+2029 escaped,
// invalid UTF-8 as \ufffd.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if htmlSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
