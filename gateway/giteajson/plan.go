package giteajson

import (
	"sync"
	"unicode"
	"unicode/utf8"

	optionsv1 "forge/gen/forge/options/v1"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// wkt identifies the well-known types that have their own JSON form.
type wkt uint8

const (
	wktNone wkt = iota
	wktTimestamp
	wktDuration
	wktWrapper
	wktStruct
	wktValue
	wktList
	wktEmpty
	wktAny
)

func wktOf(name protoreflect.FullName) wkt {
	if name.Parent() != "google.protobuf" {
		return wktNone
	}
	switch name.Name() {
	case "Timestamp":
		return wktTimestamp
	case "Duration":
		return wktDuration
	case "DoubleValue", "FloatValue", "Int64Value", "UInt64Value", "Int32Value",
		"UInt32Value", "BoolValue", "StringValue", "BytesValue":
		return wktWrapper
	case "Struct":
		return wktStruct
	case "Value":
		return wktValue
	case "ListValue":
		return wktList
	case "Empty":
		return wktEmpty
	case "Any":
		return wktAny
	}
	return wktNone
}

// messagePlan is everything the encoder and decoder need to know about one
// message type, worked out once.
type messagePlan struct {
	desc   protoreflect.MessageDescriptor
	wkt    wkt
	fields []fieldPlan // declaration order, rest_hidden fields left out

	// byName maps the exact JSON key, the proto name and the protobuf JSON
	// name of each field; byFold maps their case-folded forms (decoding only).
	byName map[string]*fieldPlan
	byFold map[string]*fieldPlan
}

// fieldPlan describes one field; for a list it describes the elements too.
// A map field's values are described by mapVal.
type fieldPlan struct {
	fd          protoreflect.FieldDescriptor
	name        string // JSON key
	key         []byte // `,"name":`, escaped
	kind        protoreflect.Kind
	list        bool
	isMap       bool
	presence    bool // written as null when unset
	nullIfEmpty bool
	enum        protoreflect.EnumDescriptor // enum kind only
	msg         *messagePlan                // message and group kinds only
	mapVal      *fieldPlan                  // map only
}

var plans sync.Map // protoreflect.MessageDescriptor → *messagePlan

// planFor returns the cached plan for md, building it (and the plans of every
// message type it reaches) on first use.
func planFor(md protoreflect.MessageDescriptor) *messagePlan {
	if p, ok := plans.Load(md); ok {
		return p.(*messagePlan)
	}
	pl := planner{building: map[protoreflect.MessageDescriptor]*messagePlan{}}
	p := pl.message(md)
	for d, q := range pl.building {
		plans.LoadOrStore(d, q)
	}
	return p
}

type planner struct {
	building map[protoreflect.MessageDescriptor]*messagePlan
}

func (pl *planner) message(md protoreflect.MessageDescriptor) *messagePlan {
	if p, ok := plans.Load(md); ok {
		return p.(*messagePlan)
	}
	if p, ok := pl.building[md]; ok {
		return p // recursive type: the pointer is filled in below
	}
	p := &messagePlan{desc: md, wkt: wktOf(md.FullName())}
	pl.building[md] = p

	fds := md.Fields()
	p.fields = make([]fieldPlan, 0, fds.Len())
	for i := range fds.Len() {
		fd := fds.Get(i)
		if fieldOption(fd, optionsv1.E_RestHidden) {
			continue
		}
		p.fields = append(p.fields, pl.field(fd))
	}

	p.byName = make(map[string]*fieldPlan, 2*len(p.fields))
	p.byFold = make(map[string]*fieldPlan, 2*len(p.fields))
	add := func(n string, f *fieldPlan) {
		if _, dup := p.byName[n]; !dup {
			p.byName[n] = f
		}
		if k := string(appendFolded(nil, n)); p.byFold[k] == nil {
			p.byFold[k] = f
		}
	}
	// Names first, then the protobuf JSON names, so that a field's own name
	// wins over another field's camelCase alias.
	for i := range p.fields {
		f := &p.fields[i]
		add(f.name, f)
		add(string(f.fd.Name()), f)
	}
	for i := range p.fields {
		add(p.fields[i].fd.JSONName(), &p.fields[i])
	}
	return p
}

func (pl *planner) field(fd protoreflect.FieldDescriptor) fieldPlan {
	f := pl.element(fd)
	f.name = jsonName(fd)
	f.key = append(appendString([]byte{','}, f.name), ':')
	f.list = fd.IsList()
	f.isMap = fd.IsMap()
	f.presence = fd.HasPresence()
	f.nullIfEmpty = fieldOption(fd, optionsv1.E_NullIfEmpty)
	if f.isMap {
		v := pl.element(fd.MapValue())
		f.mapVal = &v
	}
	return f
}

// element fills in what is needed to read or write one value of fd's kind.
func (pl *planner) element(fd protoreflect.FieldDescriptor) fieldPlan {
	f := fieldPlan{fd: fd, kind: fd.Kind(), name: string(fd.Name())}
	switch f.kind {
	case protoreflect.EnumKind:
		f.enum = fd.Enum()
	case protoreflect.MessageKind, protoreflect.GroupKind:
		if !fd.IsMap() {
			f.msg = pl.message(fd.Message())
		}
	}
	return f
}

// fieldPlan returns the plan of the field with number n, or nil.
func (p *messagePlan) fieldByNumber(n protoreflect.FieldNumber) *fieldPlan {
	for i := range p.fields {
		if p.fields[i].fd.Number() == n {
			return &p.fields[i]
		}
	}
	return nil
}

// lookup finds the field for a JSON key the way encoding/json does: an exact
// match first, then a case-insensitive one.
func (p *messagePlan) lookup(key string) *fieldPlan {
	if f := p.byName[key]; f != nil {
		return f
	}
	var arr [64]byte
	return p.byFold[string(appendFolded(arr[:0], key))]
}

// jsonName is the field's key: the proto name, unless the .proto gives the
// field an explicit json_name. protoc records a json_name for every field, so
// "explicit" means different from the camelCase name protoc would derive.
func jsonName(fd protoreflect.FieldDescriptor) string {
	if fd.HasJSONName() && fd.JSONName() != defaultJSONName(string(fd.Name())) {
		return fd.JSONName()
	}
	return string(fd.Name())
}

// defaultJSONName is protoc's ToJsonName: drop underscores and upper-case the
// letter after each.
func defaultJSONName(name string) string {
	b := make([]byte, 0, len(name))
	upper := false
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_':
			upper = true
		case upper:
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			b = append(b, c)
			upper = false
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

func fieldOption(fd protoreflect.FieldDescriptor, xt protoreflect.ExtensionType) bool {
	opts, ok := fd.Options().(*descriptorpb.FieldOptions)
	if !ok || opts == nil {
		return false
	}
	v, _ := proto.GetExtension(opts, xt).(bool)
	return v
}

// appendFolded appends the case-folded form of name used by encoding/json to
// match object keys to fields.
func appendFolded(out []byte, name string) []byte {
	for i := 0; i < len(name); {
		if c := name[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(name[i:])
		out = utf8.AppendRune(out, unicode.ToUpper(unicode.ToLower(r)))
		i += n
	}
	return out
}
