package giteajson

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// maxDepth bounds message nesting on input, as encoding/json bounds nesting.
const maxDepth = 10000

// decoder maps a stream of JSON tokens onto protobuf messages. path tracks
// where in the document it is, for error messages.
type decoder struct {
	dec   *json.Decoder
	path  []pathElem
	depth int
}

// pathElem is a field name (index -1), a map key (index -2) or a list index.
type pathElem struct {
	name  string
	index int
}

func newDecoder(r io.Reader) *decoder {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	return &decoder{dec: dec}
}

// errorf returns an error worded like Gitea's binding errors.
func errorf(format string, args ...any) error {
	return fmt.Errorf("[]: "+format, args...)
}

// decode reads the next JSON value into v. It returns io.EOF, unwrapped, when
// the stream holds no more values.
func (d *decoder) decode(v any) error {
	d.path, d.depth = d.path[:0], 0
	if msg, ok := v.(proto.Message); ok {
		pm := msg.ProtoReflect()
		if !pm.IsValid() {
			return errorf("cannot decode into a nil %T", v)
		}
		return d.top(func(tok json.Token) error { return d.message(planFor(pm.Descriptor()), pm, tok) })
	}

	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() {
		e := rv.Elem()
		switch {
		case e.Kind() == reflect.Pointer && e.Type().Implements(messageType):
			return d.top(func(tok json.Token) error {
				if e.IsNil() {
					e.Set(reflect.New(e.Type().Elem()))
				}
				pm := e.Interface().(proto.Message).ProtoReflect()
				return d.message(planFor(pm.Descriptor()), pm, tok)
			})
		case e.Kind() == reflect.Slice && e.Type().Elem().Kind() == reflect.Pointer &&
			e.Type().Elem().Implements(messageType):
			return d.top(func(tok json.Token) error { return d.messageSlice(e, tok) })
		}
	}

	if err := d.dec.Decode(v); err != nil {
		if err == io.EOF {
			return err
		}
		return fmt.Errorf("[]: %w", err)
	}
	return nil
}

// top reads the first token of a value and hands it to fill unless it is
// null.
func (d *decoder) top(fill func(json.Token) error) error {
	tok, err := d.dec.Token()
	if err != nil {
		if err == io.EOF {
			return err
		}
		return fmt.Errorf("[]: %w", err)
	}
	if tok == nil {
		return nil
	}
	return fill(tok)
}

// token reads the next token inside a value, where the end of the input is
// unexpected.
func (d *decoder) token() (json.Token, error) {
	tok, err := d.dec.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("[]: %w", err)
	}
	return tok, nil
}

// messageSlice fills a *[]*T from a JSON array.
func (d *decoder) messageSlice(s reflect.Value, tok json.Token) error {
	if tok != json.Delim('[') {
		return d.mismatch(tok, "repeated "+s.Type().Elem().String())
	}
	out := reflect.MakeSlice(s.Type(), 0, 0)
	for i := 0; ; i++ {
		tok, err := d.token()
		if err != nil {
			return err
		}
		if tok == json.Delim(']') {
			s.Set(out)
			return nil
		}
		el := reflect.New(s.Type().Elem().Elem())
		if tok != nil {
			pm := el.Interface().(proto.Message).ProtoReflect()
			d.path = append(d.path, pathElem{index: i})
			err = d.message(planFor(pm.Descriptor()), pm, tok)
			d.path = d.path[:len(d.path)-1]
			if err != nil {
				return err
			}
		}
		out = reflect.Append(out, el)
	}
}

// message fills m from the value starting with tok (never null).
func (d *decoder) message(p *messagePlan, m protoreflect.Message, tok json.Token) error {
	if d.depth++; d.depth > maxDepth {
		return errorf("exceeded max depth of %d", maxDepth)
	}
	defer func() { d.depth-- }()
	if p.wkt != wktNone {
		return d.wellKnown(p, m, tok)
	}
	if tok != json.Delim('{') {
		return d.mismatch(tok, string(p.desc.FullName()))
	}
	for {
		tok, err := d.token()
		if err != nil {
			return err
		}
		if tok == json.Delim('}') {
			return nil
		}
		key, _ := tok.(string)
		if tok, err = d.token(); err != nil {
			return err
		}
		f := p.lookup(key)
		if f == nil {
			if err := d.skip(tok); err != nil {
				return err
			}
			continue
		}
		d.path = append(d.path, pathElem{name: f.name, index: -1})
		err = d.field(f, m, tok)
		d.path = d.path[:len(d.path)-1]
		if err != nil {
			return err
		}
	}
}

// field sets f in m from the value starting with tok; null leaves it unset.
func (d *decoder) field(f *fieldPlan, m protoreflect.Message, tok json.Token) error {
	if tok == nil {
		return nil
	}
	switch {
	case f.list:
		if tok != json.Delim('[') {
			return d.mismatch(tok, fieldType(f))
		}
		m.Clear(f.fd)
		l := m.Mutable(f.fd).List()
		for i := 0; ; i++ {
			tok, err := d.token()
			if err != nil {
				return err
			}
			if tok == json.Delim(']') {
				return nil
			}
			d.path = append(d.path, pathElem{index: i})
			v, err := d.element(f, tok, l.NewElement)
			d.path = d.path[:len(d.path)-1]
			if err != nil {
				return err
			}
			l.Append(v)
		}
	case f.isMap:
		if tok != json.Delim('{') {
			return d.mismatch(tok, fieldType(f))
		}
		mp := m.Mutable(f.fd).Map()
		for {
			tok, err := d.token()
			if err != nil {
				return err
			}
			if tok == json.Delim('}') {
				return nil
			}
			key, _ := tok.(string)
			if tok, err = d.token(); err != nil {
				return err
			}
			k, err := d.mapKey(f, key)
			if err != nil {
				return err
			}
			d.path = append(d.path, pathElem{name: key, index: -2})
			v, err := d.element(f.mapVal, tok, mp.NewValue)
			d.path = d.path[:len(d.path)-1]
			if err != nil {
				return err
			}
			mp.Set(k, v)
		}
	case f.msg != nil:
		return d.message(f.msg, m.Mutable(f.fd).Message(), tok)
	}
	v, err := d.scalar(f, tok)
	if err != nil {
		return err
	}
	m.Set(f.fd, v)
	return nil
}

// mapKey converts a JSON object key to a key of f's map.
func (d *decoder) mapKey(f *fieldPlan, key string) (protoreflect.MapKey, error) {
	switch kind := f.fd.MapKey().Kind(); kind {
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(key).MapKey(), nil
	case protoreflect.BoolKind:
		switch key {
		case "true":
			return protoreflect.ValueOfBool(true).MapKey(), nil
		case "false":
			return protoreflect.ValueOfBool(false).MapKey(), nil
		}
	default:
		if v, err := d.scalar(&fieldPlan{fd: f.fd.MapKey(), kind: kind}, key); err == nil {
			return v.MapKey(), nil
		}
	}
	return protoreflect.MapKey{}, errorf("cannot unmarshal object key %s into %s", quote(key), d.target(fieldType(f)))
}

// element reads one list element or map value; null is the zero value.
func (d *decoder) element(f *fieldPlan, tok json.Token, newValue func() protoreflect.Value) (protoreflect.Value, error) {
	if f.msg != nil {
		v := newValue()
		if tok == nil && f.msg.wkt != wktValue {
			return v, nil
		}
		return v, d.message(f.msg, v.Message(), tok)
	}
	if tok == nil {
		return newValue(), nil
	}
	return d.scalar(f, tok)
}

// scalar converts tok (never null) to a value of f's (non-message) kind.
func (d *decoder) scalar(f *fieldPlan, tok json.Token) (protoreflect.Value, error) {
	switch f.kind {
	case protoreflect.StringKind:
		if s, ok := tok.(string); ok {
			return protoreflect.ValueOfString(s), nil
		}
	case protoreflect.BoolKind:
		if b, ok := tok.(bool); ok {
			return protoreflect.ValueOfBool(b), nil
		}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		if s, ok := numberText(tok); ok {
			n, err := parseInt(s, 32)
			if err != nil {
				return protoreflect.Value{}, d.badValue(tok, elemType(f), err)
			}
			return protoreflect.ValueOfInt32(int32(n)), nil
		}
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		if s, ok := numberText(tok); ok {
			n, err := parseInt(s, 64)
			if err != nil {
				return protoreflect.Value{}, d.badValue(tok, elemType(f), err)
			}
			return protoreflect.ValueOfInt64(n), nil
		}
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		if s, ok := numberText(tok); ok {
			n, err := parseUint(s, 32)
			if err != nil {
				return protoreflect.Value{}, d.badValue(tok, elemType(f), err)
			}
			return protoreflect.ValueOfUint32(uint32(n)), nil
		}
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		if s, ok := numberText(tok); ok {
			n, err := parseUint(s, 64)
			if err != nil {
				return protoreflect.Value{}, d.badValue(tok, elemType(f), err)
			}
			return protoreflect.ValueOfUint64(n), nil
		}
	case protoreflect.FloatKind:
		if s, ok := numberText(tok); ok {
			x, err := parseFloat(s, 32)
			if err != nil {
				return protoreflect.Value{}, d.badValue(tok, elemType(f), err)
			}
			return protoreflect.ValueOfFloat32(float32(x)), nil
		}
	case protoreflect.DoubleKind:
		if s, ok := numberText(tok); ok {
			x, err := parseFloat(s, 64)
			if err != nil {
				return protoreflect.Value{}, d.badValue(tok, elemType(f), err)
			}
			return protoreflect.ValueOfFloat64(x), nil
		}
	case protoreflect.BytesKind:
		if s, ok := tok.(string); ok {
			b, err := decodeBase64(s)
			if err != nil {
				return protoreflect.Value{}, d.badValue(tok, elemType(f), errors.New("invalid base64"))
			}
			return protoreflect.ValueOfBytes(b), nil
		}
	case protoreflect.EnumKind:
		switch t := tok.(type) {
		case string:
			if ev := f.enum.Values().ByName(protoreflect.Name(t)); ev != nil {
				return protoreflect.ValueOfEnum(ev.Number()), nil
			}
			if n, err := strconv.ParseInt(t, 10, 32); err == nil {
				return protoreflect.ValueOfEnum(protoreflect.EnumNumber(n)), nil
			}
			return protoreflect.Value{}, d.badValue(tok, elemType(f), errors.New("unknown value"))
		case json.Number:
			n, err := parseInt(string(t), 32)
			if err != nil {
				return protoreflect.Value{}, d.badValue(tok, elemType(f), err)
			}
			return protoreflect.ValueOfEnum(protoreflect.EnumNumber(n)), nil
		}
	}
	return protoreflect.Value{}, d.mismatch(tok, elemType(f))
}

func (d *decoder) wellKnown(p *messagePlan, m protoreflect.Message, tok json.Token) error {
	name := string(p.desc.FullName())
	switch p.wkt {
	case wktTimestamp:
		s, ok := tok.(string)
		if !ok {
			return d.mismatch(tok, name)
		}
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return d.badValue(tok, name, errors.New("not an RFC 3339 time"))
		}
		if sec := t.Unix(); sec < minTimestamp || sec > maxTimestamp {
			return d.badValue(tok, name, errors.New("out of range"))
		}
		m.Set(p.fieldByNumber(1).fd, protoreflect.ValueOfInt64(t.Unix()))
		m.Set(p.fieldByNumber(2).fd, protoreflect.ValueOfInt32(int32(t.Nanosecond())))
		return nil
	case wktDuration:
		s, ok := tok.(string)
		if !ok {
			return d.mismatch(tok, name)
		}
		dur, err := time.ParseDuration(s)
		if err != nil {
			return d.badValue(tok, name, errors.New("not a duration"))
		}
		m.Set(p.fieldByNumber(1).fd, protoreflect.ValueOfInt64(int64(dur/time.Second)))
		m.Set(p.fieldByNumber(2).fd, protoreflect.ValueOfInt32(int32(dur%time.Second)))
		return nil
	case wktWrapper:
		f := &p.fields[0]
		v, err := d.scalar(f, tok)
		if err != nil {
			return err
		}
		m.Set(f.fd, v)
		return nil
	case wktStruct:
		if tok != json.Delim('{') {
			return d.mismatch(tok, name)
		}
		return d.field(&p.fields[0], m, tok)
	case wktList:
		if tok != json.Delim('[') {
			return d.mismatch(tok, name)
		}
		return d.field(&p.fields[0], m, tok)
	case wktValue:
		var f *fieldPlan
		var v protoreflect.Value
		switch t := tok.(type) {
		case nil:
			f, v = p.fieldByNumber(1), protoreflect.ValueOfEnum(0)
		case json.Number:
			x, err := parseFloat(string(t), 64)
			if err != nil {
				return d.badValue(tok, name, err)
			}
			f, v = p.fieldByNumber(2), protoreflect.ValueOfFloat64(x)
		case string:
			f, v = p.fieldByNumber(3), protoreflect.ValueOfString(t)
		case bool:
			f, v = p.fieldByNumber(4), protoreflect.ValueOfBool(t)
		case json.Delim:
			f = p.fieldByNumber(5) // struct_value
			if t == '[' {
				f = p.fieldByNumber(6) // list_value
			}
			return d.message(f.msg, m.Mutable(f.fd).Message(), tok)
		}
		m.Set(f.fd, v)
		return nil
	case wktEmpty:
		if tok != json.Delim('{') {
			return d.mismatch(tok, name)
		}
		return d.skip(tok)
	}
	return errorf("cannot unmarshal into %s: %s is not supported", d.target(name), name)
}

// skip reads past the value starting with tok.
func (d *decoder) skip(tok json.Token) error {
	depth := 0
	for {
		if delim, ok := tok.(json.Delim); ok {
			if delim == '{' || delim == '[' {
				depth++
			} else {
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
		var err error
		if tok, err = d.token(); err != nil {
			return err
		}
	}
}

// mismatch reports a JSON value of the wrong kind for its target.
func (d *decoder) mismatch(tok json.Token, typ string) error {
	return errorf("cannot unmarshal %s into %s", jsonKind(tok), d.target(typ))
}

// badValue reports a JSON value of the right kind that does not fit.
func (d *decoder) badValue(tok json.Token, typ string, reason error) error {
	var val string
	switch t := tok.(type) {
	case string:
		val = "string " + quote(t)
	case json.Number:
		val = "number " + string(t)
	default:
		val = jsonKind(tok)
	}
	if reason != nil {
		return errorf("cannot unmarshal %s into %s: %v", val, d.target(typ), reason)
	}
	return errorf("cannot unmarshal %s into %s", val, d.target(typ))
}

// target names where a value was going: the field path and its type.
func (d *decoder) target(typ string) string {
	if len(d.path) == 0 {
		return "type " + typ
	}
	var sb strings.Builder
	for i, e := range d.path {
		switch {
		case e.index >= 0:
			sb.WriteByte('[')
			sb.WriteString(strconv.Itoa(e.index))
			sb.WriteByte(']')
		case e.index == -2:
			sb.WriteByte('[')
			sb.WriteString(e.name)
			sb.WriteByte(']')
		default:
			if i > 0 {
				sb.WriteByte('.')
			}
			sb.WriteString(e.name)
		}
	}
	return "field " + strconv.Quote(sb.String()) + " of type " + typ
}

func jsonKind(tok json.Token) string {
	switch t := tok.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case json.Number:
		return "number"
	case string:
		return "string"
	case json.Delim:
		if t == '[' {
			return "array"
		}
		return "object"
	}
	return fmt.Sprintf("%T", tok)
}

// fieldType names a field's type: "repeated string", "map<string, int64>",
// "forge.users.v1.User".
func fieldType(f *fieldPlan) string {
	switch {
	case f.list:
		return "repeated " + elemType(f)
	case f.isMap:
		return "map<" + f.fd.MapKey().Kind().String() + ", " + elemType(f.mapVal) + ">"
	}
	return elemType(f)
}

func elemType(f *fieldPlan) string {
	switch {
	case f.enum != nil:
		return string(f.enum.FullName())
	case f.msg != nil:
		return string(f.msg.desc.FullName())
	}
	return f.kind.String()
}

// quote quotes s for an error message, shortened if long.
func quote(s string) string {
	const max = 64
	if len(s) > max {
		return strconv.Quote(s[:max]) + "..."
	}
	return strconv.Quote(s)
}

// numberText returns the text of a JSON number or of a string that may hold
// one.
func numberText(tok json.Token) (string, bool) {
	switch t := tok.(type) {
	case json.Number:
		return string(t), true
	case string:
		return t, true
	}
	return "", false
}

var (
	errFraction = errors.New("not an integer")
	errRange    = errors.New("out of range")
)

// parseInt parses a decimal integer; an integral value in exponent or
// decimal-point form (1e3, 5.0) is accepted up to 2^53.
func parseInt(s string, bits int) (int64, error) {
	n, err := strconv.ParseInt(s, 10, bits)
	if err == nil {
		return n, nil
	}
	if errors.Is(err, strconv.ErrRange) {
		return 0, errRange
	}
	x, err := parseIntegralFloat(s)
	if err != nil {
		return 0, err
	}
	if bits == 32 && (x < math.MinInt32 || x > math.MaxInt32) {
		return 0, errRange
	}
	return int64(x), nil
}

func parseUint(s string, bits int) (uint64, error) {
	n, err := strconv.ParseUint(s, 10, bits)
	if err == nil {
		return n, nil
	}
	if errors.Is(err, strconv.ErrRange) || strings.HasPrefix(s, "-") {
		return 0, errRange
	}
	x, err := parseIntegralFloat(s)
	if err != nil {
		return 0, err
	}
	if x < 0 || bits == 32 && x > math.MaxUint32 {
		return 0, errRange
	}
	return uint64(x), nil
}

func parseIntegralFloat(s string) (float64, error) {
	if strings.Trim(s, "0123456789+-.eE") != "" || !strings.ContainsAny(s, ".eE") {
		return 0, errors.New("not a number")
	}
	x, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange):
		return 0, errors.New("not a number")
	case x != math.Trunc(x):
		return 0, errFraction
	case err != nil || math.Abs(x) > 1<<53:
		return 0, errRange
	}
	return x, nil
}

// parseFloat parses a finite number; JSON has no NaN or infinities.
func parseFloat(s string, bits int) (float64, error) {
	x, err := strconv.ParseFloat(s, bits)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return 0, errRange
	case err != nil || math.IsNaN(x) || math.IsInf(x, 0):
		return 0, errors.New("not a number")
	}
	return x, nil
}

// decodeBase64 accepts standard and URL-safe base64, padded or not.
func decodeBase64(s string) ([]byte, error) {
	enc := base64.StdEncoding
	if strings.ContainsAny(s, "-_") {
		enc = base64.URLEncoding
	}
	if len(s)%4 != 0 {
		enc = enc.WithPadding(base64.NoPadding)
	}
	return enc.DecodeString(s)
}
